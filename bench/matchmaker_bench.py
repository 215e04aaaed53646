"""The matchmaker's costs (issue 38), so a platform team knows where a single matchmaker bends:

- **pairing per wave** for 1,000 / 10,000 / 100,000 waiting tickets: the pure pairing (services/matchmaker/pairing.py,
  networkx's max-weight matching, chunked) on a population of ratings, classes and seat ranges like the pool test's,
  CPU and wall time, and the fold of that many tickets; then a **whole wave in the service** for 1,000 and 10,000
  tickets (appended to the pool's stream, then one wave: the players' folds read from Redis, the pairing, the
  ``match_made`` appends, every game created, ``match.found`` published), its time and the matchmaker's CPU;
- the matchmaker's **CPU per move** (bot games of every type played by the bots service, the matchmaker's CPU
  over the moves) and **idle** (ms of CPU per second with nothing to do), beside the other services'.

    .venv/bin/python -m bench.matchmaker_bench [--sizes 1000,10000,100000] [--wave-sizes 1000,10000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
from typing import Any

import httpx
from redis.asyncio import Redis

from bench.common import CpuWindow, cpu_seconds, env_overrides
from benthic.clients.client import BenthicClient
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from services.matchmaker import events as ev
from services.matchmaker.pairing import Candidate, Pairing, Params
from services.matchmaker.pool import Pool
from services.matchmaker.store import SOURCE

PACES = ("daily", "live")


def _tickets(n: int, seed: int) -> list[ev.TicketOpened]:
    rng = random.Random(seed)
    now = int(time.time() * 1000)
    made = []
    for i in range(n):
        game_type = rng.choice(game_types())
        engine = get_engine(game_type)
        low, high = max(2, engine.min_seats), engine.max_seats
        seats = rng.choice([(low, high), (low, high), (low, low), (max(low, high - 1), high)])
        made.append(ev.TicketOpened(
            at=now, ticket_id=f"t_{i:020x}", player_id=f"bench-{seed}-{i}", name=f"p{i}", game_type=game_type,
            seats_min=seats[0], seats_max=seats[1], options={}, rated=True, pace=rng.choice(PACES),
            rating=round(max(-5.0, min(45.0, rng.gauss(14, 7) + rng.expovariate(0.4))), 3), window=None,
            expires_at=now + 86_400_000))
    return made


def pure_pairing(n: int) -> dict[str, Any]:
    tickets = _tickets(n, n)
    fold_cpu = time.process_time()
    pool = Pool()
    for version, t in enumerate(tickets, 1):
        pool.apply_all(version, [t])
    fold_cpu = time.process_time() - fold_cpu
    candidates = [Candidate(t.ticket_id, t.player_id, t.rating, 0, t.seats_min, t.seats_max,
                            (t.game_type, "{}", t.pace, t.rated)) for t in tickets]
    wall, cpu = time.perf_counter(), time.process_time()
    tables = Pairing(Params(), lambda a, b: False).tables(candidates)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    seated = sum(len(t) for t in tables)
    return {"tickets": n, "pairing_cpu_s": round(cpu, 3), "pairing_wall_s": round(wall, 3),
            "pairing_us_per_ticket": round(cpu * 1e6 / n, 1), "fold_cpu_s": round(fold_cpu, 3),
            "tables": len(tables), "seated_first_wave": round(seated / n, 3)}


async def service_wave(platform: LocalPlatform, n: int, wave_s: float) -> dict[str, Any]:
    """``n`` tickets appended to the pool at once (as if they had arrived between two waves), then the time until
    the wave that pairs them has seated its tables, and the matchmaker's CPU meanwhile."""
    redis = Redis.from_url(platform.redis_url)
    script = redis.register_script(SOURCE)
    version = int(await redis.hget("{mm:pool}:head", "version") or 0)
    tickets = _tickets(n, 7 + n)
    pid = platform.pids()["matchmaker"]
    before = cpu_seconds(pid)
    started = time.perf_counter()
    for i in range(0, n, 500):
        chunk = tickets[i:i + 500]
        reply = await script(keys=["{mm:pool}:events", "{mm:pool}:head"],
                             args=[version, *(ev.encoder.encode(t) for t in chunk)])
        assert reply[0] == b"ok", reply
        version += len(chunk)
    appended = time.perf_counter() - started
    metrics = f"{platform.url('matchmaker')}/metrics"
    async with httpx.AsyncClient(timeout=10) as http:
        waves_before = _counter((await http.get(metrics)).text, "benthic_match_waves_total")
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            text = (await http.get(metrics)).text
            waved = _counter(text, "benthic_match_waves_total") > waves_before
            if waved and _counter(text, "benthic_match_unseated") == 0:
                break
            await asyncio.sleep(0.2)
    took = time.perf_counter() - started
    cpu = cpu_seconds(pid) - before
    events = [ev.pool_decoder.decode(f[b"d"]) for _id, f in await redis.xrange("{mm:pool}:events", f"{version + 1}-0")]
    await redis.aclose()
    made = sum(isinstance(e, ev.MatchMade) for e in events)
    return {"tickets": n, "append_s": round(appended, 2), "wave_until_seated_s": round(took, 2),
            "matchmaker_cpu_s": round(cpu, 2), "tables": made, "wave_s": wave_s}


