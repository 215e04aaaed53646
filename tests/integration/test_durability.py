"""Acknowledged after replication (BENTHIC_REDIS_ACK_REPLICAS), against real servers: a primary, a replica whose
replication link runs through a proxy the test can cut, three Sentinels; the store reaches the primary through
Sentinel, as the services do (``benthic.runtime.redisconn.connect``)."""

from __future__ import annotations

import asyncio
import random
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import redis as sync_redis
from redis.exceptions import ResponseError

from benthic.game.keys import GameKeys
from benthic.local.devha import PrivateSentinelSet
from benthic.rules import GameConfig, get_engine
from benthic.rules.bots import RandomBot
from benthic.runtime.redisconn import connect, is_unavailable, on_primary_change
from benthic.service.bootstrap import ack_of
from benthic.service.http import as_api_error
from benthic.store import EventStore, NewEvent, SeatInfo
from benthic.store.durability import DurabilityUnconfirmed
from benthic.store.loader import StateLoader
from tests.platform_helpers import settings_for_tests

ACK_TIMEOUT_MS = 300


@pytest.fixture(scope="module")
def sentinel_set() -> Iterator[PrivateSentinelSet]:
    with PrivateSentinelSet(replicas=1, proxied=True, min_replicas_max_lag=2) as servers:
        yield servers


def _settings(servers: PrivateSentinelSet, **overrides: Any) -> Any:
    return settings_for_tests("redis://ignored:1/0", redis_sentinels=servers.sentinels_setting,
                              redis_sentinel_master=servers.master_name, redis_ack_replicas=1,
                              redis_ack_timeout_ms=ACK_TIMEOUT_MS, **overrides)


class Game:
    """A nautilus game played through the store with command ids the test chooses."""

    def __init__(self, store: EventStore) -> None:
        self.store = store
        self.engine = get_engine("nautilus")
        self.game_id = f"d_{uuid.uuid4().hex[:10]}"
        self.rng = random.Random(3)
        self.state: Any = None
        self.version = 0

    def _events(self, events: list[Any]) -> list[NewEvent]:
        return [NewEvent(self.engine.event_name(e), self.engine.encode_event(e),
                         engine_version=self.engine.engine_version) for e in events]

    async def create(self) -> None:
        events = self.engine.start(GameConfig(seats=2, seed=3))
        commit = await self.store.create(
            self.game_id, "nautilus", self._events(events), seats=[SeatInfo("p0", "P0"), SeatInfo("p1", "P1")],
            options={}, engine_version=self.engine.version, seeded=True, now_ms=1)
        self.state, self.version = self.engine.replay(events), commit.last_version

    async def move(self, command_id: str) -> Any:
        prompt = self.engine.prompt(self.state)
        seat = prompt.seats[0]
        events = self.engine.decide(self.state, seat, RandomBot().choose(self.engine, self.state, seat, self.rng))
        try:
            commit = await self.store.append(self.game_id, "nautilus", self.version, self._events(events),
                                             command_id=command_id, seat=seat, now_ms=2)
        except DurabilityUnconfirmed:  # made on the primary, not confirmed: the game moved on there
            self.state, self.version = self.engine.fold(self.state, events), self.version + len(events)
            raise
        if not commit.duplicate:
            self.state, self.version = self.engine.fold(self.state, events), commit.last_version
        return commit


def _replica_version(servers: PrivateSentinelSet, game_id: str) -> int:
    replica = servers.replicas_of_primary()[0]
    value = sync_redis.Redis(port=replica.port).hget(GameKeys(game_id, 16).meta, "version")
    return int(value or 0)


async def test_an_append_is_acknowledged_once_on_the_replica_and_refused_when_it_cannot_be(
    sentinel_set: PrivateSentinelSet,
) -> None:
    settings = _settings(sentinel_set)
    redis = connect(settings)
    store = EventStore(redis, 16, ack=ack_of(settings))
    try:
        game = Game(store)
        await game.create()
        for i in range(3):
            await game.move(f"ok-{i}")
            assert _replica_version(sentinel_set, game.game_id) == game.version  # no wait: WAIT already did

        proxy = sentinel_set.proxy_of(sentinel_set.replicas_of_primary()[0])
        proxy.cut()
        try:
            started = time.monotonic()
            with pytest.raises(DurabilityUnconfirmed) as unconfirmed:
                await game.move("during-the-cut")
            assert time.monotonic() - started < ACK_TIMEOUT_MS / 1000 + 1.0
            answer = as_api_error(unconfirmed.value, "test")
            assert (answer.status, answer.code, answer.headers) == (503, "durability_unconfirmed", {"Retry-After": "1"})
            assert "same command_id is safe" in answer.message
            assert _replica_version(sentinel_set, game.game_id) < game.version + 1  # the replica never got it

            # Once the replica lags more than min-replicas-max-lag, the primary itself refuses writes (split brain
            # bounded): NOREPLICAS, answered 503 store_unavailable.
            primary = sync_redis.Redis(port=sentinel_set.primary().port)
            deadline = time.monotonic() + 10
            while primary.info("replication").get("min_slaves_good_slaves") != 0:
                assert time.monotonic() < deadline, "the primary kept counting the cut-off replica as good"
                await asyncio.sleep(0.2)
            with pytest.raises(ResponseError) as refused:
                await game.move("isolated")
            assert str(refused.value).startswith("NOREPLICAS") and is_unavailable(refused.value)
            assert as_api_error(refused.value, "test").code == "store_unavailable"
        finally:
            proxy.heal()
        sentinel_set.wait_replicas_online(1, sentinels_too=False)

        # The unconfirmed command sent again: the duplicate's answer is confirmed too (its first commit, made
        # during the cut, is on the replica once the answer comes).
        again = await _resend(store, game, "during-the-cut")
        assert again.duplicate
        assert _replica_version(sentinel_set, game.game_id) >= again.last_version
    finally:
        await redis.aclose()


