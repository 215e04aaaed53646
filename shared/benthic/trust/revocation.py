"""The seat-token denylist: the operator revokes every token of a game or of a player issued up to now.

Revocations are entries of one Redis stream (:data:`benthic.game.keys.REVOCATIONS`).  Every replica of the command
and projection services keeps them in memory, follows the stream with a blocking ``XREAD`` (a new entry
arrives within milliseconds) and checks each request against memory, without a Redis round trip.  It never
trusts a stale copy: when its last successful read is older than ``max_staleness_s`` (one second), the check
reads the stream first, and refuses the request (503 ``store_unavailable``) if Redis does not answer.

An entry matters only while tokens issued before it can still be valid, so entries older than the seat-token
lifetime are trimmed (``XADD ... MINID``) and forgotten.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import msgspec

from benthic.errors import store_unavailable
from benthic.game.keys import REVOCATIONS
from benthic.runtime.telemetry import log
from benthic.trust.auth import SeatClaim, now_ms

GAME = "game"
PLAYER = "player"
SCOPES = (GAME, PLAYER)
_MARGIN_MS = 60_000  # kept past the token lifetime: clock skew between replicas


class Revocation(msgspec.Struct, frozen=True):
    scope: str  # GAME | PLAYER
    target: str  # the game id or the player id
    before_ms: int  # tokens issued at or before this moment are refused
    by: str = ""  # who revoked (the operator credential's subject)


class Revocations:
    def __init__(self, redis: Any, token_ttl_s: int, max_staleness_s: float = 1.0, block_ms: int = 250) -> None:
        self.redis = redis
        self.retain_ms = token_ttl_s * 1000 + _MARGIN_MS
        self.max_staleness_s = max_staleness_s
        self.block_ms = block_ms
        self._before: dict[tuple[str, str], int] = {}
        self._last_id = "0-0"
        self._synced_at = float("-inf")
        self._lock = asyncio.Lock()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        """Read the list, and follow it.  If Redis cannot be read now the service starts anyway: unready, and
        refusing seat tokens (503) until the list is read (it fails closed)."""
        try:
            await self._read(block_ms=None)
        except Exception as error:  # noqa: BLE001 - followed from now on
            log().warning("revocations_unavailable", error=repr(error))
        self._task = asyncio.create_task(self._follow())

    async def stop(self) -> None:
        self._stopping = True
        if self._task is not None:
            self._task.cancel()
            await asyncio.wait([self._task], timeout=5)

    @property
    def fresh(self) -> bool:
        return self.synced_within(self.max_staleness_s)

    def synced_within(self, seconds: float) -> bool:
        return time.monotonic() - self._synced_at <= seconds

    async def revoke(self, scope: str, target: str, by: str) -> Revocation:
        if scope not in SCOPES:
            raise ValueError(f"unknown revocation scope {scope!r}")
        revocation = Revocation(scope, target, now_ms(), by)
        oldest = max(0, revocation.before_ms - self.retain_ms)
        await self.redis.xadd(
            REVOCATIONS, {"r": msgspec.json.encode(revocation)}, minid=f"{oldest}-0", approximate=True
        )
        self._apply(revocation)  # this replica refuses at once; the others on their next read
        return revocation

    async def revoked(self, claim: SeatClaim) -> bool:
        if not self.fresh:
            async with self._lock:
                if not self.fresh:
                    try:
                        await self._read(block_ms=None)
                    except Exception as error:  # noqa: BLE001 - fail closed
                        log().warning("revocations_unavailable", error=repr(error))
                        raise store_unavailable("the store (and the seat-token denylist in it)") from None
        for key in ((GAME, claim.game_id), (PLAYER, claim.player_id)):
            before = self._before.get(key)
            if before is not None and claim.issued_ms <= before:
                return True
        return False

    def _apply(self, revocation: Revocation) -> None:
        key = (revocation.scope, revocation.target)
        self._before[key] = max(self._before.get(key, 0), revocation.before_ms)

    async def _read(self, block_ms: int | None) -> None:
        started = time.monotonic()
        replies = await self.redis.xread({REVOCATIONS: self._last_id}, count=1000, block=block_ms)
        for _stream, entries in replies or ():
            for entry_id, fields in entries:
                self._last_id = entry_id.decode() if isinstance(entry_id, bytes) else entry_id
                with contextlib.suppress(msgspec.DecodeError, KeyError):
                    self._apply(msgspec.json.decode(fields[b"r"], type=Revocation))
        # What we read is complete as of the moment the read was sent.
        self._synced_at = started
        self._forget_expired()

    def _forget_expired(self) -> None:
        oldest = now_ms() - self.retain_ms
        if any(before < oldest for before in self._before.values()):
            self._before = {k: v for k, v in self._before.items() if v >= oldest}

    async def _follow(self) -> None:
        while not self._stopping:
            try:
                await self._read(block_ms=self.block_ms)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - keep following; checks fail closed meanwhile
                log().warning("revocations_read_failed", error=repr(error))
                await asyncio.sleep(0.5)
