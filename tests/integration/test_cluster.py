"""Cluster mode (BENTHIC_REDIS_CLUSTER=1) against a real three-master Redis Cluster: every multi-key step stays
in one hash slot, so the store, the consumers, the read models and the ratings work unchanged."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

import pytest

from benthic.feed.consumer import FeedConsumer
from benthic.feed.keys import feed_key, lifecycle_key
from benthic.game.keys import GameKeys, RatingKeys
from benthic.rules import game_types
from benthic.store import EventStore, NewEvent, SeatInfo, VersionConflict
from benthic.store.loader import StateLoader
from benthic.views.reads import ReadModels
from services.projection.projector import Projector
from services.scoring.app import subscription as scoring_subscription
from services.scoring.scorer import Scorer
from tests.integration.store_contract import EventStoreContract
from tests.platform_helpers import StoreGame, settings_for_tests

GAMES = game_types()


class TestEventStoreOnCluster(EventStoreContract):
    @pytest.fixture
    def client(self, redis_cluster: Any) -> Any:
        return redis_cluster


async def test_cluster_appends_are_gapless_under_racing_writers(redis_cluster) -> None:
    store = EventStore(redis_cluster, partitions=16)
    game_ids = [f"c{uuid.uuid4().hex[:8]}" for _ in range(6)]  # spread over the cluster's nodes
    for game_id in game_ids:
        await new_game_with_id(store, game_id)

    async def writer(game_id: str, w: int) -> None:
        for _ in range(100):
            current = await store.version(game_id)
            try:
                await store.append(game_id, "test", current, [NewEvent("e", b"{}")], command_id=f"{w}", now_ms=2)
                return
            except VersionConflict:
                continue

    await asyncio.gather(*(writer(g, w) for g in game_ids for w in range(10)))
    nodes = {redis_cluster.get_node_from_key(GameKeys(g, 16).events).name for g in game_ids}
    assert len(nodes) > 1, "the test games should live on more than one node"
    for game_id in game_ids:
        assert [e.version for e in await store.load(game_id)] == list(range(1, 12))


async def new_game_with_id(store: EventStore, game_id: str) -> None:
    await store.create(game_id, "test", [NewEvent("e", b"{}")], seats=[SeatInfo("a"), SeatInfo("b")],
                       options={}, engine_version="t", seeded=True, now_ms=1)


async def test_cluster_consumers_project_and_score_once(redis_cluster, redis_cluster_url) -> None:
    settings = settings_for_tests(redis_cluster_url, redis_cluster=True)
    store = EventStore(redis_cluster, settings.partitions)
    projector = Projector(redis_cluster, store, StateLoader(store, 100, 0))
    scorer = Scorer(redis_cluster, store, StateLoader(store, 100, 0))
    consumers = [FeedConsumer(settings, "projection", projector.handle), scoring_subscription(settings, scorer)]
    for consumer in consumers:
        await consumer.start()
    try:
        games = [await StoreGame(store, g, seed=i).create() for i, g in enumerate(GAMES * 2)]
        for game in games:
            await game.play()
        deadline = time.monotonic() + 60
        reads = ReadModels(redis_cluster, store)
        for game in games:
            while True:
                summary = await reads.field(game.game_id, "summary")
                if summary and summary[1] and b'"scored":true' in summary[1] and summary[0] == game.version + 1:
                    break
                assert time.monotonic() < deadline, f"{game.game_id} not projected and scored"
                await asyncio.sleep(0.1)
        for partition in range(settings.partitions):  # a lost group comes back in cluster mode too
            await redis_cluster.xgroup_destroy(feed_key(partition), "projection")
            await redis_cluster.xgroup_destroy(lifecycle_key(partition), "scoring")
        extra = await StoreGame(store, GAMES[0], seed=99).create()
        await extra.play()
        while (await reads.version(extra.game_id)) != extra.version + 1:  # projected, game_scored included
            assert time.monotonic() < deadline + 30, "projection or scoring did not recover in cluster mode"
            await asyncio.sleep(0.1)
        games.append(extra)
    finally:
        for consumer in consumers:
            await consumer.stop()
    for game in games:
        assert [e.type for e in await store.load(game.game_id)].count("game_scored") == 1
        record = await redis_cluster.hgetall(RatingKeys(game.engine.game_type).player(f"player-0-{game.game_id}"))
        assert int(record[b"games"]) == 1
    lobby = await ReadModels(redis_cluster, store).lobby(list(GAMES), ["finished"], 100)
    assert {g.game_id for g in games} <= {g["game_id"] for g in lobby}


async def test_the_probe_and_the_memory_sampler_read_every_primary(redis_cluster_url: str, redis_cluster: Any) -> None:
    """A cluster client sends INFO to one node unless told otherwise: the probe must read every primary's
    replication (it failed every other probe on a single node's flat answer) and memory sums the primaries."""
    from benthic.runtime.redisconn import RedisProbe, memory

    probe = RedisProbe(settings_for_tests(redis_cluster_url, redis_cluster=True), interval=0.05,
                       replication_every=1)
    try:
        await probe.start()
        for _ in range(6):
            await asyncio.sleep(0.06)
            assert probe.ok, probe.error
        assert probe.replicas == 0  # the test cluster has no replicas
    finally:
        await probe.stop()
    used, _limit = await memory(redis_cluster)
    per_node = [int(i["used_memory"]) for i in (await redis_cluster.info(
        "memory", target_nodes=redis_cluster.PRIMARIES)).values()]
    assert len(per_node) == 3 and used == pytest.approx(sum(per_node), rel=0.05)
