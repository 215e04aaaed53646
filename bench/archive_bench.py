"""Archive throughput and footprint: finished games (random bots, every seat) are played through the store,
projected and scored in process, then archived by one in-process Archiver (the service's code: read from
Redis, put, verify, atomic delete) into a private PostgreSQL with fsync on.

Reports, per game type: events per game, the Redis bytes a finished game holds before archiving (MEMORY USAGE
of its keys), the PostgreSQL bytes per archived game (growth of the archive tables, indexes and TOAST
included), the compressed and raw sizes of the log and read models; and the archiving throughput (games/s).

    python -m bench.archive_bench [--games 30] [--seats max|min]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import uuid
from typing import Any

from benthic.archive import Archive
from benthic.feed.notification import Notification
from benthic.game.keys import GameKeys, RatingKeys
from benthic.local.devpostgres import PrivatePostgres
from benthic.local.devredis import PrivateRedis
from benthic.local.signals import stop_servers_on_signals
from benthic.rules import GameConfig, game_types, get_engine
from benthic.rules.bots import RandomBot
from benthic.runtime.config import Settings
from benthic.runtime.redisconn import redis_client
from benthic.runtime.telemetry import configure_logging
from benthic.store import EventStore, NewEvent, SeatInfo
from benthic.store.loader import StateLoader
from services.archiver.archiver import Archiver
from services.projection.projector import Projector
from services.scoring.scorer import Scorer


async def _play(store: EventStore, game_type: str, seats: int, seed: int) -> str:
    engine = get_engine(game_type)
    rng = random.Random(seed)
    game_id = f"{game_type[:2]}_{uuid.uuid4().hex[:16]}"
    now = int(time.time() * 1000)
    events = engine.start(GameConfig(seats=seats, seed=seed))
    commit = await store.create(
        game_id, game_type, [NewEvent(engine.event_name(e), engine.encode_event(e)) for e in events],
        seats=[SeatInfo(f"bench-{seed}-{i}", f"Bench {i}") for i in range(seats)], options={},
        engine_version=engine.version, seeded=True, now_ms=now,
    )
    state, version = engine.replay(events), commit.last_version
    bot = RandomBot()
    while (prompt := engine.prompt(state)) is not None:
        seat = rng.choice(prompt.seats)
        decided = engine.decide(state, seat, bot.choose(engine, state, seat, rng))
        state = engine.fold(state, decided)
        commit = await store.append(
            game_id, game_type, version, [NewEvent(engine.event_name(e), engine.encode_event(e)) for e in decided],
            command_id=uuid.uuid4().hex, seat=seat, now_ms=int(time.time() * 1000), ended=engine.is_over(state),
        )
        version = commit.last_version
    return game_id


async def _redis_bytes(redis: Any, game_id: str, game_type: str, seats: int) -> int:
    keys = [*GameKeys(game_id, 16).game_keys(), RatingKeys(game_type).rated(game_id)]
    async with redis.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.memory_usage(key, samples=0)
        return sum(used or 0 for used in await pipe.execute())


async def run(redis_url: str, archive_url: str, games: int, seats_choice: str) -> dict[str, Any]:
    settings = Settings(redis_url=redis_url, archive_url=archive_url, archive_after_s=0.0, archive_lease_s=60.0,
                        archive_batch=20, archive_pool=4)
    redis = redis_client(redis_url)
    store = EventStore(redis, 16)
    projector = Projector(redis, store, StateLoader(store, 1000, 0))
    scorer = Scorer(redis, store, StateLoader(store, 1000, 0))
    archive = await Archive(archive_url, 4).open()
    await archive.migrate()
    archiver = Archiver(redis, archive, settings)
    report: dict[str, Any] = {"games_per_type": games, "by_type": {}}
    archived_total = 0
    seconds_total = 0.0
    for game_type in game_types():
        engine = get_engine(game_type)
        seats = engine.max_seats if seats_choice == "max" else max(2, engine.min_seats)
        ids = []
        for seed in range(games):
            game_id = await _play(store, game_type, seats, seed)
            await projector.project(game_id, game_type)
            await scorer.score(game_id, game_type)
            await projector.project(game_id, game_type)
            ids.append(game_id)
        redis_bytes = [await _redis_bytes(redis, g, game_type, seats) for g in ids]
        events = [await store.version(g) for g in ids]
        size_before = await archive.size_bytes()
        await archiver.schedule([Notification(g, game_type, "events", types=["game_scored"]) for g in ids])
        started = time.perf_counter()
        while await archiver.step():
            pass
        seconds = time.perf_counter() - started
        infos = [await archive.info(g) for g in ids]
        assert all(i is not None for i in infos), "a game was not archived"
        left = sum([await redis.exists(GameKeys(g, 16).meta) for g in ids])
        assert left == 0, f"{left} games still in Redis"
        pg_growth = await archive.size_bytes() - size_before
        archived_total += len(ids)
        seconds_total += seconds
        report["by_type"][game_type] = {
            "seats": seats,
            "events_per_game": round(sum(events) / len(events), 1),
            "redis_bytes_per_game_before_archiving": round(sum(redis_bytes) / len(ids)),
            "redis_bytes_per_event_before_archiving": round(sum(redis_bytes) / sum(events), 1),
            "postgres_bytes_per_game": round(pg_growth / len(ids)),
            "events_compressed_bytes_per_game": round(sum(i.events_bytes for i in infos) / len(ids)),  # type: ignore[union-attr]
            "events_raw_bytes_per_game": round(sum(i.events_raw_bytes for i in infos) / len(ids)),  # type: ignore[union-attr]
            "read_models_compressed_bytes_per_game": round(sum(i.read_models_bytes for i in infos) / len(ids)),  # type: ignore[union-attr]
            "read_models_raw_bytes_per_game": round(sum(i.read_models_raw_bytes for i in infos) / len(ids)),  # type: ignore[union-attr]
            "archive_games_per_s": round(len(ids) / seconds, 1),
        }
    report["archive_games_per_s"] = round(archived_total / seconds_total, 1)
    report["note"] = ("one in-process Archiver (batch 20, pool 4) on a private Redis and a private PostgreSQL "
                      "(fsync on) on this machine; throughput depends on machine load")
    await archive.close()
    await redis.aclose()
    return report


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=30, help="finished games per game type")
    parser.add_argument("--seats", choices=["max", "min"], default="max")
    args = parser.parse_args()
    configure_logging(Settings(log_level="warning", log_format="console"), "bench")  # stdout carries the JSON
    with PrivateRedis() as server, PrivatePostgres(tempfile.mkdtemp(prefix="benthic-bench-pg-"), durable=True) as pg:
        report = asyncio.run(run(server.url, pg.dsn, args.games, args.seats))
    json.dump(report, sys.stdout, indent=2)
    print()


if __name__ == "__main__":
    main()
