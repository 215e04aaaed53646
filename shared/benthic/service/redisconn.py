"""Connections to Redis: one server, or a Redis Cluster (``BENTHIC_REDIS_CLUSTER=1``).

Every multi-key operation of Benthic stays inside one hash slot (``{pK}`` for a game, ``{r:<type>}`` for the
ratings of a game type), so the same code runs on both; only the client changes.

A process's requests share a bounded pool: a request waits for a free connection (``redis_pool_timeout_s``)
rather than failing because others are in flight; what cannot get one in time, or finds Redis unreachable,
is answered ``503 store_unavailable`` (see ``benthic.service.http``).
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from redis.asyncio import BlockingConnectionPool, Connection, Redis, RedisCluster
from redis.asyncio.retry import Retry
from redis.backoff import ConstantBackoff
from redis.connection import HiredisRespSerializer
from redis.exceptions import ClusterDownError, TryAgainError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.utils import HIREDIS_AVAILABLE

_TIMEOUTS: dict[str, Any] = {"socket_timeout": 10, "socket_connect_timeout": 3}

# What "the store cannot answer now" looks like from redis-py: unreachable, timed out, no free connection,
# a cluster without a master for a slot.  Anything else is a bug, not an outage.
UNAVAILABLE: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterDownError,
    TryAgainError,
    ConnectionRefusedError,
)


def connection_options() -> dict[str, Any]:
    """Timeouts and one quick retry: a call on a connection Redis closed (a restart, a failover) reconnects once
    instead of failing; calls never hang forever on a broken connection."""
    return {**_TIMEOUTS, "retry": Retry(ConstantBackoff(0.05), 1)}


if HIREDIS_AVAILABLE:
    import hiredis

    _PACKER: Any = HiredisRespSerializer()

    class HiredisPackedConnection(Connection):
        """redis-py's asyncio connection packs every command in Python (a tenth of a busy service's CPU); its
        synchronous one uses hiredis's C packer when hiredis is installed.  This is the asyncio connection
        with that packer: the same bytes on the wire.  (``rediss://`` and unix-socket URLs keep their own
        connection classes.)"""

        def pack_command(self, *args: Any) -> list[bytes]:
            first = args[0]
            if isinstance(first, str) and " " not in first:  # most commands: straight to hiredis
                try:
                    return [hiredis.pack_command(args)]
                except TypeError:
                    pass  # a memoryview or bytearray argument: redis-py's serializer converts it
            return _PACKER.pack(*args)  # type: ignore[no-any-return]

    _CONNECTION: dict[str, Any] = {"connection_class": HiredisPackedConnection}
else:  # pragma: no cover - hiredis is a dependency
    _CONNECTION = {}


def redis_client(url: str, max_connections: int = 64, cluster: bool = False, pool_timeout: float = 2.0) -> Any:
    """A client whose calls cannot hang forever on a broken connection, with a pool of ``max_connections``
    that callers wait on (up to ``pool_timeout`` seconds) when every connection is busy."""
    options = connection_options()
    if cluster:
        return RedisCluster.from_url(url, max_connections=max_connections, **options)
    pool = BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=pool_timeout, health_check_interval=30, **_CONNECTION,
        **options,
    )
    return Redis(connection_pool=pool)


async def memory(redis: Any) -> tuple[int, int]:
    """(used bytes, limit bytes) summed over the server or every cluster node (0 limit: none)."""
    info = await redis.info("memory")
    nodes = info.values() if info and all(isinstance(v, dict) for v in info.values()) else [info]
    used = sum(int(n.get("used_memory", 0)) for n in nodes)
    limits = [int(n.get("maxmemory", 0)) for n in nodes]
    return used, 0 if 0 in limits else sum(limits)


async def sample_memory(redis: Any, interval: float) -> None:
    """Keep ``benthic_redis_memory_used_bytes`` / ``_max_bytes`` current (every service runs one; cancel it)."""
    from benthic.service.telemetry import REDIS_MEMORY_MAX, REDIS_MEMORY_USED

    while True:
        with contextlib.suppress(Exception):
            used, limit = await memory(redis)
            REDIS_MEMORY_USED.set(used)
            REDIS_MEMORY_MAX.set(limit)
        await asyncio.sleep(interval)


class RedisProbe:
    """Pings Redis on its own connection every ``interval`` seconds, so readiness is known at once whatever the
    load on the request pool, and turns false within one interval of an outage."""

    def __init__(self, url: str, cluster: bool, interval: float = 0.5) -> None:
        self.redis = redis_client(url, 2, cluster, pool_timeout=interval)
        self.interval = interval
        self.ok = False
        self.error = "not probed yet"
        self._task: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self._probe()
        self._task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait([self._task], timeout=2)
        with contextlib.suppress(Exception):
            await self.redis.aclose()

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval)
            await self._probe()

    async def _probe(self) -> None:
        try:
            await asyncio.wait_for(self.redis.ping(), self.interval * 2)
        except Exception as error:  # noqa: BLE001 - any failure means not ready
            self.ok, self.error = False, repr(error)
        else:
            self.ok, self.error = True, ""
