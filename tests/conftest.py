"""Test fixtures.  Store and service tests use a real Redis: REDIS_URL if set (its database is flushed by
the tests: point it at a scratch database), else a private redis-server started on a free port."""

from __future__ import annotations

import os
import shutil
from collections.abc import AsyncIterator, Iterator

import pytest
from hypothesis import settings as hypothesis_settings

hypothesis_settings.register_profile("default", deadline=None, max_examples=10)
hypothesis_settings.register_profile("long", deadline=None, max_examples=500)
hypothesis_settings.load_profile("long" if os.environ.get("BENTHIC_LONG_TESTS") == "1" else "default")


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    url = os.environ.get("REDIS_URL")
    if url:
        yield url
        return
    if shutil.which("redis-server") is None:
        pytest.fail("no REDIS_URL and no redis-server on PATH: the store and service tests need a real Redis")
    from benthic.devredis import PrivateRedis

    with PrivateRedis() as server:
        yield server.url


@pytest.fixture
async def redis(redis_url: str) -> AsyncIterator[Redis]:  # noqa: F821
    from benthic.redisconn import redis_client

    client = redis_client(redis_url)
    await client.flushdb()
    yield client
    await client.aclose()


@pytest.fixture(scope="session")
def redis_cluster_url() -> Iterator[str]:
    """A private three-master Redis Cluster (REDIS_CLUSTER_URL if set)."""
    url = os.environ.get("REDIS_CLUSTER_URL")
    if url:
        yield url
        return
    if shutil.which("redis-server") is None or shutil.which("redis-cli") is None:
        pytest.fail("the cluster tests need redis-server and redis-cli on PATH (or REDIS_CLUSTER_URL)")
    from benthic.devredis import PrivateRedisCluster

    with PrivateRedisCluster() as cluster:
        yield cluster.url


@pytest.fixture
async def redis_cluster(redis_cluster_url: str) -> AsyncIterator[RedisCluster]:  # noqa: F821
    from benthic.redisconn import redis_client

    client = redis_client(redis_cluster_url, cluster=True)
    await client.flushdb()
    yield client
    await client.aclose()
