"""Feed notifications in, read models out.  Building a read model is pure (``readmodel.py``); the projector
moves bytes to and from Redis.

Idempotent by version: a game's read model carries the stream version it was folded to, and the write is
refused by the script unless it moves that version forward; a notification for events already projected is
a no-op, and a gap (a lost or reordered notification) is repaired by reading the game stream from the
projected version on.

A game this projector wrote last, whose folded state it still holds at that version, needs only its new
events: the read is one ``XRANGE``.  Anything else (a first sight, a join, a write refused or failed, a state
evicted from the cache) reads the read model's version and the game's meta first.

A write also reports the public integration events of what it changed (``services/projection/integration.py``):
the write script adds them to the integration stream in the same step, only when it moves the read model forward,
so a notification delivered again publishes nothing again.  A write that fails after Redis ran it (a lost reply)
is retried and may publish its events a second time: delivery is at least once, with deterministic ids.  On a
Redis Cluster the stream is in another slot than the game: the events go in one pipeline after the batch's writes,
and a projector that dies between the two loses them (at most once there).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from typing import Any, NamedTuple

import msgspec
from redis.asyncio import Redis, RedisCluster

from benthic.feed.encoding import DATA_FIELD
from benthic.feed.integration import IntegrationEvent, encode_entry, type_of, webhook_registry, webhook_stream
from benthic.feed.notification import Notification
from benthic.game.events import Envelope
from benthic.game.gamestate import Folded, UndoBeforeStart, fold_envelopes
from benthic.game.keys import GameKeys, RatingKeys
from benthic.game.rated import decode_marker
from benthic.play.recipients import webhook_players
from benthic.rules import UnknownGameType, get_engine
from benthic.runtime.telemetry import INTEGRATION_EVENTS, PROJECTED_EVENTS, PROJECTION_LAG, log, series
from benthic.store import EventStore, GameMeta, parse_meta
from benthic.store.loader import StateLoader
from benthic.store.pipelining import ScriptBatcher
from benthic.views import readmodel, writes
from services.projection import integration


class _Projected(NamedTuple):
    """What a game's read model holds."""

    version: int
    seats: bytes | None  # its seats JSON; None: those of the cached meta (this projector wrote them)
    scored: bool
    status: str  # "": no read model yet
    turn: bytes  # whose turn it showed (integration.Turn.key)


class _Write(NamedTuple):
    game_id: str
    game_type: str
    version: int
    tail: list[Any]  # the envelopes projected by this write
    scored: bool
    status: str
    turn: bytes
    published: list[str]  # the types of the integration events it reports
    entries: list[bytes]  # their stream entries, when the script does not add them (Redis Cluster)
    players: list[list[str]]  # with them, the players each goes to by webhook
    call: tuple[list[str], list[Any]]  # the write script's keys and arguments


