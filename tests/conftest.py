"""Test fixtures.  Store and service tests use a real Redis and a real PostgreSQL: REDIS_URL /
BENTHIC_ARCHIVE_URL if set (the tests flush that Redis database and empty the archive tables: point them at
scratch ones; ignored when pytest-xdist runs several workers), else servers from tests/servers.py: Docker
containers when a daemon is reachable, private processes on free ports otherwise
(BENTHIC_TEST_SERVERS=containers|processes forces one), one set per worker."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import settings as hypothesis_settings

from tests.servers import (
    Choice,
    ServerChoiceError,
    TestServers,
    choose_from_environment,
    describe,
    named_server,
    servers_for,
)

# The end-to-end tests were written against a projection that starts each feed batch at once; its rest after a
# batch (BENTHIC_PROJECTION_PAUSE_MS, 20 ms by default: a throughput setting the benches measure) widens the
# window in which a read right after a write sees the state before it.  Off for the services the tests start.
os.environ.setdefault("BENTHIC_PROJECTION_PAUSE_MS", "0")

hypothesis_settings.register_profile("default", deadline=None, max_examples=10)
hypothesis_settings.register_profile("long", deadline=None, max_examples=500)
hypothesis_settings.load_profile("long" if os.environ.get("BENTHIC_LONG_TESTS") == "1" else "default")


_choice: Choice | None = None


def pytest_configure(config: pytest.Config) -> None:
    global _choice
    if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or "1") > 1:
        # A worker of several (tests/servers.py named_server): the services and CLIs the tests start must not
        # inherit a server the worker does not use.
        for variable in ("REDIS_URL", "BENTHIC_ARCHIVE_URL", "REDIS_CLUSTER_URL"):
            os.environ.pop(variable, None)
    try:
        _choice = choose_from_environment()
    except ServerChoiceError as error:
        raise pytest.UsageError(str(error)) from None


def pytest_report_header(config: pytest.Config) -> list[str]:
    return describe(_choice, workers=_workers(config)) if _choice else []


def _workers(config: pytest.Config) -> int:
    """How many pytest-xdist workers run the tests (1 without xdist; ``-n auto`` counts as several)."""
    wanted = getattr(config.option, "numprocesses", None)
    if wanted in (None, 0, "0"):
        return 1
    return int(wanted) if str(wanted).isdigit() else 2


@pytest.fixture(scope="session")
def test_servers() -> TestServers:
    assert _choice is not None
    return servers_for(_choice)


@pytest.fixture(scope="session")
def redis_url(test_servers: TestServers) -> Iterator[str]:
    url = named_server("REDIS_URL")
    if url:
        yield url
        return
    if test_servers.backend == "processes" and shutil.which("redis-server") is None:
        pytest.fail("no REDIS_URL and no redis-server on PATH: the store and service tests need a real Redis")
    with test_servers.redis() as url:
        yield url


@pytest.fixture(scope="session")
def archive_url(test_servers: TestServers) -> Iterator[str]:
    """A PostgreSQL DSN for the archive, its schema migrated."""
    url = named_server("BENTHIC_ARCHIVE_URL")
    if url:
        _migrate(url)
        yield url
        return
    with test_servers.postgres() as url:
        _migrate(url)
        yield url


def _migrate(dsn: str) -> None:
    from benthic.archive.schema import migrate

    migrate(dsn)


@pytest.fixture
async def archive(archive_url: str) -> AsyncIterator[Archive]:  # noqa: F821
    """The archive, emptied."""
    from benthic.archive import Archive

    async with Archive(archive_url, pool_size=4) as opened:
        async with opened.pool.connection() as conn:
            await conn.execute("TRUNCATE archived_games, archived_players")
        yield opened


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:  # noqa: F821
    from benthic.runtime.redisconn import redis_client

    client = redis_client(redis_url)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture(scope="session")
def redis_cluster_url() -> Iterator[str]:
    """A private three-master Redis Cluster (REDIS_CLUSTER_URL if set)."""
    url = named_server("REDIS_CLUSTER_URL")
    if url:
        yield url
        return
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        pytest.fail("the cluster tests need redis-server and redis-cli on PATH (or REDIS_CLUSTER_URL)")
    from benthic.local.devredis import PrivateRedisCluster

    with PrivateRedisCluster() as cluster:
        yield cluster.url


@pytest.fixture
async def redis_cluster(redis_cluster_url: str) -> AsyncIterator[RedisCluster]:  # noqa: F821
    from benthic.runtime.redisconn import redis_client

    client = redis_client(redis_cluster_url, cluster=True)
    await client.flushdb()
    yield client
    await client.aclose()