async def _resend(store: EventStore, game: Game, command_id: str) -> Any:
    """The store answers a repeated command id with its first commit whatever the events sent with it."""
    return await store.append(game.game_id, "nautilus", game.version, [NewEvent("x", b"{}")],
                              command_id=command_id, now_ms=3)


async def test_a_duplicate_answer_waits_for_the_first_commit_to_be_replicated(sentinel_set: PrivateSentinelSet) -> None:
    """The first commit is made on a connection whose WAIT times out; the repeat comes on another connection
    that wrote nothing before: its WAIT must still cover the first commit (append.lua writes on that path)."""
    settings = _settings(sentinel_set)
    quick = EventStore(connect(settings), 16)  # no ack: the first commit is made and not waited for
    acked = EventStore(connect(settings), 16, ack=ack_of(settings))
    try:
        game = Game(quick)
        await game.create()
        proxy = sentinel_set.proxy_of(sentinel_set.replicas_of_primary()[0])
        proxy.cut()
        try:
            first = await game.move("first")
            game.store = acked
            with pytest.raises(DurabilityUnconfirmed):
                await _resend(acked, game, "first")  # a duplicate, but not on the replica: not acknowledged
            with pytest.raises(DurabilityUnconfirmed):  # nor is it when the service only looks the command id up
                await acked.committed(game.game_id, "first")
            assert await acked.committed(game.game_id, "never-sent") is None  # nothing to confirm
        finally:
            proxy.heal()
        sentinel_set.wait_replicas_online(1, sentinels_too=False)
        again = await _resend(acked, game, "first")
        assert again.duplicate and again.last_version == first.last_version
        assert await acked.committed(game.game_id, "first") == again
        assert _replica_version(sentinel_set, game.game_id) >= first.last_version
    finally:
        await quick.redis.aclose()
        await acked.redis.aclose()


async def test_after_a_failover_clients_reach_the_new_primary_and_drop_what_they_read(
    sentinel_set: PrivateSentinelSet,
) -> None:
    """Last in this module: it fails the module's primary over.  A client made by ``connect`` follows the
    Sentinels to the promoted replica, and the store's epoch moves before anything is read from it, so the
    state caches built on the old primary (which may hold writes the new one never got) are dropped."""
    settings = _settings(sentinel_set)
    redis = connect(settings)
    store = EventStore(redis, 16, ack=ack_of(settings))
    forget = on_primary_change(store.primary_changed)
    loader = StateLoader(store, 10, 0)
    try:
        game = Game(store)
        await game.create()
        await loader.load(game.game_id, game.engine)
        assert loader.cached(game.game_id) is not None
        old = await asyncio.to_thread(sentinel_set.kill_primary)
        new = await asyncio.to_thread(sentinel_set.wait_for_failover, old)
        deadline = time.monotonic() + 20
        while True:
            try:
                info = await redis.info("server")
                break
            except Exception as error:  # noqa: BLE001 - the old primary is gone: refused until the client follows
                assert is_unavailable(error), repr(error)
                assert time.monotonic() < deadline, "the client did not follow the failover"
                await asyncio.sleep(0.1)
        assert int(info["tcp_port"]) == new.port
        assert store.epoch >= 1 and loader.cached(game.game_id) is None
    finally:
        forget()
        await redis.aclose()


async def test_fused_calls_follow_a_failover_of_a_primary_that_is_still_running() -> None:
    """SENTINEL FAILOVER demotes a live primary: the connections to it answer READONLY.  A fused call gets that
    error inside the wrapper script's reply, where redis-py's Sentinel connection never sees it; the batcher
    must drop its connections so the next ones ask the Sentinels (they stayed on the replica for good)."""
    from benthic.store.pipelining import ScriptBatcher

    with PrivateSentinelSet(replicas=1) as servers:
        settings = settings_for_tests("redis://ignored:1/0", redis_sentinels=servers.sentinels_setting,
                                      redis_sentinel_master=servers.master_name)
        redis = connect(settings)
        count = ScriptBatcher(redis, "return redis.call('INCR', KEYS[1])")
        try:
            old = servers.primary()
            assert all(r >= 1 for r in await count.many([(["k"], [])] * 8))  # connections to the old primary
            sync_redis.Redis(port=servers.sentinels[0].port).execute_command("SENTINEL", "FAILOVER", "benthic")
            new = await asyncio.to_thread(servers.wait_for_failover, old)
            # What Sentinel does to the old primary once it sees it again; the client's connections are still on it.
            sync_redis.Redis(port=old.port).replicaof("127.0.0.1", new.port)
            deadline = time.monotonic() + 20
            while True:
                replies = await count.many([(["k"], [])] * 8)  # concurrent: fused into one script call
                if not any(isinstance(r, Exception) for r in replies):
                    break
                assert all(is_unavailable(r) for r in replies if isinstance(r, Exception)), replies
                assert time.monotonic() < deadline, f"still refused after the failover: {replies[0]!r}"
                await asyncio.sleep(0.2)
            assert int((await redis.info("server"))["tcp_port"]) == new.port
        finally:
            await redis.aclose()
