"""The live hub's deltas against a real Redis and real projected games: one patch per (game, viewer, version),
the same bytes for every client on its base, and the full view for a client on any other version."""

from __future__ import annotations

import asyncio
from typing import Any

import jsonpatch
import msgspec
import pytest

from benthic.runtime.redisconn import redis_client
from benthic.store import EventStore
from benthic.store.loader import StateLoader
from benthic.views.live import LiveHub
from benthic.views.reads import ReadModels
from services.projection.projector import Projector
from tests.games import BUILT_IN
from tests.platform_helpers import StoreGame

PARTITIONS = 16


async def _next_version(client: Any, version: int) -> tuple[int, bytes]:
    """The first version after ``version`` offered to ``client``."""
    while True:
        latest = await client.next(5)
        assert latest is not None
        if latest[0] > version:
            return latest  # type: ignore[no-any-return]


@pytest.mark.parametrize("game_type", BUILT_IN)
async def test_one_patch_per_version_is_shared_by_every_client_on_its_base(redis, redis_url, game_type) -> None:
    store = EventStore(redis, PARTITIONS)
    hub = LiveHub(redis_client(redis_url, 4), ReadModels(redis, store), PARTITIONS, max_clients=10, buffer=64)
    projector = Projector(redis, store, StateLoader(store, 10, 0))
    game = await StoreGame(store, game_type).create()
    await projector.project(game.game_id, game_type)
    await hub.start()
    try:
        clients = [hub.open(game.game_id, 0, stream=True) for _ in range(3)]
        first = await hub.current(game.game_id, 0)
        assert first is not None
        version, body = first
        assert hub.frame_for(game.game_id, 0, None, first) == (False, body)  # a new client: the full view
        for _ in range(5):
            await game.play(1)
            await projector.project(game.game_id, game_type)
            latest = [await _next_version(c, version) for c in clients]
            assert {v for v, _ in latest} == {game.version}
            step = hub._deltas[(game.game_id, 0)]
            assert (step.base, step.version, step.computed) == (version, game.version, False)
            frames = [hub.frame_for(game.game_id, 0, version, new) for new in latest]
            assert all(is_delta for is_delta, _ in frames)
            assert frames[0][1] is frames[1][1] is frames[2][1]  # computed once, the same bytes for all
            delta = msgspec.json.decode(frames[0][1])
            assert (delta["version"], delta["base"]) == (game.version, version)
            rebuilt = jsonpatch.apply_patch(msgspec.json.decode(body), delta["patch"])
            assert rebuilt == msgspec.json.decode(latest[0][1])
            assert len(frames[0][1]) < len(latest[0][1])
            # the version the client already has: an empty patch; any other: the full view
            assert msgspec.json.decode(hub.frame_for(game.game_id, 0, game.version, latest[0])[1]) == {
                "version": game.version, "base": game.version, "patch": []}
            assert hub.frame_for(game.game_id, 0, version - 1, latest[0]) == (False, latest[0][1])
            version, body = latest[0]
        for client in clients:
            hub.release(client)
        assert not hub._deltas and not hub._latest  # nobody watches: nothing kept
    finally:
        await hub.stop()


async def test_a_client_that_skipped_versions_takes_the_newest_and_the_full_view(redis, redis_url) -> None:
    store = EventStore(redis, PARTITIONS)
    hub = LiveHub(redis_client(redis_url, 4), ReadModels(redis, store), PARTITIONS, max_clients=10, buffer=64)
    projector = Projector(redis, store, StateLoader(store, 10, 0))
    game = await StoreGame(store, "aquatica").create()
    await projector.project(game.game_id, "aquatica")
    await hub.start()
    try:
        slow = hub.open(game.game_id, None, stream=True)
        first = await hub.current(game.game_id, None)
        assert first is not None
        for _ in range(3):  # three versions, each projected and delivered while the slow client reads none
            await game.play(1)
            await projector.project(game.game_id, "aquatica")
            for _ in range(200):
                if hub._latest[(game.game_id, None)][0] == game.version:
                    break
                await asyncio.sleep(0.01)
        queued = await slow.next(5)
        assert queued is not None
        newest = slow.newest(queued)
        assert newest is not None and newest[0] == game.version  # the ones between are skipped
        is_delta, frame = hub.frame_for(game.game_id, None, first[0], newest)
        assert not is_delta and frame == newest[1]  # the hub holds no step from its version: the full view
        hub.release(slow)
    finally:
        await hub.stop()
