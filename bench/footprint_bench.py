"""Redis bytes per event of 4-seat games of every type, everything included: the game's stream, meta,
command ids, snapshot and read models (``MEMORY USAGE``), its share of the lobby lists and of the partition
feeds.  Games are played to the end over HTTP by random bots against the services as processes; each game is
measured at half its commands (a live game) and at its end (finished and scored, not yet archived).

    python -m bench.footprint_bench [--games 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import time
from typing import Any

from bench.common import BENCH_LIMITS
from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import ApiFailure, BenthicClient
from benthic.feed.keys import feed_key
from benthic.game.keys import GameKeys, lobby_key
from benthic.local.localplatform import LocalPlatform
from benthic.local.signals import stop_servers_on_signals
from benthic.rules import game_types, get_engine
from benthic.runtime.redisconn import redis_client

PARTITIONS = 16
TARGET_LIVE = 300


async def _memory(redis: Any, key: str) -> int:
    return int(await redis.memory_usage(key, samples=0) or 0)


async def _game_bytes(redis: Any, game_id: str) -> dict[str, int]:
    keys = GameKeys(game_id, PARTITIONS)
    own = {
        "events": await _memory(redis, keys.events),
        "meta": await _memory(redis, keys.meta),
        "commands": await _memory(redis, keys.commands),
        "snapshot": await _memory(redis, keys.snapshot),
        "read_model": await _memory(redis, keys.read_model),
    }
    lobby = 0
    for game_type in game_types():
        for status in ("open", "running", "finished"):
            key = lobby_key(keys.partition, game_type, status)
            if await redis.zscore(key, game_id) is not None:
                lobby += await _memory(redis, key) // max(1, await redis.zcard(key))
    own["lobby_share"] = lobby
    return own


async def _feed_bytes(redis: Any) -> int:
    return sum([await _memory(redis, feed_key(p)) for p in range(PARTITIONS)])


async def _until_scored(client: BenthicClient, game_id: str, version: int) -> None:
    deadline = time.monotonic() + 60
    while True:
        try:
            summary = await client.summary(game_id)
            if summary.get("scored") and summary["version"] >= version + 1:
                return
        except ApiFailure:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{game_id} not scored")
        await asyncio.sleep(0.1)


async def _measure(platform: LocalPlatform, game_type: str, games: int) -> dict[str, Any]:
    client = BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                           mint=platform.mint)
    redis = redis_client(platform.redis_url)
    seats = min(4, get_engine(game_type).max_seats)
    rows = []
    for index in range(games):
        game_id, tokens = await start_bot_game(client, game_type, seats, name=f"fp{index}")
        game = HttpGame(client, game_id, tokens, random.Random(index))
        # a first pass to learn the game's length, then the same seeded game is not possible over HTTP:
        # measure at half of a typical length instead (the first game's commands / 2).
        half = rows[0]["commands"] // 2 if rows else 150
        mid_version = await game.play(pause_after=half)
        await asyncio.sleep(1.0)  # let the projection catch up
        for seat, token in tokens.items():  # every viewer looks: the worst case, every view stored
            await client.view(game_id, seat, token)
        await client.view(game_id)
        mid = await _game_bytes(redis, game_id)
        feed_mid = await _feed_bytes(redis)
        version = await game.play()
        await _until_scored(client, game_id, version)
        end = await _game_bytes(redis, game_id)
        feed_end = await _feed_bytes(redis)
        events = version + 1
        rows.append({
            "game_id": game_id, "seats": seats, "commands": game.commands,
            "mid": {"events": mid_version, "bytes": mid, "feed_bytes_all_games": feed_mid,
                    "bytes_per_event": round((sum(mid.values()) + feed_mid) / max(1, mid_version), 1)},
            "end": {"events": events, "bytes": end, "feed_bytes_all_games": feed_end,
                    "bytes_per_event": round((sum(end.values()) + feed_end) / events, 1)},
        })
    await redis.aclose()
    await client.aclose()
    return {
        "games": rows,
        "live_bytes_per_event_mid": round(statistics.fmean(r["mid"]["bytes_per_event"] for r in rows), 1),
        "live_bytes_per_event_end": round(statistics.fmean(r["end"]["bytes_per_event"] for r in rows), 1),
        "target_live_bytes_per_event": TARGET_LIVE,
    }


async def _run(games: int) -> dict[str, Any]:
    with LocalPlatform(env={"BENTHIC_LOG_LEVEL": "warning", **BENCH_LIMITS}) as platform:
        return {game_type: await _measure(platform, game_type, games) for game_type in game_types()}


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=3)
    args = parser.parse_args()
    print(json.dumps({"footprint_bench": asyncio.run(_run(args.games))}, indent=2))


if __name__ == "__main__":
    main()
