"""Store append throughput: Python appends with OCC over 1,000 games, next to ``redis-benchmark`` running the
same Lua script on the same server (every call a full append: a fresh game, command id and events each time).

    python -m bench.store_bench [--redis-url URL] [--seconds 10] [--games 1000] [--writers 64] [--processes 2]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import multiprocessing
import os
import re
import shutil
import subprocess
import time
import uuid
from typing import Any

from redis.asyncio import Redis

from benthic.feed.encoding import encode_notification
from benthic.feed.notification import Notification
from benthic.game.keys import GameKeys
from benthic.local.devredis import PrivateRedis
from benthic.local.signals import stop_servers_on_signals
from benthic.store import EventStore, NewEvent, SeatInfo, VersionConflict
from benthic.store.append import SOURCE as APPEND_SOURCE
from benthic.store.append import append_call
from benthic.store.entries import CommitHead, encode_head

EVENT = NewEvent("station_built", b'{"type":"station_built","seat":1,"tile":"T17","anchor":[10,12],"rotation":90,'
                 b'"locks":["blue","green"],"level":2,"paid":2}', engine_version=2)


async def _python_writer(url: str, games: list[str], seconds: float, writers: int) -> tuple[int, int]:
    redis = Redis.from_url(url, max_connections=writers + 8)
    store = EventStore(redis, 16)
    versions = {g: await store.version(g) for g in games}
    appended = conflicts = 0
    deadline = time.perf_counter() + seconds
    ids = itertools.count()
    prefix = uuid.uuid4().hex[:8]

    async def writer(mine: list[str]) -> None:
        nonlocal appended, conflicts
        i = 0
        while time.perf_counter() < deadline:
            game = mine[i % len(mine)]
            i += 1
            try:
                commit = await store.append(game, "bench", versions[game], [EVENT], command_id=f"{prefix}-{next(ids)}",
                                            seat=1, now_ms=int(time.time() * 1000))
                versions[game] = commit.last_version
                appended += 1
            except VersionConflict as conflict:
                versions[game] = conflict.current
                conflicts += 1

    await asyncio.gather(*(writer(games[w::writers]) for w in range(writers)))
    await redis.aclose()
    return appended, conflicts


def _process_entry(url: str, games: list[str], seconds: float, writers: int, out: Any) -> None:
    out.put(asyncio.run(_python_writer(url, games, seconds, writers)))


async def _create_games(url: str, n: int) -> list[str]:
    redis = Redis.from_url(url)
    store = EventStore(redis, 16)
    games = [f"b_{uuid.uuid4().hex[:12]}" for _ in range(n)]
    for game in games:
        await store.create(game, "bench", [EVENT], seats=[SeatInfo("a"), SeatInfo("b")], options={},
                           engine_version="bench", seeded=True, now_ms=1)
    await redis.aclose()
    return games


def python_rate(url: str, games: list[str], seconds: float, writers: int, processes: int) -> dict[str, Any]:
    queue: Any = multiprocessing.get_context("fork").Queue()
    workers = [
        multiprocessing.get_context("fork").Process(
            target=_process_entry, args=(url, games[p::processes], seconds, writers, queue)
        )
        for p in range(processes)
    ]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    results = [queue.get() for _ in workers]
    for worker in workers:
        worker.join()
    elapsed = time.perf_counter() - started
    appended = sum(r[0] for r in results)
    return {"appends_per_s": round(appended / seconds, 1), "appends": appended,
            "conflicts": sum(r[1] for r in results), "wall_s": round(elapsed, 2),
            "processes": processes, "writers_per_process": writers}


def redis_benchmark_rate(url: str, seconds: float, clients: int) -> dict[str, Any]:
    binary = shutil.which("redis-benchmark")
    if binary is None:
        return {"error": "redis-benchmark not on PATH"}
    host, port = re.match(r"redis://([^:/]+):(\d+)", url).groups()  # type: ignore[union-attr]
    notification = encode_notification(Notification("g", "bench", "events", 1, 1, 0, False))
    now = int(time.time() * 1000)
    keys, script_args = append_call(
        GameKeys("__rand_int__", 1), expected_version=0, command_id="__rand_int__", now_ms=now,
        head=encode_head(CommitHead(now, 1, "e", "__rand_int__", 1)), events=[EVENT.data], notification=notification,
        feed_maxlen=200_000, ended=False, meta={},
    )

    def arg(value: Any) -> str:  # redis-benchmark takes text arguments: no NUL bytes
        raw = value if isinstance(value, bytes) else str(value).encode()
        return raw.replace(b"\x00", b"\x01").decode("latin-1")

    args = [
        binary, "-h", host, "-p", port, "-c", str(clients), "-n", "0", "-r", "999999999999", "--csv",
        "EVAL", APPEND_SOURCE, str(len(keys)), *keys, *map(arg, script_args),
    ]
    # -n 0 is not valid: size the run to ~`seconds` with a probe first.
    probe = subprocess.run([*args[:8], "20000", *args[9:]], capture_output=True, text=True, check=True)
    rate = _csv_rate(probe.stdout)
    total = max(20000, int(rate * seconds))
    full = subprocess.run([*args[:8], str(total), *args[9:]], capture_output=True, text=True, check=True)
    return {"appends_per_s": round(_csv_rate(full.stdout), 1), "requests": total, "clients": clients}


def _csv_rate(output: str) -> float:
    # The test name echoes the arguments unescaped; the 7 numbers at the end of the last line are reliable.
    last = output.strip().splitlines()[-1]
    cells = last.rsplit(",", 7)
    if len(cells) != 8:
        raise RuntimeError(f"no rate in redis-benchmark output: {output[-500:]!r}")
    return float(cells[1].strip('"'))


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--redis-url", default=None)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--writers", type=int, default=64)
    parser.add_argument("--processes", type=int, default=max(1, min(2, os.cpu_count() or 1)))
    parser.add_argument("--clients", type=int, default=50)
    args = parser.parse_args()
    server = None
    url = args.redis_url
    if url is None:
        server = PrivateRedis().start()
        url = server.url
    try:
        games = asyncio.run(_create_games(url, args.games))
        python = python_rate(url, games, args.seconds, args.writers, args.processes)
        reference = redis_benchmark_rate(url, args.seconds, args.clients)
    finally:
        if server:
            server.stop()
    ratio = python["appends_per_s"] / reference["appends_per_s"] if reference.get("appends_per_s") else None
    print(json.dumps({"store_bench": {"python": python, "redis_benchmark_same_script": reference,
                                      "ratio": round(ratio, 3) if ratio else None, "target_ratio": 0.25,
                                      "games": args.games, "events_per_append": 1}}, indent=2))


if __name__ == "__main__":
    main()
