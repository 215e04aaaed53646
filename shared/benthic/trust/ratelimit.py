"""Abuse limits shared by every replica: per-player and per-IP rate limits on create, join, seat-token
requests and commands, counted in Redis by the `limits` library.

Strategy: `limits`' sliding-window counter (two counters per key and window, one Lua script per hit: cheap
enough for every command, and without the burst at window edges of a fixed window).  Storage: its asyncio
Redis storage on redis-py (the client the platform already uses), or its Redis Cluster storage.  A refused
request gets ``429 rate_limited`` with ``Retry-After``.

On one Redis server, the checks (a request's player and IP limits, and those of every request in flight at
the same moment) run the library's own script and keys in one pipeline (``ScriptBatcher``), instead of a
round trip per limit.  On a Cluster their keys live in different slots, and each check is the library's own
call.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any
from urllib.parse import urlsplit

from limits import RateLimitItem, parse_many
from limits.aio.storage import RedisClusterStorage, RedisStorage
from limits.aio.strategies import SlidingWindowCounterRateLimiter

from benthic.service.config import Settings
from benthic.service.http import ApiError
from benthic.service.pipelining import ScriptBatcher
from benthic.game.keys import RATE_LIMIT_PREFIX
from benthic.service.redisconn import connection_options, redis_client
from benthic.service.telemetry import RATE_LIMITED

ACTIONS = ("create", "join", "token", "command")
SCOPES = ("player", "ip")


def parse_limits(text: str, setting: str) -> list[RateLimitItem]:
    """``"30/second;600/minute"`` -> limit items; empty text: no limit."""
    if not text.strip():
        return []
    try:
        return parse_many(text)
    except ValueError as error:
        raise SystemExit(f"{setting}: {text!r} is not a rate limit such as '30/second' or '10/minute;100/hour' "
                         f"({error})") from None


def configured_limits(settings: Settings) -> dict[tuple[str, str], list[RateLimitItem]]:
    return {
        (action, scope): parse_limits(
            getattr(settings, f"limit_{action}_per_{scope}"), f"BENTHIC_LIMIT_{action.upper()}_PER_{scope.upper()}"
        )
        for action in ACTIONS
        for scope in SCOPES
    }


def _storage(redis_url: str, cluster: bool) -> Any:
    parts = urlsplit(redis_url)
    if parts.scheme not in ("redis", "rediss"):
        raise SystemExit(f"rate limits need a redis:// or rediss:// REDIS_URL, not {parts.scheme}://")
    options: dict[str, Any] = connection_options()
    if cluster:
        return RedisClusterStorage(
            f"async+{parts.scheme}+cluster://{parts.netloc}", implementation="redispy", key_prefix=RATE_LIMIT_PREFIX,
            **options,
        )
    return RedisStorage(f"async+{redis_url}", implementation="redispy", key_prefix=RATE_LIMIT_PREFIX, **options)


class RateLimits:
    def __init__(self, settings: Settings) -> None:
        self.limits = configured_limits(settings)
        self._storage = _storage(settings.redis_url, settings.redis_cluster) if any(self.limits.values()) else None
        self._limiter = SlidingWindowCounterRateLimiter(self._storage) if self._storage is not None else None
        self._pipelined = self._storage is not None and not settings.redis_cluster
        self._batcher: ScriptBatcher | None = None  # made on first use: the storage connects lazily
        self._redis_url = settings.redis_url
        self._redis: Any = None  # the batcher's client (the platform's, with its hiredis packer)

    async def _acquire_together(self, action: str, checks: list[tuple[str, str, RateLimitItem]]) -> list[bool]:
        """What ``SlidingWindowCounterRateLimiter.hit`` does for each check (the same script, keys and
        arguments: ``RedisStorage.acquire_sliding_window_entry``), pipelined with the checks of the requests
        in flight at the same moment."""
        storage = self._storage
        bridge = storage.bridge
        if self._batcher is None:
            self._redis = redis_client(self._redis_url, 16)
            self._batcher = ScriptBatcher(self._redis, bridge.lua_acquire_sliding_window.script)
        calls = []
        for scope, identity, item in checks:
            key = item.key_for(action, scope, identity)
            keys = [bridge.prefixed_key(storage._previous_window_key(key)),
                    bridge.prefixed_key(storage._current_window_key(key))]
            calls.append((keys, [item.amount, item.get_expiry(), 1]))
        replies = await self._batcher.many(calls)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        return [bool(acquired) for acquired in replies]

    async def hit(self, action: str, player: str | None, ip: str | None) -> None:
        """Count one ``action`` for ``player`` and for ``ip`` (None: not counted); raises 429 when either is over
        a limit."""
        checks = [
            (scope, identity, item)
            for scope, identity in (("player", player), ("ip", ip))
            if identity
            for item in self.limits[(action, scope)]
        ]
        if not checks or self._limiter is None:
            return
        limiter = self._limiter
        if self._pipelined:
            allowed = await self._acquire_together(action, checks)
        else:
            allowed = await asyncio.gather(*(limiter.hit(item, action, scope, ident) for scope, ident, item in checks))
        for ok, (scope, identity, item) in zip(allowed, checks, strict=True):
            if ok:
                continue
            stats = await limiter.get_window_stats(item, action, scope, identity)
            retry_after = max(1, math.ceil(stats.reset_time - time.time()))
            RATE_LIMITED.labels(action, scope).inc()
            raise ApiError(
                429,
                "rate_limited",
                f"too many {action} requests for this {scope} (limit {item}); retry in {retry_after}s",
                {"action": action, "scope": scope, "limit": str(item), "retry_after_s": retry_after},
                headers={"Retry-After": str(retry_after)},
            )

    async def aclose(self) -> None:
        if self._redis is not None:
            await self._redis.aclose()
        if self._storage is not None:
            storage = getattr(self._storage.bridge, "storage", None)
            if storage is not None:
                await storage.aclose()
