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
import random
import statistics
import time
from pathlib import Path
from typing import Any

import httpx
from benthic.bots_http import HttpGame, start_bot_game
from benthic.client import BenthicClient
from benthic.localplatform import SERVICES, LocalPlatform
from benthic.rules import game_types, get_engine


def _quantile(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _histogram(text: str, name: str) -> dict[float, float]:
    """Cumulative bucket counts of a Prometheus histogram, summed over its label sets."""
    buckets: dict[float, float] = {}
    for line in text.splitlines():
        if line.startswith(f"{name}_bucket{{"):
            labels, value = line.rsplit(" ", 1)
            le = labels.split('le="', 1)[1].split('"', 1)[0]
            bound = float("inf") if le == "+Inf" else float(le)
            buckets[bound] = buckets.get(bound, 0.0) + float(value)
    return buckets


def _histogram_quantile(q: float, buckets: dict[float, float]) -> float | None:
    """Prometheus' histogram_quantile: linear interpolation inside the bucket holding the rank."""
    bounds = sorted(buckets)
    if not bounds or buckets[bounds[-1]] == 0:
        return None
    rank = q * buckets[bounds[-1]]
    previous_bound, previous_count = 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if bound == float("inf"):
                return previous_bound
            span = count - previous_count
            return previous_bound + (bound - previous_bound) * ((rank - previous_count) / span if span else 1.0)
        previous_bound, previous_count = bound, count
    return None


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


async def _load(platform: LocalPlatform, concurrent: int, seconds: float, types: list[str]) -> dict[str, Any]:
    client = BenthicClient(platform.command_url, platform.read_url, timeout=60)
    latencies: list[float] = []
    finished = 0
    errors: list[str] = []
    deadline = time.monotonic() + seconds

    async def lane(index: int) -> None:
        nonlocal finished
        rng = random.Random(index)
        while time.monotonic() < deadline:
            game_type = types[index % len(types)]
            engine = get_engine(game_type)
            seats = rng.randint(max(2, engine.min_seats), engine.max_seats)
            game_id, tokens = await start_bot_game(client, game_type, seats, name=f"load{index}")
            game = HttpGame(client, game_id, tokens, rng)
            try:
                while time.monotonic() < deadline:
                    before = game.commands
                    await game.play(pause_after=game.commands + 20)
                    if game.commands - before < 20:  # the game ended
                        finished += 1
                        break
            except Exception as error:  # noqa: BLE001 - report, keep the load going
                errors.append(repr(error)[:200])
            latencies.extend(game.latencies)
            game.latencies.clear()

    started = time.monotonic()
    await asyncio.gather(*(lane(i) for i in range(concurrent)))
    elapsed = time.monotonic() - started
    await client.aclose()
    return {
        "elapsed_s": round(elapsed, 1),
        "accepted_commands": len(latencies),
        "accepted_commands_per_s": round(len(latencies) / elapsed, 1),
        "command_latency_ms": {
            "p50": round(_quantile(latencies, 0.5) * 1000, 2),
            "p99": round(_quantile(latencies, 0.99) * 1000, 2),
            "mean": round(statistics.fmean(latencies) * 1000, 2) if latencies else 0.0,
        },
        "games_finished": finished,
        "errors": errors[:10],
        "error_count": len(errors),
    }


def run(concurrent: int, seconds: float, types: list[str]) -> dict[str, Any]:
    with LocalPlatform(env={"BENTHIC_LOG_LEVEL": "warning"}) as platform:
        metrics_url = f"{platform.read_url}/metrics"
        before = _histogram(httpx.get(metrics_url).text, "benthic_projection_lag_seconds")
        load = asyncio.run(_load(platform, concurrent, seconds, types))
        time.sleep(2)  # let the projection drain what is in flight
        after = _histogram(httpx.get(metrics_url).text, "benthic_projection_lag_seconds")
        window = {b: after.get(b, 0.0) - before.get(b, 0.0) for b in after}
        p50, p99 = _histogram_quantile(0.5, window), _histogram_quantile(0.99, window)
        rss = {s: _peak_rss_mb(platform.processes[s].pid) for s in SERVICES}
    return {
        "concurrent_games": concurrent,
        "game_types": types,
        **load,
        "projection_lag_ms": {
            "p50": round(p50 * 1000, 1) if p50 is not None else None,
            "p99": round(p99 * 1000, 1) if p99 is not None else None,
            "events": window.get(float("inf"), 0),
        },
        "peak_rss_mb": rss,
        "targets": {"accepted_commands_per_s": ">= 500", "command_latency_p99_ms": "<= 50",
                    "projection_lag_p99_ms": "<= 250"},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--game-types", default=",".join(game_types()))
    args = parser.parse_args()
    types = [t for t in args.game_types.split(",") if t]
    print(json.dumps({"e2e_bench": run(args.games, args.seconds, types)}, indent=2))


if __name__ == "__main__":
    main()