class Projector:
    def __init__(
        self, redis: Redis, store: EventStore, loader: StateLoader, meta_cache_size: int = 5000,
        integration_stream: str = "benthic:integration", integration_maxlen: int = 100_000,
    ) -> None:
        self.redis = redis
        self.integration_stream = integration_stream
        self.integration_maxlen = integration_maxlen
        # the integration stream is in another slot than a game: its entries are added after the writes
        self.cluster = isinstance(redis, RedisCluster)
        self.store = store
        self.loader = loader
        self.meta_cache_size = meta_cache_size
        self._metas: OrderedDict[str, GameMeta] = OrderedDict()  # status and seats change only with a join
        self._written: dict[str, _Projected] = {}  # what this projector wrote last, by game id
        self._write = ScriptBatcher(redis, writes.SOURCE)

    async def handle(self, notes: list[Notification]) -> None:
        if self.loader.forget_if_primary_changed():  # what it wrote last may be gone with the old primary
            self._written.clear()
            self._metas.clear()
        games: dict[str, tuple[str, bool]] = {}
        for note in notes:
            seats_changed = note.kind == "seats" or games.get(note.game_id, ("", False))[1]
            games[note.game_id] = (note.game_type, seats_changed)
        outcomes = await self.project_many(games)
        failures = [o for o in outcomes.values() if isinstance(o, Exception)]
        if failures:
            raise failures[0]

    async def project(self, game_id: str, game_type: str, seats_changed: bool = True) -> int:
        """Bring the game's read models up to its stream; returns the version written (0: nothing new)."""
        outcome = (await self.project_many({game_id: (game_type, seats_changed)}, log_failures=False))[game_id]
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def project_many(
        self, games: dict[str, tuple[str, bool]], log_failures: bool = True
    ) -> dict[str, int | Exception]:
        """Project several games (game id -> (game type, seats changed)) with one read round trip for all of
        them; each game's outcome is the version written (0: nothing new) or the error it failed with (the
        others are still projected)."""
        plans: list[tuple[str, str, GameMeta | None, Folded | None, _Projected | None]] = []
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id, (game_type, seats_changed) in games.items():
                keys = GameKeys(game_id, self.store.partitions)
                meta = None if seats_changed else self._metas.get(game_id)
                cached = self.loader.cached(game_id)
                written = self._written.pop(game_id, None)  # back in only when this batch writes it again
                if meta is None or cached is None or written is None or written.version != cached.version:
                    written = None
                    pipe.hmget(keys.read_model, [readmodel.VERSION, readmodel.SEATS, readmodel.SCORED,
                                                 readmodel.STATUS, readmodel.TURN])
                    if meta is None:
                        pipe.hgetall(keys.meta)
                    else:
                        pipe.exists(keys.meta)
                if cached is not None:
                    pipe.xrange(keys.events, f"{cached.version + 1}-0", "+")
                plans.append((game_id, game_type, meta, cached, written))
            replies = iter(await pipe.execute())
        outcomes: dict[str, int | Exception] = {}
        writes_due: list[_Write] = []
        for game_id, game_type, meta, cached, written in plans:
            if written is not None:  # what the read model holds: this projector wrote it
                read = (written, True, next(replies))
            else:
                version, seats, scored, status, turn = next(replies)
                projected = _Projected(int(version or 0), seats or b"", scored == b"1",  # b"": none stored
                                       (status or b"").decode(), turn or b"")
                read = (projected, next(replies), next(replies) if cached is not None else None)
            try:
                due = await self._model(game_id, game_type, meta, cached, *read)
            except UnknownGameType:
                log().error("unknown_game_type", game_id=game_id, game_type=game_type)
                due = None
            except Exception as error:  # noqa: BLE001 - finish the others, then fail the batch
                if log_failures:
                    log().error("projection_failed", game_id=game_id, error=repr(error))
                outcomes[game_id] = error
                continue
            outcomes[game_id] = 0
            if due is not None:
                writes_due.append(due)
        results = await self._write.many([due.call for due in writes_due])
        if self.cluster:
            await self._publish_after([due for due, r in zip(writes_due, results, strict=True) if r == 1])
        now = time.time()
        for due, written in zip(writes_due, results, strict=True):
            if isinstance(written, Exception):
                if log_failures:
                    log().error("projection_failed", game_id=due.game_id, error=repr(written))
                outcomes[due.game_id] = written
            elif written == 1:
                outcomes[due.game_id] = due.version
                self._written[due.game_id] = _Projected(due.version, None, due.scored, due.status, due.turn)
                if len(self._written) > self.meta_cache_size:
                    del self._written[next(iter(self._written))]
                for envelope in due.tail:
                    if envelope.ts_ms:
                        series(PROJECTION_LAG, due.game_type).observe(max(0.0, now - envelope.ts_ms / 1000))
                series(PROJECTED_EVENTS, due.game_type).inc(len(due.tail))
                for type_ in due.published:
                    INTEGRATION_EVENTS.labels(type_).inc()
            elif written == -1:  # refused: the game has left Redis (archived)
                self.loader.cache.drop(due.game_id)
            # else refused: a newer version is there (another replica wrote it)
        return outcomes

    async def _model(
        self,
        game_id: str,
        game_type: str,
        meta: GameMeta | None,
        cached: Folded | None,
        projected: _Projected,
        meta_reply: Any,
        tail_reply: Any,
    ) -> _Write | None:
        """The read-model write a game needs (None: it is up to date, or gone)."""
        engine = get_engine(game_type)
        keys = GameKeys(game_id, self.store.partitions)
        if not meta_reply:  # the game is gone (archived), or was never created
            self._metas.pop(game_id, None)
            self.loader.cache.drop(game_id)
            return None
        if meta is None:
            meta = self._remember_meta(parse_meta(game_id, meta_reply))
        if cached is not None and cached.version == projected.version:
            tail = await self.store.envelopes(keys.events, tail_reply)
            try:
                folded = fold_envelopes(engine, cached, tail) if tail else cached
            except UndoBeforeStart as undone:  # the tail takes back versions the cached state holds
                folded = await self.loader.refold(game_id, engine, undone.first_voided, until=tail[-1].version)
        else:
            folded = await self.loader.load(game_id, engine)
            tail = await self.store.load(game_id, after=projected.version, until=folded.version)
        seats_same = projected.seats is None or readmodel.seats_json(meta) == projected.seats
        if folded.version <= projected.version and seats_same:
            return None
        self.loader.cache.put(game_id, folded)
        scored = projected.scored or any(e.type == "game_scored" and not e.is_engine for e in tail)
        model = readmodel.build(engine, meta, folded, tail, scored)
        created_at = integration.created_version(game_id, folded, [(e.version, e.command_id) for e in tail])
        scored_by = integration.scored_envelope(tail)
        events, turn = integration.events_of_write(
            meta, folded, model.prompt, created_at, model.updated_ms, model.status, projected.version, projected.status,
            projected.turn, integration.end_before(tail, scored_by))
        if scored_by is not None:
            events.extend(await self._scored_events(meta, scored_by))
        model = msgspec.structs.replace(model, fields=[*model.fields, (readmodel.TURN, turn)])
        entries = [encode_entry(event) for event in events]
        players = [webhook_players(meta, event) for event in events]
        publication = writes.Publication(None if self.cluster else self.integration_stream, self.integration_maxlen,
                                         entries, players)
        call = writes.write_call(keys, game_id, meta.game_type, model, publication)
        return _Write(game_id, game_type, folded.version, tail, scored, model.status, turn,
                      [type_of(event) for event in events], entries if self.cluster else [],
                      players if self.cluster else [], call)

    async def _scored_events(self, meta: GameMeta, envelope: Envelope) -> list[IntegrationEvent]:
        """``game.scored`` and, for a rated game, each ``rating.changed`` (read from the ratings' marker: one read,
        once per game)."""
        record = integration.scored_record(envelope)
        rated = None
        if integration.expects_ratings(record):
            raw = await self.redis.get(RatingKeys(meta.game_type).rated(meta.game_id))
            rated = decode_marker(raw) if raw is not None else None
            if rated is None:  # rated before markers said how (or by hand): nothing to report
                log().warning("rating_changes_unknown", game_id=meta.game_id)
        return integration.scored_events(meta, envelope, record, rated)

    async def _publish_after(self, written: list[_Write]) -> None:
        """Redis Cluster: the events of the writes made, in one pipeline (at most once: see the module doc)."""
        if not any(due.entries for due in written):
            return
        registry, notified = webhook_registry(self.integration_stream), webhook_stream(self.integration_stream)
        async with self.redis.pipeline(transaction=False) as pipe:
            for due in written:
                for entry, players in zip(due.entries, due.players, strict=True):
                    pipe.xadd(self.integration_stream, {DATA_FIELD: entry}, maxlen=self.integration_maxlen,
                              approximate=True)
                    if players:  # copied to the notifier's stream when one of them has a webhook
                        pipe.eval(writes.NOTIFY_SOURCE, 2, registry, notified, self.integration_maxlen, entry,
                                  *players)
            await pipe.execute()

    def _remember_meta(self, meta: GameMeta) -> GameMeta:
        self._metas[meta.game_id] = meta
        self._metas.move_to_end(meta.game_id)
        while len(self._metas) > self.meta_cache_size:
            self._metas.popitem(last=False)
        return meta
