"""The matchmaker's streams on Redis, written through the platform's one write loop (benthic.store.transact).

A stream holds one aggregate's events, one entry per event with entry ID ``<version>-0``; its head hash holds the
version.  Both keys of a stream share its hash tag (``{mm:pool}``, ``{mm:pl:<player>}``), so each append is one
script on one Redis Cluster slot (append.lua): it appends only at the version the events were decided on.

:meth:`Streams.transact` is that loop here, the one place a decision becomes events: bring the fold up to the
stream's head, decide on it (a pure function: events, or a refusal), append at that version, and on a conflict
(another request, another replica, a wave) decide again on the new head.  Acknowledged as the game store
acknowledges (``BENTHIC_REDIS_ACK_REPLICAS``: ``WAIT`` through ``ScriptBatcher``)."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Any, Generic, Protocol, TypeVar, cast

import msgspec

from benthic.errors import ApiError
from benthic.runtime.telemetry import APPEND_CONFLICTS
from benthic.store.durability import Ack
from benthic.store.pipelining import ScriptBatcher
from benthic.store.scripts import load_lua, text
from benthic.store.transact import RETRIES, TooManyConflicts, transact
from services.matchmaker import events as ev
from services.matchmaker.player import PlayerState, VacationPolicy
from services.matchmaker.pool import Pool

SOURCE = load_lua(__package__, "append")
READ_PAGE = 2000


class Folded(Protocol):
    version: int

    def apply_all(self, version: int, events: list[ev.Event]) -> None: ...


S = TypeVar("S", bound=Folded)
Decide = Callable[[S], Sequence[ev.Event]]


class Conflict(Exception):
    def __init__(self, current: int) -> None:
        super().__init__(f"the stream is at version {current}")
        self.current = current


def pool_tag() -> str:
    return "{mm:pool}"


def player_tag(player_id: str) -> str:
    return f"{{mm:pl:{player_id}}}"


class Stream(Generic[S]):
    """One aggregate: its keys, its fold kept in memory, and a lock (one decision at a time in this process)."""

    def __init__(self, tag: str, state: S, decoder: msgspec.json.Decoder[Any]) -> None:
        self.events_key = f"{tag}:events"
        self.head_key = f"{tag}:head"
        self.state = state
        self.decoder = decoder
        self.lock = asyncio.Lock()


class Streams:
    def __init__(self, redis: Any, ack: Ack, policy: VacationPolicy, retries: int = RETRIES,
                 players_cached: int = 50_000, keep_ms: int = 7 * 86_400_000) -> None:
        self.redis = redis
        self.policy = policy
        self.retries = retries
        self._append = ScriptBatcher(redis, SOURCE, max_fused=1, ack=ack, operation="matchmaker")
        self.pool: Stream[Pool] = Stream(pool_tag(), Pool(keep_ms), ev.pool_decoder)
        self._players: OrderedDict[str, Stream[PlayerState]] = OrderedDict()
        self._players_cached = players_cached

    def primary_changed(self) -> None:
        """What was read may not be on the new primary: fold everything again from the streams."""
        self.pool = Stream(pool_tag(), Pool(self.pool.state.keep_ms), ev.pool_decoder)
        self._players.clear()

    def player(self, player_id: str) -> Stream[PlayerState]:
        stream = self._players.get(player_id)
        if stream is None:
            stream = self._players[player_id] = Stream(player_tag(player_id), PlayerState(self.policy),
                                                       ev.player_decoder)
            while len(self._players) > self._players_cached:
                self._players.popitem(last=False)
        else:
            self._players.move_to_end(player_id)
        return stream

    # --- reading ----------------------------------------------------------------------------------------------
    async def catch_up(self, stream: Stream[S]) -> S:
        """The fold brought up to the stream's head."""
        while True:
            entries = cast(list[tuple[bytes, dict[bytes, bytes]]], await self.redis.xrange(
                stream.events_key, f"{stream.state.version + 1}-0", "+", count=READ_PAGE))
            if not entries:
                return stream.state
            self._fold(stream, entries)
            if len(entries) < READ_PAGE:
                return stream.state

    def _fold(self, stream: Stream[S], entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        # Reads take no lock, so two of them (or a read and a write's own fold) may have read the same entries
        # while the other waited on Redis: what one has folded already, the other skips.
        for entry_id, fields in entries:
            version = int(text(entry_id).split("-", 1)[0])
            if version <= stream.state.version:
                continue
            if version != stream.state.version + 1:
                raise RuntimeError(f"gap in {stream.events_key}: version {version} after {stream.state.version}")
            stream.state.apply_all(version, [stream.decoder.decode(fields[b"d"])])

    async def players(self, player_ids: Sequence[str]) -> dict[str, PlayerState]:
        """Many players' folds at once: one pipelined read of their heads, then the tails of those that moved."""
        streams = {p: self.player(p) for p in dict.fromkeys(player_ids)}
        async with self.redis.pipeline(transaction=False) as pipe:
            for stream in streams.values():
                pipe.hget(stream.head_key, "version")
            heads = await pipe.execute()
        behind = [s for s, head in zip(streams.values(), heads, strict=True)
                  if head is not None and int(head) > s.state.version]
        await asyncio.gather(*(self.catch_up(s) for s in behind))
        return {p: s.state for p, s in streams.items()}

    # --- writing ----------------------------------------------------------------------------------------------
    async def transact(self, stream: Stream[S], decide: Decide[S], now: int | None = None) -> tuple[S, list[ev.Event]]:
        """Decide on the fold at the stream's head and append what was decided, again on a conflict
        (benthic.store.transact); returns the fold after the append and the events appended (none: the decision
        changed nothing).  A refusal of ``decide`` (an ApiError) is raised as it is."""

        async def read(_fresh: bool) -> S:
            return await self.catch_up(stream)

        def decided(state: S) -> list[ev.Event] | None:
            return list(decide(state)) or None

        async def append(state: S, made: list[ev.Event]) -> S:
            expected = state.version
            last = await self._write(stream, expected, made)
            if state.version == expected:
                state.apply_all(last, made)
                return state
            # a read folded some of the appended entries while the append was waiting: fold the rest
            return await self.catch_up(stream)

        async with stream.lock:
            try:
                done = await transact(read, decided, append, retries=self.retries, conflict=Conflict,
                                      on_conflict=APPEND_CONFLICTS.labels("matchmaker").inc)
            except TooManyConflicts:
                raise ApiError(409, "too_many_conflicts",
                               "the matchmaker's state changed too often while deciding; retry") from None
        if done.appended is None:
            return done.state, []
        return done.appended, done.decided or []

    async def _write(self, stream: Stream[Any], expected: int, made: Sequence[ev.Event]) -> int:
        reply = await self._append([stream.events_key, stream.head_key],
                                   [expected, *(ev.encoder.encode(e) for e in made)])
        status, version = text(reply[0]), int(text(reply[1]))
        if status == "conflict":
            raise Conflict(version)
        return version
