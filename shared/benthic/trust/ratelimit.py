"""Abuse limits shared by every replica: per-player and per-IP rate limits on create, join, seat-token
requests and commands, counted in Redis by the `limits` library.

Strategies, both `limits`': create, join and seat tokens count in a sliding-window counter (two counters per
key and window: no burst at window edges, which matters for per-minute and per-hour limits); commands, the
hottest path by far, count in a fixed window (one ``INCRBY``, and an ``EXPIRE`` when the window opens).  Over a
window edge a fixed window lets through up to twice its limit within one window's length; for a limit that
stops a runaway client sending moves, that is a fair price for a quarter of the sliding counter's Redis work
(eight Redis calls per check, about a tenth of the server CPU of a move).  Storage: its asyncio Redis storage
on redis-py (the client the platform already uses), or its Redis Cluster storage.  A refused request gets
``429 rate_limited`` with ``Retry-After``.

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
from limits.aio.storage import RedisClusterStorage, RedisSentinelStorage, RedisStorage
from limits.aio.storage.redis.redispy import RedispyBridge
from limits.aio.strategies import FixedWindowRateLimiter, RateLimiter, SlidingWindowCounterRateLimiter

from benthic.errors import ApiError
from benthic.game.keys import RATE_LIMIT_PREFIX
from benthic.runtime.config import Settings
from benthic.runtime.redisconn import connect, connection_options, sentinel_addresses
from benthic.runtime.telemetry import RATE_LIMITED
from benthic.store.pipelining import ScriptBatcher

ACTIONS = ("create", "join", "token", "command")
SCOPES = ("player", "ip")
FIXED_WINDOW = frozenset({"command"})


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


def _storage(settings: Settings) -> RedisStorage:
    redis_url, cluster = settings.redis_url, settings.redis_cluster
    parts = urlsplit(redis_url)
    if parts.scheme not in ("redis", "rediss"):
        raise SystemExit(f"rate limits need a redis:// or rediss:// REDIS_URL, not {parts.scheme}://")
    options: dict[str, Any] = connection_options()
    if settings.redis_sentinels:  # the primary the Sentinels name, as every other client of the service
        credentials = parts.netloc.rpartition("@")[0]
        hosts = ",".join(f"{host}:{port}" for host, port in sentinel_addresses(settings.redis_sentinels))
        userinfo = credentials + "@" if credentials else ""
        return RedisSentinelStorage(
            f"async+redis+sentinel://{userinfo}{hosts}/{settings.redis_sentinel_master}",
            implementation="redispy", key_prefix=RATE_LIMIT_PREFIX, use_replicas=False, **options,
        )
    if cluster:
        return RedisClusterStorage(
            f"async+{parts.scheme}+cluster://{parts.netloc}", implementation="redispy", key_prefix=RATE_LIMIT_PREFIX,
            **options,
        )
    return RedisStorage(f"async+{redis_url}", implementation="redispy", key_prefix=RATE_LIMIT_PREFIX, **options)


class RateLimits:
    def __init__(self, settings: Settings) -> None:
        self.limits = configured_limits(settings)
        self._storage = _storage(settings) if any(self.limits.values()) else None
        self._sliding = SlidingWindowCounterRateLimiter(self._storage) if self._storage is not None else None
        self._fixed = FixedWindowRateLimiter(self._storage) if self._storage is not None else None
        self._pipelined = self._storage is not None and not settings.redis_cluster
        self._batchers: dict[bool, ScriptBatcher] = {}  # by fixed window; made on first use (lazy storage)
        self._settings = settings
        self._redis: Any = None  # the batcher's client (the platform's, with its hiredis packer)

    def _limiter(self, action: str) -> RateLimiter | None:
        return self._fixed if action in FIXED_WINDOW else self._sliding

    def _bridge(self) -> RedispyBridge:
        """The storage's redis-py bridge (``implementation="redispy"``), whose scripts the batchers run; the
        batchers run only with a limit configured, so with a storage."""
        assert self._storage is not None and isinstance(self._storage.bridge, RedispyBridge)
        return self._storage.bridge

    def _batcher(self, fixed: bool) -> ScriptBatcher:
        batcher = self._batchers.get(fixed)
        if batcher is None:
            if self._redis is None:
                self._redis = connect(self._settings, 16)
            bridge = self._bridge()
            script = bridge.lua_incr_expire if fixed else bridge.lua_acquire_sliding_window
            batcher = self._batchers[fixed] = ScriptBatcher(self._redis, script.script)
        return batcher

    async def _acquire_together(self, action: str, checks: list[tuple[str, str, RateLimitItem]]) -> list[bool]:
        """What the limiter's ``hit`` does for each check (the same script, keys and arguments as
        ``RedisStorage.incr`` for a fixed window, ``RedisStorage.acquire_sliding_window_entry`` for a sliding
        one), pipelined with the checks of the requests in flight at the same moment."""
        storage = self._storage
        assert storage is not None  # as _bridge
        bridge = self._bridge()
        fixed = action in FIXED_WINDOW
        calls = []
        for scope, identity, item in checks:
            key = item.key_for(action, scope, identity)
            if fixed:
                calls.append(([bridge.prefixed_key(key)], [item.get_expiry(), 1]))
            else:
                keys = [bridge.prefixed_key(storage._previous_window_key(key)),
                        bridge.prefixed_key(storage._current_window_key(key))]
                calls.append((keys, [item.amount, item.get_expiry(), 1]))
        replies = await self._batcher(fixed).many(calls)
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
        if fixed:  # FixedWindowRateLimiter.hit: the count after this hit is within the limit
            return [int(count) <= item.amount for count, (_, _, item) in zip(replies, checks, strict=True)]
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
        limiter = self._limiter(action)
        if not checks or limiter is None:
            return
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
