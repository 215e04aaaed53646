"""Bot-only games through the services: N games of mixed types (every seat a server-side bot, greedy against
random), at most C in flight, each played to its end by the bots service (one process, no move delay) through
the command path, projected and scored.  Reports games/s, moves/s, the bot move lag p50/p99 (move due ->
appended, the bots service's histogram) and think time p50/p99.  Prints JSON.

    python -m bench.bots_bench [--games 500] [--concurrency 40] [--game-types nautilus,aquatica]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from itertools import cycle
from typing import Any

import httpx
from redis.asyncio import Redis

from bench.common import histogram, histogram_quantile
from benthic.clients.client import BenthicClient
from benthic.game.keys import GameKeys
from benthic.local.localplatform import LocalPlatform
from benthic.local.signals import stop_servers_on_signals
from benthic.rules import game_types, get_engine


async def _run(platform: LocalPlatform, games: int, concurrency: int, types: list[str]) -> dict[str, Any]:
    client = BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                           mint=platform.mint)
    redis = Redis.from_url(platform.redis_url)
    kinds = cycle(types)
    in_flight: dict[str, str] = {}
    created = finished = 0
    started = time.monotonic()
    per_type: dict[str, int] = {}

    async def create() -> None:
        nonlocal created
        game_type = next(kinds)
        engine = get_engine(game_type)
        seats = [{"bot": "greedy"}, {"bot": "random"}] + [{"bot": "random"}] * (max(2, engine.min_seats) - 2)
        answer = await client.create_game(game_type, seats, rated=False)
        in_flight[answer["game_id"]] = game_type
        created += 1

    while finished < games:
        while created < games and len(in_flight) < concurrency:
            await create()
        ids = list(in_flight)
        async with redis.pipeline(transaction=False) as pipe:
            for game_id in ids:
                pipe.hget(GameKeys(game_id, 16).meta, "status")
            statuses = await pipe.execute()
        for game_id, status in zip(ids, statuses, strict=True):
            if status == b"finished":
                game_type = in_flight.pop(game_id)
                per_type[game_type] = per_type.get(game_type, 0) + 1
                finished += 1
        await asyncio.sleep(0.2)
    elapsed = time.monotonic() - started
    metrics = httpx.get(f"{platform.url('bots')}/metrics", timeout=10).text
    lag = histogram(metrics, "benthic_bot_move_lag_seconds")
    think = histogram(metrics, "benthic_bot_think_seconds")
    moves = sum(float(line.rsplit(" ", 1)[1]) for line in metrics.splitlines()
                if line.startswith("benthic_bot_moves_total{"))
    await client.aclose()
    await redis.aclose()
    return {
        "games": games,
        "concurrency": concurrency,
        "games_by_type": per_type,
        "seconds": round(elapsed, 1),
        "games_per_s": round(games / elapsed, 2),
        "bot_moves": int(moves),
        "bot_moves_per_s": round(moves / elapsed, 1),
        "bot_move_lag_p50_s": histogram_quantile(0.5, lag),
        "bot_move_lag_p99_s": histogram_quantile(0.99, lag),
        "think_p50_s": histogram_quantile(0.5, think),
        "think_p99_s": histogram_quantile(0.99, think),
    }


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=500)
    parser.add_argument("--concurrency", type=int, default=40)
    parser.add_argument("--game-types", default=",".join(game_types()))
    args = parser.parse_args()
    env = {"BENTHIC_BOT_MOVE_DELAY_MS": "0", "BENTHIC_LOG_LEVEL": "warning", "BENTHIC_ARCHIVE_AFTER_S": "3600"}
    with LocalPlatform(env=env) as platform:
        result = asyncio.run(_run(platform, args.games, args.concurrency, args.game_types.split(",")))
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
