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
async def redis(redis_url: str) -> AsyncIterator["Redis"]:  # noqa: F821
    from benthic.bus import redis_client

    client = redis_client(redis_url)
    await client.flushdb()
    yield client
    await client.aclose()
