"""Reading the read models: views, lobby cards, scores, leaderboards, and histories derived from the stream.

A game that has left Redis is read from the archive (``archived.py``) with the same bodies.  Redis stays the
authority until the archiver's one atomic delete: a read that finds the game half gone (the stream emptied
between two calls) asks the archive instead."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any, cast

import msgspec
from redis.asyncio import Redis

from benthic.archive import ArchiveUnavailable
from benthic.game.gamestate import Folded, UndoBeforeStart, fold_envelopes
from benthic.game.history import history_page, seat_names
from benthic.game.keys import GameKeys, RatingKeys, lobby_key
from benthic.i18n import DEFAULT_LANGUAGE
from benthic.rules import get_engine
from benthic.store import EventStore
from benthic.store.loader import StateLoader
from benthic.store.pipelining import ScriptBatcher
from benthic.views import writes
from benthic.views.archived import ArchivedReads
from benthic.views.readmodel import (
    GAME_TYPE,
    SEATS,
    STATUSES,
    SUMMARY,
    VERSION,
    PastView,
    VersionNotFound,
    build_views,
    stored_version,
    unpack_view,
    view_at,
    view_field,
)

# The client answers bytes (no decode_responses); redis-py annotates its replies ``bytes | str``.
_Fields = list[bytes | None]


AT_STATES = 256  # games whose last ``?at=`` state is kept to step on from


class ReadModels:
    def __init__(
        self,
        redis: Redis,
        store: EventStore,
        archived: ArchivedReads | None = None,
        loader: StateLoader | None = None,
    ) -> None:
        self.redis = redis
        self.store = store
        self.partitions = store.partitions
        self.archived = archived  # games no longer in Redis are read from the archive
        self.loader = loader or StateLoader(store, 256, snapshot_every=0)  # folds states for views not built yet
        self._write_views = ScriptBatcher(redis, writes.VIEWS_SOURCE)
        self._at_states: OrderedDict[str, tuple[int, Folded]] = OrderedDict()  # (store epoch, the last ?at= state)

    def keys(self, game_id: str) -> GameKeys:
        return GameKeys(game_id, self.partitions)

    async def version(self, game_id: str) -> int | None:
        raw = await self.redis.hget(self.keys(game_id).read_model, VERSION)
        return int(raw) if raw is not None else None

    async def field(self, game_id: str, field: str) -> tuple[int, bytes | None] | None:
        """(version, field value), or None when the game has no read model (yet, or any more)."""
        version, value = cast(_Fields, await self.redis.hmget(self.keys(game_id).read_model, [VERSION, field]))
        if version is None:
            return await self.archived.field(game_id, field) if self.archived else None
        return int(version), value

    async def views(self, game_id: str, viewers: list[int | None]) -> tuple[int, dict[int | None, bytes]] | None:
        """(version, {viewer: view JSON}) at the read model's version, or None when the game has no read model.
        Views not built at that version yet are built now from the state at that version, and stored."""
        keys = self.keys(game_id)
        raw = cast(_Fields, await self.redis.hmget(
            keys.read_model, [VERSION, "status", GAME_TYPE, SEATS, SUMMARY, *(view_field(v) for v in viewers)]
        ))
        if raw[0] is None:
            return await self._archived_views(game_id, viewers)
        if raw[2] is None or raw[3] is None or raw[4] is None:
            return None  # not projected yet: nothing to show
        status = cast(bytes, raw[1]).decode()  # written with the version, in one HSET
        version, seats = int(raw[0]), len(msgspec.json.decode(raw[3]))
        stored = dict(zip(viewers, raw[5:], strict=True))
        stale = [
            v for v, body in stored.items()
            if (v is None or 0 <= v < seats) and (body is None or not _shows(body, version, status))
        ]
        if stale:
            engine = get_engine(raw[2].decode())
            folded = await self.loader.load_at(game_id, engine, version)
            if folded.version != version:  # the stream left Redis under us: the archive has the game whole
                return await self._archived_views(game_id, viewers)
            life = msgspec.json.decode(raw[4]).get("lifecycle")  # the card is written with the version
            built = build_views(engine, game_id, version, status, folded.state, life, stale)
            await self._write_views(*writes.views_call(keys, version, built))
            stored.update(zip(stale, (body for _, body in built), strict=True))
        return version, {v: unpack_view(body) for v, body in stored.items() if body}

    async def _archived_views(
        self, game_id: str, viewers: list[int | None]
    ) -> tuple[int, dict[int | None, bytes]] | None:
        if self.archived is None or (game := await self.archived.game(game_id)) is None:
            return None
        stored = [game.read_models.get(view_field(v)) for v in viewers]
        return game.last_version, {v: unpack_view(body) for v, body in zip(viewers, stored, strict=True) if body}

    async def view_at(self, game_id: str, viewer: int | None, at: int) -> PastView | None:
        """The view ``viewer`` had of the game at version ``at`` (1 ≤ at ≤ the projected version): at the end of the
        commit that holds ``at`` (a version inside a commit is a state nobody saw: benthic.game.commits), the
        game's events folded to it and rendered as the live views are; None when the game is nowhere;
        VersionNotFound beyond the projected version."""
        raw = cast(_Fields, await self.redis.hmget(self.keys(game_id).read_model,
                                                   [VERSION, "status", GAME_TYPE, SUMMARY, view_field(viewer)]))
        if raw[0] is None:
            return await self._archived_view_at(game_id, viewer, at)
        if raw[2] is None or raw[3] is None:
            return None  # not projected yet: nothing to show
        projected, status = int(raw[0]), (raw[1] or b"").decode()
        if at > projected:
            raise VersionNotFound(projected)
        span = await self.store.commit_span(game_id, at)
        if span is None:  # archived under us: the archive has it whole
            return await self._archived_view_at(game_id, viewer, at)
        first, shown = span
        if shown == projected and raw[4] is not None and _shows(raw[4], shown, status):
            return PastView(shown, first - 1, unpack_view(raw[4]))  # the live view itself
        engine = get_engine(raw[2].decode())
        meta = await self.store.meta(game_id)
        folded = await self._fold_at(game_id, engine, shown) if meta is not None else None
        if meta is None or folded is None or folded.version != shown:  # archived under us: the archive has it whole
            return await self._archived_view_at(game_id, viewer, at)
        return PastView(shown, first - 1,
                        view_at(engine, game_id, folded, status, meta.options, len(meta.seats), viewer))

    async def _fold_at(self, game_id: str, engine: Any, at: int) -> Folded:
        """The state at ``at``: on from the state the last ``?at=`` of this game folded (a replay steps forward),
        else as the loader folds it (its cache, the snapshot, or from the start).  A state folded before the
        primary changed is not used (it may hold writes the new primary never got)."""
        latest = self.loader.cached(game_id)
        mine = self._at_states.get(game_id)
        if (mine is not None and mine[0] == self.store.epoch and mine[1].version <= at
                and (latest is None or latest.version > at or latest.version < mine[1].version)):
            start = mine[1]
            tail = await self.store.load(game_id, after=start.version, until=at) if start.version < at else []
            try:
                folded = fold_envelopes(engine, start, tail, game_id) if tail else start
            except UndoBeforeStart as undone:  # an undo after the replay's state voids versions it holds
                folded = await self.loader.refold(game_id, engine, undone.first_voided, until=at)
        else:
            folded = await self.loader.load_at(game_id, engine, at)
        if folded.version == at:
            self._at_states[game_id] = (self.store.epoch, folded)
            self._at_states.move_to_end(game_id)
            while len(self._at_states) > AT_STATES:
                self._at_states.popitem(last=False)
        return folded

    async def _archived_view_at(self, game_id: str, viewer: int | None, at: int) -> PastView | None:
        if self.archived is None:
            return None
        return await self.archived.view_at(game_id, viewer, at)

    async def history(
        self, game_id: str, viewer: int | None, after: int, limit: int, language: str = DEFAULT_LANGUAGE
    ) -> tuple[int, list[bytes]] | None:
        """(projected version, up to ``limit`` entries after ``after`` as ``viewer`` sees them, their sentences in
        ``language``), never beyond the projected version so the history agrees with the views; None when the
        game is nowhere."""
        keys = self.keys(game_id)
        async with self.redis.pipeline(transaction=True) as pipe:  # the version and the first page at once
            pipe.hmget(keys.read_model, [VERSION, GAME_TYPE, SEATS])
            pipe.xrange(keys.events, f"{after + 1}-0", "+", count=limit)
            (version, game_type, seats), first = await pipe.execute()
        if version is not None and game_type is not None:
            projected = int(version)
            engine = get_engine(game_type.decode())
            names = seat_names(msgspec.json.decode(seats) if seats else [])
            entries: list[bytes] = []
            start = after
            try:
                batch = await self.store.envelopes(keys.events, first)
                while True:
                    batch = [e for e in batch if e.version <= projected]
                    entries.extend(history_page(engine, batch, viewer, start, limit - len(entries), language, names))
                    if batch:
                        start = batch[-1].version
                    if len(entries) >= limit or start >= projected:
                        return projected, entries
                    batch = await self.store.load(game_id, after=start, until=projected, count=max(limit, 16))
                    if not batch:
                        break  # the stream is gone under us: archived meanwhile; the archive has it whole
            except ValueError:
                pass  # a commit's head vanished under us, likewise
        return await self.archived.history(game_id, viewer, after, limit, language) if self.archived else None

    async def lobby(self, game_types: list[str], statuses: list[str], limit: int) -> list[dict[str, Any]]:
        """The newest games (by last change) of ``game_types`` in ``statuses``; finished games that have left
        Redis come from the archive, with the same cards."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for partition in range(self.partitions):
                for game_type in game_types:
                    for status in statuses:
                        pipe.zrevrange(lobby_key(partition, game_type, status), 0, limit - 1, withscores=True)
            replies = await pipe.execute()
        ranked = sorted((score, game_id.decode()) for reply in replies for game_id, score in reply)
        chosen = [game_id for _, game_id in reversed(ranked)][:limit]
        cards: list[dict[str, Any]] = []
        if chosen:
            async with self.redis.pipeline(transaction=False) as pipe:
                for game_id in chosen:
                    pipe.hget(self.keys(game_id).read_model, "summary")
                summaries = await pipe.execute()
            cards = [msgspec.json.decode(s) for s in summaries if s]
        if "finished" in statuses and self.archived is not None:
            live = {card["game_id"] for card in cards}
            for game_type in game_types:
                try:
                    archived = await self.archived.finished(game_type, limit)
                except ArchiveUnavailable:
                    break  # the archive is down: the lobby still lists what Redis holds
                cards.extend(msgspec.json.decode(card) for game_id, card in archived if game_id not in live)
            cards.sort(key=lambda card: (card["updated_ms"], card["game_id"]), reverse=True)
        return cards[:limit]

    async def counts(self, game_types: list[str]) -> dict[tuple[str, str], int]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_type in game_types:
                for status in STATUSES:
                    for partition in range(self.partitions):
                        pipe.zcard(lobby_key(partition, game_type, status))
            replies = iter(await pipe.execute())
        return {
            (game_type, status): sum(next(replies) for _ in range(self.partitions))
            for game_type in game_types
            for status in STATUSES
        }

    async def leaderboard(self, game_type: str, limit: int) -> list[dict[str, Any]]:
        keys = RatingKeys(game_type)
        top = cast("list[tuple[bytes, float]]",
                   await self.redis.zrevrange(keys.leaderboard, 0, limit - 1, withscores=True))
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id, _ in top:
                pipe.hgetall(keys.player(player_id.decode()))
            records = await pipe.execute()
        board = []
        for rank, ((player_id, ordinal), record) in enumerate(zip(top, records, strict=True), start=1):
            fields = {k.decode(): v.decode() for k, v in record.items()}
            board.append(
                {
                    "rank": rank,
                    "player_id": player_id.decode(),
                    "name": fields.get("name", ""),
                    "rating": round(ordinal, 3),
                    "mu": float(fields.get("mu", 0)),
                    "sigma": float(fields.get("sigma", 0)),
                    "games": int(fields.get("games", 0)),
                    "wins": int(fields.get("wins", 0)),
                }
            )
        return board


def _shows(stored: bytes, version: int, status: str) -> bool:
    """Whether a stored view shows ``version`` (one stored without a version by an earlier release is final)."""
    shown = stored_version(stored)
    return shown == version if shown is not None else status == "finished"
