"""The event store on Redis Streams.

A game's events live in ``{pK}:g:<game>`` with entry ID ``<version>-0`` (layout in ``entries.py``).  One Lua
script appends a commit atomically: it checks the expected version and the command id (a repeat returns the
first commit and adds nothing), adds the events, updates the game's meta hash and adds one notification to
the partition feed.  Acknowledged means appended and, with an ``ack`` that waits, confirmed on that many
replicas (``durability.py``); what survives a crash of Redis itself depends on ``appendfsync`` (docs/GUARANTEES.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import msgspec
from redis.asyncio import Redis

from benthic.feed.encoding import encode_notification
from benthic.feed.notification import Notification
from benthic.game.events import Envelope
from benthic.game.keys import GameKeys
from benthic.store import append, join, snapshot
from benthic.store.durability import NO_ACK, Ack, DurabilityUnconfirmed
from benthic.store.entries import (
    HEAD,
    CommitHead,
    decode_head,
    encode_head,
    envelopes,
    last_head,
    starts_inside_commit,
    version_of,
)
from benthic.store.pipelining import ScriptBatcher
from benthic.store.records import (
    Actor,
    Commit,
    GameMeta,
    GameNotFound,
    JoinRefused,
    NewEvent,
    SeatInfo,
    Snapshot,
    VersionConflict,
    parse_meta,
    seat_encoder,
)
from benthic.store.scripts import load_lua

_LOOKBACK = 64  # entries read backwards to find the head of a commit a range starts inside
# The store's client answers bytes (no decode_responses); redis-py annotates its replies ``bytes | str``.
_Entries = list[tuple[bytes, dict[bytes, bytes]]]
_Hash = dict[bytes, bytes]


class EventStore:
    def __init__(self, redis: Redis, partitions: int, feed_maxlen: int = 200_000, ack: Ack = NO_ACK) -> None:
        self.redis = redis
        self.partitions = partitions
        self.feed_maxlen = feed_maxlen
        self.ack = ack
        self.epoch = 0  # moves when the primary changes (primary_changed): caches of what was read are dropped
        self._append = ScriptBatcher(redis, append.SOURCE, ack=ack, operation="append")
        self._join = ScriptBatcher(redis, join.SOURCE, max_fused=1, ack=ack, operation="join")
        self._committed = ScriptBatcher(redis, load_lua(__package__, "committed"), ack=ack, operation="append")
        self._snapshot = redis.register_script(snapshot.SOURCE)

    def primary_changed(self) -> None:
        """The Redis primary changed (a failover, a restart): what was read before may not be there any more."""
        self.epoch += 1

    def keys(self, game_id: str) -> GameKeys:
        return GameKeys(game_id, self.partitions)

    async def append(
        self,
        game_id: str,
        game_type: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        command_id: str = "",
        seat: int | None = None,
        now_ms: int,
        ended: bool = False,
        meta: dict[str, str] | None = None,
        actor: Actor | None = None,
    ) -> Commit:
        """Append ``events`` (one commit, all of one kind) after ``expected_version``.  Raises VersionConflict,
        GameNotFound; returns the first commit of ``command_id`` (``duplicate=True``) when that command was
        already appended."""
        kind = events[0].kind if events else "e"
        notification = encode_notification(
            Notification(
                game_id=game_id,
                game_type=game_type,
                kind="events",
                first_version=expected_version + 1,
                last_version=expected_version + len(events),
                ts_ms=now_ms,
                ended=ended,
                types=[] if kind == "e" else [e.type for e in events],
            )
        )
        engine_version = next((e.engine_version for e in events if e.engine_version is not None), 1)
        head = CommitHead(now_ms, len(events), kind, command_id, seat, actor.id if actor else "",
                          actor.kind if actor else "", engine_version)
        keys, args = append.append_call(
            self.keys(game_id),
            expected_version=expected_version,
            command_id=command_id,
            now_ms=now_ms,
            head=encode_head(head),
            events=[e.data for e in events],
            notification=notification,
            feed_maxlen=self.feed_maxlen,
            ended=ended,
            meta=meta or {},
            lifecycle=kind != "e",
        )
        try:
            reply = append.parse_append_reply(await self._append(keys, args))
        except DurabilityUnconfirmed as unconfirmed:
            reply = append.parse_append_reply(unconfirmed.result)
            if reply.status in ("ok", "duplicate"):  # written (or its first commit maybe not yet replicated)
                raise
        if reply.status == "conflict":
            raise VersionConflict(expected_version, reply.current)
        if reply.status == "missing":
            raise GameNotFound(game_id)
        return Commit(reply.first, reply.last, duplicate=reply.status == "duplicate")

    async def create(
        self,
        game_id: str,
        game_type: str,
        events: Sequence[NewEvent],
        *,
        seats: Sequence[SeatInfo | None],
        options: dict[str, Any],
        engine_version: str,
        seeded: bool,
        now_ms: int,
        rated: bool = False,
        actor: Actor | None = None,
        managed: bool = False,
    ) -> Commit:
        """``managed``: the bots service looks after the game (meta flag ``bots``): its commits also go to the
        partition's managed feed."""
        meta: dict[str, str] = {
            "game_type": game_type,
            "seats": str(len(seats)),
            "options": msgspec.json.encode(options).decode(),
            "created_ms": str(now_ms),
            "engine_version": engine_version,
            "seeded": "1" if seeded else "0",
            "status": "running" if all(seats) else "open",
            "rated": "1" if rated else "0",
        }
        if managed:
            meta["bots"] = "1"
        for i, info in enumerate(seats):
            if info is not None:
                meta[f"player:{i}"] = info.player_id
                meta[f"seat:{i}"] = seat_encoder.encode(info).decode()
        return await self.append(
            game_id, game_type, 0, events, command_id=f"create:{game_id}", now_ms=now_ms, meta=meta, actor=actor
        )

    async def join(
        self, game_id: str, game_type: str, seat: int, info: SeatInfo, now_ms: int, keeps_rated: bool = True
    ) -> str:
        """Take an open seat; returns the game's status after it.  ``keeps_rated`` False makes the game unrated.
        Raises GameNotFound, JoinRefused."""
        notification = encode_notification(
            Notification(game_id=game_id, game_type=game_type, kind="seats", ts_ms=now_ms)
        )
        keys, args = join.join_call(
            self.keys(game_id),
            seat=seat,
            player_id=info.player_id,
            record=seat_encoder.encode(info),
            now_ms=now_ms,
            notification=notification,
            feed_maxlen=self.feed_maxlen,
            keeps_rated=keeps_rated,
        )
        try:
            reply = join.parse_join_reply(await self._join(keys, args))
        except DurabilityUnconfirmed as unconfirmed:
            reply = join.parse_join_reply(unconfirmed.result)
            if reply.outcome in ("ok", "already_seated"):  # a write this answer would acknowledge
                raise
        if reply.outcome == "missing":
            raise GameNotFound(game_id)
        if reply.outcome != "ok":
            raise JoinRefused(reply.outcome, reply.seat)
        return reply.status

    async def flag_managed(self, game_id: str) -> None:
        """Flag a game the bots service looks after (meta ``bots``), for a game created before the flag was set
        at creation: its next commits go to the managed feed."""
        await self.redis.hset(self.keys(game_id).meta, "bots", "1")

    async def meta(self, game_id: str) -> GameMeta | None:
        raw = cast(_Hash, await self.redis.hgetall(self.keys(game_id).meta))
        return parse_meta(game_id, raw) if raw else None

    async def version(self, game_id: str) -> int:
        value = await self.redis.hget(self.keys(game_id).meta, "version")
        return int(value) if value is not None else 0

    async def load(
        self, game_id: str, after: int = 0, until: int | None = None, count: int | None = None
    ) -> list[Envelope]:
        """Entries with after < version <= until (all after ``after`` when until is None), at most ``count``."""
        key = self.keys(game_id).events
        end = "+" if until is None else f"{until}-0"
        entries = cast(_Entries, await self.redis.xrange(key, f"{after + 1}-0", end, count=count))
        return await self.envelopes(key, entries)

    async def envelopes(self, key: str, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> list[Envelope]:
        """Envelopes of entries read from ``key``, finding the head of a commit the entries start inside."""
        head = None
        if starts_inside_commit(entries):
            first = int(entries[0][0].split(b"-", 1)[0])
            before = cast(_Entries, await self.redis.xrevrange(key, f"{first - 1}-0", "-", count=_LOOKBACK))
            head = last_head(before)
        return envelopes(entries, head)

    async def commit_span(self, game_id: str, version: int) -> tuple[int, int] | None:
        """(first, last): the versions of the commit that holds ``version``, from its head (read backwards from
        ``version``; benthic.game.commits), or None when the stream does not hold ``version``."""
        key = self.keys(game_id).events
        end = version
        while end >= 1:
            entries = cast(_Entries, await self.redis.xrevrange(key, f"{end}-0", "-", count=_LOOKBACK))
            if not entries or (end == version and version_of(entries[0][0]) != version):
                return None
            for entry_id, fields in entries:
                raw_head = fields.get(HEAD)
                if raw_head:
                    first = version_of(entry_id)
                    return first, first + decode_head(raw_head).events - 1
            end = version_of(entries[-1][0]) - 1
        return None

    async def committed(self, game_id: str, command_id: str) -> Commit | None:
        """The commit of ``command_id`` (``duplicate=True``), or None.  With an ack that waits, a commit is
        answered only once it is confirmed on the replicas (as an append's duplicate is)."""
        keys = self.keys(game_id)
        if not self.ack.waits:
            value = cast("bytes | None", await self.redis.hget(keys.commands, command_id))
        else:
            try:
                value = await self._committed([keys.meta, keys.commands], [command_id])
            except DurabilityUnconfirmed as unconfirmed:
                if unconfirmed.result is not None:
                    raise
                value = None
        if value is None:
            return None
        first, _, last = value.decode().partition(":")
        return Commit(int(first), int(last), duplicate=True)

    async def save_snapshot(self, game_id: str, state: Snapshot) -> None:
        """Keep the newest snapshot (a slower writer never replaces a newer one)."""
        keys, args = snapshot.snapshot_call(self.keys(game_id), state)
        await self._snapshot(keys=keys, args=args)

    async def load_snapshot(self, game_id: str) -> Snapshot | None:
        return snapshot.parse_snapshot(cast(_Hash, await self.redis.hgetall(self.keys(game_id).snapshot)))
