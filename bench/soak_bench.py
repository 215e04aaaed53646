"""Soak: many finished games through the whole platform, archiving on, Redis memory watched.

The services as processes (a private Redis with AOF and a private PostgreSQL archive, ``LocalPlatform``), games
of every type played to the end by random bots over HTTP, ``--concurrent`` at a time, until ``--games`` have
finished; the archiver moves each out of Redis ``BENTHIC_ARCHIVE_AFTER_S`` after it is scored.  Every
``--sample-s`` seconds: finished games, games archived (the archiver's counter), Redis ``used_memory`` and its
key count.  At the end it waits for the archive to catch up and reports the memory series: flat means the
memory after N finished games does not grow with N (only the live games and the leaderboards stay).

    python -m bench.soak_bench [--games 1000] [--concurrent 40] [--archive-after-s 2]
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

from bench.common import BENCH_LIMITS, env_overrides
from bench.loadclient import LoadClient
from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.local.localplatform import LocalPlatform
from benthic.local.signals import stop_servers_on_signals
from benthic.rules import game_types, get_engine
from benthic.runtime.redisconn import redis_client


def _counter(text: str, name: str) -> float:
    return sum(float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
               if line.startswith(name) and not line.startswith("#"))


async def _soak(platform: LocalPlatform, games: int, concurrent: int, sample_s: float) -> dict[str, Any]:
    client = LoadClient(platform.command_url, platform.mint)
    redis = redis_client(platform.redis_url)
    http = httpx.AsyncClient()
    types = list(game_types())
    finished = 0
    started_games = 0
    errors: list[str] = []
    samples: list[dict[str, Any]] = []
    started = time.monotonic()

    async def archived() -> float:
        text = (await http.get(f"{platform.url('archiver')}/metrics")).text
        return _counter(text, "benthic_games_archived_total")

    async def sample() -> dict[str, Any]:
        memory = await redis.info("memory")
        row = {"t_s": round(time.monotonic() - started, 1), "finished": finished, "archived": int(await archived()),
               "redis_used_memory_mb": round(memory["used_memory"] / 2**20, 2), "redis_keys": await redis.dbsize()}
        samples.append(row)
        print(json.dumps(row), file=sys.stderr, flush=True)
        return row

    async def lane(index: int) -> None:
        nonlocal finished, started_games
        rng = random.Random(index)
        while started_games < games:
            started_games += 1
            game_type = types[started_games % len(types)]
            engine = get_engine(game_type)
            try:
                game_id, tokens = await start_bot_game(client, game_type, max(2, engine.min_seats),
                                                       name=f"soak{index}-{started_games}")
                await HttpGame(client, game_id, tokens, rng).play()
                finished += 1
            except Exception as error:  # noqa: BLE001 - report, keep soaking
                errors.append(repr(error)[:200])

    async def sampler() -> None:
        while True:
            await asyncio.sleep(sample_s)
            await sample()

    await sample()
    watching = asyncio.create_task(sampler())
    await asyncio.gather(*(lane(i) for i in range(concurrent)))
    played_s = time.monotonic() - started
    deadline = time.monotonic() + 300
    while await archived() < finished and time.monotonic() < deadline:  # the archive catches up
        await asyncio.sleep(1.0)
    watching.cancel()
    final = await sample()
    await http.aclose()
    await redis.aclose()
    await client.aclose()
    by_hundreds = [s for s in samples if s["finished"] >= 100]
    return {
        "games_finished": finished,
        "games_archived": final["archived"],
        "played_s": round(played_s, 1),
        "finished_games_per_s": round(finished / played_s, 2) if played_s else None,
        "redis_used_memory_mb": {
            "start": samples[0]["redis_used_memory_mb"],
            "after_100_finished": by_hundreds[0]["redis_used_memory_mb"] if by_hundreds else None,
            "peak": max(s["redis_used_memory_mb"] for s in samples),
            "end_all_archived": final["redis_used_memory_mb"],
        },
        "redis_keys_end": final["redis_keys"],
        "samples": samples,
        "errors": errors[:10],
        "error_count": len(errors),
    }


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--concurrent", type=int, default=40)
    parser.add_argument("--archive-after-s", type=float, default=2.0)
    parser.add_argument("--sample-s", type=float, default=10.0)
    args = parser.parse_args()
    env = {"BENTHIC_LOG_LEVEL": "warning", **BENCH_LIMITS, "BENTHIC_ARCHIVE_AFTER_S": str(args.archive_after_s),
           **env_overrides()}
    with LocalPlatform(env=env) as platform:
        result = asyncio.run(_soak(platform, args.games, args.concurrent, args.sample_s))
    print(json.dumps({"soak_bench": {"concurrent": args.concurrent, "archive_after_s": args.archive_after_s,
                                     **result}}, indent=2))


if __name__ == "__main__":
    main()
