"""End-to-end load: N concurrent random-bot games over HTTP against the three services as processes
(and Redis, and this load generator, all on this machine).  Reports accepted commands/s, command latency
p50/p99 (client-side), projection lag p50/p99 (event appended -> read model written, from the projection
service's histogram) and peak RSS per service.  Prints JSON.

    python -m bench.e2e_bench [--games 200] [--seconds 60] [--game-types nautilus,aquatica]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import time
from typing import Any

import httpx
import uvloop

from bench.common import (
    BENCH_LIMITS,
    CpuWindow,
    Pacer,
    env_overrides,
    histogram,
    histogram_quantile,
    latency_ms,
    peak_rss_mb,
)
from bench.loadclient import LoadClient, SocketPlays
from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import ApiFailure
from benthic.local.localplatform import SERVICES, LocalPlatform
from benthic.local.signals import stop_servers_on_signals
from benthic.rules import game_types, get_engine


async def _load(
    platform: LocalPlatform, concurrent: int, seconds: float, types: list[str], rate: float = 0.0,
    warmup: float = 10.0, transport: str = "http",
) -> dict[str, Any]:
    """``rate`` > 0: every game plays at ``rate / concurrent`` commands per second (players think); 0: each
    game sends its next command as soon as the last is answered (a closed loop: the maximum throughput).
    The first ``warmup`` seconds (the games arriving, cold caches) are not measured; games that end
    are replaced by new ones, whose creation is measured like everything else."""
    client: Any = LoadClient(platform.command_url, platform.mint)
    if transport == "ws":
        client = SocketPlays(client)
    latencies: list[tuple[float, float]] = []
    finished = 0
    errors: list[str] = []
    started = time.monotonic()
    window_start = started + warmup
    deadline = window_start + seconds

    async def lane(index: int) -> None:
        nonlocal finished
        # The population arrives over the warm-up (as players do), not in one instant: the games start spread
        # over the first half of it.
        await asyncio.sleep(warmup / 2 * index / concurrent)
        rng = random.Random(index)
        pace = Pacer(concurrent / rate if rate > 0 else 0.0, rng)

        while time.monotonic() < deadline:
            game_type = types[index % len(types)]
            engine = get_engine(game_type)
            seats = rng.randint(max(2, engine.min_seats), engine.max_seats)
            try:
                game_id, tokens = await start_bot_game(client, game_type, seats, name=f"load{index}")
            except ApiFailure as refused:  # e.g. 503 store_unavailable while every game starts at once
                errors.append(f"create: {refused.status} {refused.code}")
                await asyncio.sleep(1.0)  # the answer's Retry-After
                continue
            game = HttpGame(client, game_id, tokens, rng)
            try:
                while time.monotonic() < deadline:
                    before = game.commands
                    await game.play(pause_after=game.commands + 20, pacer=pace if pace.interval else None)
                    if game.commands - before < 20:  # the game ended
                        finished += 1
                        break
            except Exception as error:  # noqa: BLE001 - report, keep the load going
                errors.append(repr(error)[:200])
            if transport == "ws":
                await client.close_game(game_id)
            latencies.extend(game.latencies)
            game.latencies.clear()


    cpu = CpuWindow({**platform.pids(), "load_client": os.getpid()}, alone=frozenset({"load_client"}))

    async def cpu_in_window() -> dict[str, float]:
        await asyncio.sleep(max(0.0, window_start - time.monotonic()))
        cpu.start()
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        return cpu.stop()

    async def snapshot_at(moment: float) -> dict[float, float]:
        await asyncio.sleep(max(0.0, moment - time.monotonic()))
        async with httpx.AsyncClient() as http:
            return histogram((await http.get(f"{platform.read_url}/metrics")).text, "benthic_projection_lag_seconds")

    cpu_spent = asyncio.create_task(cpu_in_window())
    lag_before = asyncio.create_task(snapshot_at(window_start))
    lanes = asyncio.gather(*(lane(i) for i in range(concurrent)))
    lag_after = await snapshot_at(deadline)
    await lanes
    spent = await cpu_spent
    window = {b: lag_after.get(b, 0.0) - (await lag_before).get(b, 0.0) for b in lag_after}
    await client.aclose()
    measured = [seconds_taken for at, seconds_taken in latencies if window_start <= at <= deadline]
    p50, p99 = histogram_quantile(0.5, window), histogram_quantile(0.99, window)
    return {
        "warmup_s": warmup,
        "measured_s": seconds,
        "accepted_commands": len(measured),
        "accepted_commands_per_s": round(len(measured) / seconds, 1),
        "command_latency_ms": latency_ms(measured),
        "projection_lag_ms": {
            "p50": round(p50 * 1000, 1) if p50 is not None else None,
            "p99": round(p99 * 1000, 1) if p99 is not None else None,
            "events": window.get(float("inf"), 0),
        },
        "cpu_ms_per_command": {name: round(seconds * 1000 / len(measured), 3) if measured else None
                               for name, seconds in spent.items()},
        "games_finished": finished,
        "errors": errors[:10],
        "error_count": len(errors),
    }


def run(concurrent: int, seconds: float, types: list[str], rate: float, nice: bool = False,
        transport: str = "http") -> dict[str, Any]:
    niceness = {"projection": 5, "scoring": 10} if nice else {}
    env = {"BENTHIC_LOG_LEVEL": "warning", **BENCH_LIMITS, **env_overrides()}
    with LocalPlatform(env=env, niceness=niceness) as platform:
        # The load generator runs on uvloop, as the services do: less of the shared 2 cores goes to it.
        load = uvloop.run(_load(platform, concurrent, seconds, types, rate, transport=transport))
        rss = {s: peak_rss_mb(platform.processes[s].pid) for s in SERVICES}
    return {
        "concurrent_games": concurrent,
        "target_commands_per_s": rate or "max (closed loop)",
        "consumers_niced": nice,
        "transport": transport,
        "game_types": types,
        **load,
        "peak_rss_mb": rss,
        "targets": {"closed_loop_accepted_commands_per_s": ">= 1000",
                    "at_400_per_s": {"command_latency_p99_ms": "<= 30", "projection_lag_p99_ms": "<= 100"}},
    }


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--game-types", default=",".join(game_types()))
    parser.add_argument("--rates", default="400,0", help="aggregate commands/s per run; 0 = closed loop (max)")
    parser.add_argument("--transports", default="http,ws", help="players send commands over http, ws or both")
    parser.add_argument("--nice", action="store_true", help="run the projection and scoring at a lower priority")
    args = parser.parse_args()
    types = [t for t in args.game_types.split(",") if t]
    runs = [run(args.games, args.seconds, types, float(rate), args.nice, transport)
            for transport in args.transports.split(",") for rate in args.rates.split(",")]
    print(json.dumps({"e2e_bench": runs}, indent=2))


if __name__ == "__main__":
    main()
