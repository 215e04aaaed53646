"""A state snapshot is a shortcut written in the background: one that cannot be written (Redis gone) is counted
and left for the next multiple of N, and its error is retrieved (asyncio never reports it as lost)."""

from __future__ import annotations

import asyncio
import gc

from benthic.game.gamestate import Folded
from benthic.local.devredis import PrivateRedis
from benthic.rules import get_engine
from benthic.runtime.redisconn import redis_client
from benthic.runtime.telemetry import SNAPSHOTS_FAILED
from benthic.store import EventStore
from benthic.store.loader import StateLoader


async def test_a_snapshot_that_cannot_be_written_is_counted_and_its_error_retrieved(tmp_path) -> None:
    redis = PrivateRedis(str(tmp_path / "redis")).start()
    client = redis_client(redis.url, pool_timeout=0.5)
    lost: list[dict] = []
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(lambda _loop, context: lost.append(context))
    try:
        loader = StateLoader(EventStore(client, 16), 10, snapshot_every=1)
        engine = get_engine("nautilus")
        redis.stop()  # every write fails from here on
        before = SNAPSHOTS_FAILED._value.get()
        loader.remember("g-snapshot", engine, 0, Folded(1, engine.initial_state()))
        for _ in range(500):  # not awaited here: awaiting would retrieve the error in its place
            if not loader._snapshot_tasks:
                break
            await asyncio.sleep(0.01)
        assert SNAPSHOTS_FAILED._value.get() == before + 1
        assert loader.cached("g-snapshot") is not None  # the state itself is kept
        gc.collect()
        await asyncio.sleep(0)
        assert not [c for c in lost if "never retrieved" in str(c.get("message", ""))], lost
    finally:
        loop.set_exception_handler(None)
        await client.aclose()
        redis.stop()
