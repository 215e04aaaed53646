"""Connections to Redis: one server, a primary found through Sentinel (``BENTHIC_REDIS_SENTINELS``), or a Redis
Cluster (``BENTHIC_REDIS_CLUSTER=1``).  Every service gets its clients from :func:`connect`.

Every multi-key operation of Benthic stays inside one hash slot (``{pK}`` for a game, ``{r:<type>}`` for the
ratings of a game type), so the same code runs on all three; only the client changes.  Under Sentinel a
connection asks the Sentinels for the primary whenever it (re)connects, and a connection that finds its server
demoted (``READONLY``) or gone drops itself: after a failover every client reaches the new primary by itself.

A process's requests share a bounded pool: a request waits for a free connection (``redis_pool_timeout_s``)
rather than failing because others are in flight; what cannot get one in time, or finds Redis unreachable,
is answered ``503 store_unavailable`` (see ``benthic.service.http``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit

from redis.asyncio import BlockingConnectionPool, Connection, Redis, RedisCluster
from redis.asyncio.cluster import NodesManager
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import MasterNotFoundError, Sentinel, SentinelConnectionPool, SentinelManagedConnection
from redis.backoff import ConstantBackoff, NoBackoff
from redis.cluster import PRIMARY
from redis.connection import HiredisRespSerializer
from redis.exceptions import (
    BusyLoadingError,
    ClusterDownError,
    MasterDownError,
    ReadOnlyError,
    ResponseError,
    TryAgainError,
)
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError
from redis.utils import HIREDIS_AVAILABLE

from benthic.runtime.config import Settings
from benthic.runtime.telemetry import (
    REDIS_MEMORY_MAX,
    REDIS_MEMORY_USED,
    REDIS_PRIMARY_CHANGES,
    REDIS_REPLICAS_CONNECTED,
    REDIS_REPLICAS_REQUIRED,
    REDIS_REPLICATION_LAG,
    log,
)

_TIMEOUTS: dict[str, Any] = {"socket_timeout": 10, "socket_connect_timeout": 3}

# What "the store cannot answer now" looks like from redis-py: unreachable, timed out, no free connection (a
# failover or a Sentinel that names no primary included), a cluster without a master for a slot, a server still
# loading its data, or one that is (now) a replica.  Anything else is a bug, not an outage.
UNAVAILABLE: tuple[type[BaseException], ...] = (
    RedisConnectionError,
    RedisTimeoutError,
    ClusterDownError,
    TryAgainError,
    ConnectionRefusedError,
    BusyLoadingError,
    ReadOnlyError,
    MasterDownError,
)
# Error replies redis-py has no class for: a primary refusing writes under min-replicas-to-write (NOREPLICAS).
_UNAVAILABLE_REPLIES = ("NOREPLICAS", "READONLY", "LOADING", "MASTERDOWN", "TRYAGAIN", "CLUSTERDOWN")


def is_unavailable(error: BaseException) -> bool:
    """Whether ``error`` means "the store cannot take this now, retry shortly" (answered 503, never 500)."""
    if isinstance(error, UNAVAILABLE):
        return True
    if isinstance(error, ResponseError):
        return str(error).startswith(_UNAVAILABLE_REPLIES)
    return _writer_closed_under_it(error)


def _writer_closed_under_it(error: BaseException) -> bool:
    """A connection reset while redis-py's asyncio connection writes to it can surface as the transport's own
    AttributeError or TypeError instead of a ConnectionError (redis-py issues 3546 and 4287; seen here when a
    cluster master was killed under load), or as uvloop's RuntimeError on a transport already closed ("the
    handler is closed", seen in the feed readers in the same case).  The connection is left disconnected and
    the next use reconnects, so it is an outage like any reset."""
    if isinstance(error, (AttributeError, TypeError)):
        if "NoneType" not in str(error):
            return False
    elif not isinstance(error, RuntimeError) or "handler is closed" not in str(error):
        return False
    frame = error.__traceback__
    while frame is not None:
        if frame.tb_frame.f_code.co_filename.endswith(("redis/asyncio/connection.py", "redis/asyncio/cluster.py")):
            return True
        frame = frame.tb_next
    return False


def connection_options() -> dict[str, Any]:
    """Timeouts and one quick retry: a call on a connection Redis closed (a restart, a failover) reconnects once
    instead of failing; calls never hang forever on a broken connection."""
    return {**_TIMEOUTS, "retry": Retry(ConstantBackoff(0.05), 1)}


if HIREDIS_AVAILABLE:
    import hiredis

    _PACKER: Any = HiredisRespSerializer()

    class HiredisPacking:
        """redis-py's asyncio connection packs every command in Python (a tenth of a busy service's CPU); its
        synchronous one uses hiredis's C packer when hiredis is installed.  Mixed into an asyncio connection
        class, this packs with that packer: the same bytes on the wire.  (``rediss://`` and unix-socket URLs
        keep their own connection classes.)"""

        def pack_command(self, *args: Any) -> list[bytes]:
            first = args[0]
            if isinstance(first, str) and " " not in first:  # most commands: straight to hiredis
                try:
                    return [hiredis.pack_command(args)]
                except TypeError:
                    pass  # a memoryview or bytearray argument: redis-py's serializer converts it
            return _PACKER.pack(*args)  # type: ignore[no-any-return]

    class HiredisPackedConnection(HiredisPacking, Connection):
        pass

    class HiredisSentinelConnection(HiredisPacking, SentinelManagedConnection):
        pass

    _CONNECTION: dict[str, Any] = {"connection_class": HiredisPackedConnection}
    _SENTINEL_CONNECTION: dict[str, Any] = {"connection_class": HiredisSentinelConnection}
else:  # pragma: no cover - hiredis is a dependency
    _CONNECTION = {}
    _SENTINEL_CONNECTION = {}


_primary_listeners: list[Callable[[], None]] = []


def on_primary_change(listener: Callable[[], None]) -> Callable[[], None]:
    """Call ``listener`` whenever this process finds the Redis primary changed (a Sentinel names another server,
    or the probe sees a new run id: a failover or a restart); returns the function that unregisters it."""
    _primary_listeners.append(listener)
    return lambda: _primary_listeners.remove(listener) if listener in _primary_listeners else None


def primary_changed(reason: str) -> None:
    """Tell the listeners (caches of what was read) that the primary changed.  Counted by the probe alone
    (``benthic_redis_primary_changes_total``): every pool of a process may notice the same failover."""
    log().warning("redis_primary_changed", reason=reason)
    for listener in list(_primary_listeners):
        listener()


class BlockingSentinelPool(SentinelConnectionPool, BlockingConnectionPool):
    """redis-py's Sentinel pool (connections to whichever server the Sentinels name primary) with the blocking
    pool's bound: a request waits ``timeout`` seconds for a free connection rather than failing at once.

    A connection asks the Sentinels for the primary as it connects; when they name another server than before,
    :func:`primary_changed` runs before anything is read from the new one."""

    async def get_master_address(self) -> Any:
        before = self.master_address
        address = await super().get_master_address()  # type: ignore[no-untyped-call]  # redis-py: unannotated
        if before is not None and address != before:
            primary_changed(f"the Sentinels name {address[0]}:{address[1]}, was {before[0]}:{before[1]}")
        return address


def sentinel_addresses(setting: str) -> list[tuple[str, int]]:
    """``BENTHIC_REDIS_SENTINELS`` ("host:port,host:port") as addresses; a malformed one stops the service."""
    addresses = []
    for item in filter(None, (part.strip() for part in setting.split(","))):
        host, _, port = item.rpartition(":")
        if not host or not port.isdigit():
            raise SystemExit(f"BENTHIC_REDIS_SENTINELS: {item!r} is not host:port")
        addresses.append((host.strip("[]"), int(port)))
    return addresses


def check_redis_settings(settings: Settings) -> None:
    """Stop at start-up, with the reason, on a Redis configuration that cannot work."""
    if settings.redis_sentinels and settings.redis_cluster:
        raise SystemExit("set BENTHIC_REDIS_SENTINELS or BENTHIC_REDIS_CLUSTER, not both")
    if settings.redis_sentinels and not sentinel_addresses(settings.redis_sentinels):
        raise SystemExit("BENTHIC_REDIS_SENTINELS names no Sentinel")
    if settings.redis_sentinels and not settings.redis_sentinel_master:
        raise SystemExit("BENTHIC_REDIS_SENTINEL_MASTER is empty: name the master the Sentinels monitor")
    if settings.redis_ack_replicas < 0 or settings.redis_ack_timeout_ms <= 0:
        raise SystemExit("BENTHIC_REDIS_ACK_REPLICAS must be 0 or more and BENTHIC_REDIS_ACK_TIMEOUT_MS positive")


def connect(settings: Settings, max_connections: int | None = None, pool_timeout: float | None = None) -> Any:
    """A client of the configured Redis (one server, the Sentinels' primary or a cluster) with a pool of
    ``max_connections`` (default ``BENTHIC_REDIS_POOL``) that callers wait on up to ``pool_timeout`` seconds."""
    size = max_connections or settings.redis_pool
    wait = settings.redis_pool_timeout_s if pool_timeout is None else pool_timeout
    if settings.redis_sentinels:
        return sentinel_client(settings, size, wait)
    return redis_client(settings.redis_url, size, settings.redis_cluster, wait)


def sentinel_options() -> dict[str, Any]:
    """How a client talks to the Sentinels themselves: one that does not answer in half a second is skipped, at
    once (redis-py's default retries back off for seconds), so discovery never hangs a request."""
    return {"socket_timeout": 0.5, "socket_connect_timeout": 0.5, "retry": Retry(NoBackoff(), 0)}


def sentinel_client(settings: Settings, max_connections: int, pool_timeout: float) -> Any:
    """A client of the primary the Sentinels name (database, user and password from ``REDIS_URL``)."""
    parts = urlsplit(settings.redis_url)
    database = parts.path.strip("/")
    server: dict[str, Any] = {"db": int(database) if database.isdigit() else 0}
    if parts.username:
        server["username"] = unquote(parts.username)
    if parts.password:
        server["password"] = unquote(parts.password)
    sentinels = Sentinel(  # type: ignore[no-untyped-call]  # redis-py's sentinel module is unannotated
        sentinel_addresses(settings.redis_sentinels), sentinel_kwargs=sentinel_options(),
    )
    pool = BlockingSentinelPool(  # type: ignore[no-untyped-call]  # SentinelConnectionPool.__init__: unannotated
        settings.redis_sentinel_master, sentinels, max_connections=max_connections, timeout=pool_timeout,
        health_check_interval=30, **_SENTINEL_CONNECTION, **connection_options(), **server,
    )
    return Redis(connection_pool=pool)


class _WatchedNodes(NodesManager):
    """redis-py's map of a cluster's nodes, telling :func:`primary_changed` when its set of primaries changes (a
    replica promoted after its master died): before the client reads anything from the new primary, as the
    Sentinel pool does."""

    __slots__ = ()

    async def initialize(self, *args: Any, **kwargs: Any) -> None:
        before = self._primaries()
        await super().initialize(*args, **kwargs)
        self._compare(before)

    async def move_slot(self, *args: Any, **kwargs: Any) -> None:
        before = self._primaries()
        await super().move_slot(*args, **kwargs)
        self._compare(before)

    def _primaries(self) -> frozenset[str]:
        return frozenset(node.name for node in self.nodes_cache.values() if node.server_type == PRIMARY)

    def _compare(self, before: frozenset[str]) -> None:
        after = self._primaries()
        if before and after != before:
            primary_changed(f"the cluster's primaries are now {sorted(after)}, were {sorted(before)}")


def redis_client(url: str, max_connections: int = 64, cluster: bool = False, pool_timeout: float = 2.0) -> Any:
    """A client whose calls cannot hang forever on a broken connection, with a pool of ``max_connections``
    that callers wait on (up to ``pool_timeout`` seconds) when every connection is busy."""
    options = connection_options()
    if cluster:
        client = RedisCluster.from_url(url, max_connections=max_connections, **options)
        client.nodes_manager.__class__ = _WatchedNodes  # the same slots: only the two methods above differ
        return client
    pool = BlockingConnectionPool.from_url(
        url, max_connections=max_connections, timeout=pool_timeout, health_check_interval=30, **_CONNECTION,
        **options,
    )
    return Redis(connection_pool=pool)


# A cluster client sends INFO to one node unless told otherwise; with this, to every primary ({node: info}).
_EVERY_PRIMARY: dict[str, Any] = {"target_nodes": RedisCluster.PRIMARIES}


async def memory(redis: Any) -> tuple[int, int]:
    """(used bytes, limit bytes) summed over the server or every cluster primary (0 limit: none)."""
    info = await redis.info("memory", **(_EVERY_PRIMARY if isinstance(redis, RedisCluster) else {}))
    nodes = info.values() if info and all(isinstance(v, dict) for v in info.values()) else [info]
    used = sum(int(n.get("used_memory", 0)) for n in nodes)
    limits = [int(n.get("maxmemory", 0)) for n in nodes]
    return used, 0 if 0 in limits else sum(limits)


async def sample_memory(redis: Any, interval: float) -> None:
    """Keep ``benthic_redis_memory_used_bytes`` / ``_max_bytes`` current (every service runs one; cancel it)."""
    while True:
        with contextlib.suppress(Exception):
            used, limit = await memory(redis)
            REDIS_MEMORY_USED.set(used)
            REDIS_MEMORY_MAX.set(limit)
        await asyncio.sleep(interval)


class RedisProbe:
    """Watches Redis on its own connection every ``interval`` seconds, so readiness is known at once whatever the
    load on the request pool, and turns false within one interval of an outage.

    Besides a ``PING``, every ``replication_every`` probes it reads ``INFO`` (replication, server): the role of
    the server it reaches (a replica, e.g. a demoted primary, is not ready), how many replicas are online
    (``benthic_redis_replicas_connected``; fewer than ``BENTHIC_REDIS_ACK_REPLICAS`` is not ready when
    ``needs_replicas``), how far they lag (``benthic_redis_replication_lag_bytes``) and the primary's run id: a
    new one (a failover, a restart) counts ``benthic_redis_primary_changes_total``.  With
    ``BENTHIC_REDIS_ACK_FSYNC`` a server older than 7.2 (no ``WAITAOF``) is not ready either.
    """

    def __init__(
        self, settings: Settings, interval: float = 0.5, needs_replicas: bool = True, replication_every: int = 2
    ) -> None:
        self.redis = connect(settings, 2, pool_timeout=interval)
        self.cluster = settings.redis_cluster
        self.sentinels, self.master = settings.redis_sentinels, settings.redis_sentinel_master
        self.required = settings.redis_ack_replicas if needs_replicas else 0
        self.fsync = settings.redis_ack_fsync
        self.interval = interval
        self.replication_every = replication_every
        self.ok = False
        self.error = "not probed yet"
        self.replicas: int | None = None  # online replicas of the primary (the fewest of any cluster master)
        self._replication_error = ""
        self._run_ids: frozenset[str] = frozenset()
        self._probes = 0
        self._task: asyncio.Task[None] | None = None
        REDIS_REPLICAS_REQUIRED.set(settings.redis_ack_replicas)

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
            if self._probes % self.replication_every == 0 or self._replication_error:
                self._replication_error = await asyncio.wait_for(self._replication(), self.interval * 2)
        except MasterNotFoundError:
            self.ok, self.error = False, (
                f"redis: the Sentinels ({self.sentinels}) name no primary for {self.master!r}: none of them answers, "
                "or they monitor no master of that name (BENTHIC_REDIS_SENTINELS, BENTHIC_REDIS_SENTINEL_MASTER)")
        except Exception as error:  # noqa: BLE001 - any failure means not ready
            self.ok, self.error = False, f"redis: {error!r}"
        else:
            self.ok, self.error = not self._replication_error, self._replication_error
        self._probes += 1

    async def _replication(self) -> str:
        """What keeps the server from taking acknowledged writes now ('' when nothing does); updates the
        replication metrics."""
        sections = ("replication", "server", *(("persistence",) if self.fsync else ()))
        info = await self.redis.info(*sections, **_EVERY_PRIMARY if self.cluster else {})
        nodes = list(info.values()) if self.cluster else [info]
        primaries = [n for n in nodes if n.get("role") == "master"]
        if not primaries:
            return "redis: the server is a replica (read-only), not a primary: waiting for a failover"
        online, lag = [], 0
        for node in primaries:
            offset = int(node.get("master_repl_offset", 0))
            replicas = [v for k, v in node.items() if k.startswith("slave") and isinstance(v, dict)]
            online.append(sum(1 for r in replicas if r.get("state") == "online"))
            lag = max([lag, *(offset - int(r.get("offset", offset)) for r in replicas)])
        self.replicas = min(online)
        REDIS_REPLICAS_CONNECTED.set(self.replicas)
        REDIS_REPLICATION_LAG.set(max(lag, 0))
        run_ids = frozenset(str(n.get("run_id", "")) for n in primaries)
        if self._run_ids and run_ids != self._run_ids:
            REDIS_PRIMARY_CHANGES.inc()
            primary_changed(f"the probe sees a new run id {sorted(run_ids - self._run_ids)}")
        self._run_ids = run_ids
        if self.fsync and any(_version(n.get("redis_version", "0")) < (7, 2) for n in primaries):
            return "redis: BENTHIC_REDIS_ACK_FSYNC needs WAITAOF (Redis >= 7.2); this server is older"
        if self.fsync and any(str(n.get("aof_enabled", "0")) != "1" for n in primaries):
            return "redis: BENTHIC_REDIS_ACK_FSYNC needs the primary's AOF on (appendonly yes)"
        if self.replicas < self.required:
            return (f"redis: {self.replicas} replica(s) online, BENTHIC_REDIS_ACK_REPLICAS requires {self.required}:"
                    " writes cannot be acknowledged")
        return ""


def _version(text: object) -> tuple[int, ...]:
    return tuple(int(part) for part in str(text).split(".")[:2] if part.isdigit())
