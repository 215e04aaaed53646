"""The live hub's one subscription against a real Redis: held only while somebody watches (and a linger after),
and no version missed around its start."""

from __future__ import annotations

import asyncio
from typing import Any

from benthic.game.keys import updates_channel
from benthic.runtime.redisconn import redis_client
from benthic.store import EventStore
from benthic.store.loader import StateLoader
from benthic.views.live import LiveHub
from benthic.views.reads import ReadModels
from services.projection.projector import Projector
from tests.platform_helpers import StoreGame

PARTITIONS = 16


async def _subscribers(redis: Any) -> int:
    """How many subscribers every partition's channel has (the same for all: one subscription covers them)."""
    counts = {count for _, count in await redis.pubsub_numsub(*(updates_channel(p) for p in range(PARTITIONS)))}
    assert len(counts) == 1, counts
    return counts.pop()


async def _until(probe: Any, what: str) -> None:
    for _ in range(200):
        if await probe():
            return
        await asyncio.sleep(0.025)
    raise AssertionError(f"never: {what}")


async def test_the_hub_subscribes_while_watched_and_misses_no_version_written_as_it_starts(redis, redis_url) -> None:
    store = EventStore(redis, PARTITIONS)
    updates = redis_client(redis_url, 4)
    hub = LiveHub(updates, ReadModels(redis, store), PARTITIONS, max_clients=10, buffer=8, linger_s=0.3)
    projector = Projector(redis, store, StateLoader(store, 10, 0))
    game = await StoreGame(store, "nautilus").create()
    await projector.project(game.game_id, "nautilus")
    others = await _subscribers(redis)  # any other process's hub on this server
    await hub.start()
    try:
        await asyncio.sleep(0.2)
        assert await _subscribers(redis) == others, "nobody watches: no subscription"
        client = hub.open(game.game_id, None)
        first = await hub.current(game.game_id, None)
        assert first is not None
        await game.play(1)  # written and published while the subscription may not hold yet
        await projector.project(game.game_id, "nautilus")
        latest = await client.next(5)
        if latest == first:  # the version read for it was offered to it too
            latest = await client.next(5)
        assert latest is not None and latest[0] == game.version > first[0]
        assert await _subscribers(redis) == others + 1
        await game.play(1)
        await projector.project(game.game_id, "nautilus")
        assert (await client.next(5))[0] == game.version  # type: ignore[index]
        hub.release(client)
        await _until(lambda: _count_is(redis, others), "unsubscribed once nobody watched for the linger")
        again = hub.open(game.game_id, None)
        await _until(lambda: _count_is(redis, others + 1), "subscribed again for a new client")
        hub.release(again)
    finally:
        await hub.stop()
        await updates.aclose()


async def _count_is(redis: Any, expected: int) -> bool:
    return await _subscribers(redis) == expected


async def test_a_view_read_for_one_client_reaches_every_client_of_that_view(redis, redis_url) -> None:
    """A version the hub reads for a newcomer is offered to the view's other clients as well: remembered
    without being offered, the refresh of its publish would skip them, and they would miss it."""
    store = EventStore(redis, PARTITIONS)
    hub = LiveHub(redis, ReadModels(redis, store), PARTITIONS, max_clients=10, buffer=8)  # not started: no publish
    projector = Projector(redis, store, StateLoader(store, 10, 0))
    game = await StoreGame(store, "nautilus").create()
    await game.play(1)
    await projector.project(game.game_id, "nautilus")
    watching = hub.open(game.game_id, None)
    newcomer = hub.open(game.game_id, None)
    read = await hub.current(game.game_id, None)
    assert read is not None and read[0] == game.version
    offered = await watching.next(2)
    assert offered == read
    assert (await newcomer.next(2)) == read  # the newcomer's own stream skips a version it already sent
    hub.release(watching)
    hub.release(newcomer)
