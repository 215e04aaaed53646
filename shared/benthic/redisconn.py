"""Connections to Redis: one server, or a Redis Cluster (``BENTHIC_REDIS_CLUSTER=1``).

Every multi-key operation of Benthic stays inside one hash slot (``{pK}`` for a game, ``{r:<type>}`` for the
ratings of a game type), so the same code runs on both; only the client and the FastStream broker change.
"""

from __future__ import annotations

from typing import Any

from faststream.redis import RedisBroker, RedisClusterBroker
from redis.asyncio import Redis, RedisCluster

_TIMEOUTS: dict[str, Any] = {"socket_timeout": 30, "socket_connect_timeout": 5}


def redis_client(url: str, max_connections: int = 64, cluster: bool = False) -> Any:
    """A client whose calls cannot hang forever on a broken connection."""
    if cluster:
        return RedisCluster.from_url(url, max_connections=max_connections, **_TIMEOUTS)
    return Redis.from_url(url, max_connections=max_connections, health_check_interval=30, **_TIMEOUTS)


def broker(url: str, cluster: bool, **options: Any) -> RedisBroker:
    return RedisClusterBroker(url, **options) if cluster else RedisBroker(url, **options)


async def memory(redis: Any) -> tuple[int, int]:
    """(used bytes, limit bytes) summed over the server or every cluster node (0 limit: none)."""
    info = await redis.info("memory")
    nodes = info.values() if info and all(isinstance(v, dict) for v in info.values()) else [info]
    used = sum(int(n.get("used_memory", 0)) for n in nodes)
    limits = [int(n.get("maxmemory", 0)) for n in nodes]
    return used, 0 if 0 in limits else sum(limits)