def _counter(text: str, name: str) -> float:
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith(name) and " " in line)


async def per_move(platform: LocalPlatform, games: int, idle_s: float) -> dict[str, Any]:
    """Idle CPU of every service, then bot games of every type (the bots service plays them, no delay): each
    service's CPU per move."""
    pids = platform.pids()
    window = CpuWindow(pids)
    window.start()
    await asyncio.sleep(idle_s)
    idle = window.stop()
    idle_ms = {k: round(v * 1000 / (window.stopped - window.started), 2) for k, v in idle.items()}
    client = BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                           mint=platform.mint)
    window = CpuWindow(pids)
    window.start()
    ids = []
    for i in range(games):
        game_type = game_types()[i % len(game_types())]
        seats = [{"bot": "random", "level": s + 1} for s in range(2)]
        ids.append((await client.create_game(game_type, seats))["game_id"])
    moves = 0
    for game_id in ids:
        while True:
            try:
                summary = await client.summary(game_id)
                if summary["status"] == "finished":
                    break
            except Exception:  # noqa: BLE001 - not projected yet
                pass
            await asyncio.sleep(0.5)
        entries = (await client.audit(game_id))["entries"]
        moves += sum(1 for e in entries if e["kind"] == "e" and e["actor_kind"] == "bot")
    cpu = window.stop()
    await client.aclose()
    return {"games": games, "bot_commits": moves, "idle_cpu_ms_per_s": idle_ms,
            "cpu_ms_per_move": {k: round(v * 1000 / moves, 4) for k, v in cpu.items()} if moves else {}}


async def run(sizes: list[int], wave_sizes: list[int], games: int, idle_s: float) -> dict[str, Any]:
    report: dict[str, Any] = {"pairing": [pure_pairing(n) for n in sizes]}
    wave_s = 5.0
    env = {**env_overrides(), "BENTHIC_MATCH_WAVE_S": str(wave_s), "BENTHIC_BOT_MOVE_DELAY_MS": "0",
           "BENTHIC_MAX_OPEN_GAMES_PER_PLAYER": "0"}
    with LocalPlatform(env=env) as platform:
        report["per_move"] = await per_move(platform, games, idle_s)
        report["service_wave"] = [await service_wave(platform, n, wave_s) for n in wave_sizes]
    return report


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--wave-sizes", default="1000,10000")
    parser.add_argument("--games", type=int, default=30)
    parser.add_argument("--idle", type=float, default=10.0)
    args = parser.parse_args()
    report = asyncio.run(run([int(s) for s in args.sizes.split(",") if s], [int(s) for s in args.wave_sizes.split(",")
                                                                           if s], args.games, args.idle))
    print(json.dumps(report, indent=2))
    for row in report["pairing"]:
        print(f"pairing {row['tickets']:>7} tickets: {row['pairing_cpu_s']} s CPU, {row['pairing_wall_s']} s, "
              f"{row['pairing_us_per_ticket']} us/ticket, fold {row['fold_cpu_s']} s", file=sys.stderr)


if __name__ == "__main__":
    main()
