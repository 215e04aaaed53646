"""Folded game state for the services: in-memory cache, then snapshot, then the stream's tail."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from typing import Any

import msgspec

from benthic.game import lifecycle, undo
from benthic.game.events import Envelope
from benthic.game.lifecycle import Lifecycle
from benthic.rules import AnyEngine, GameNotSupported
from benthic.service.telemetry import GAMES_NOT_SUPPORTED, SNAPSHOTS_FAILED, log
from benthic.store import EventStore, Snapshot


class Folded(msgspec.Struct, frozen=True):
    """A game's engine state folded to a stream version (platform events count in the version only)."""

    version: int
    state: Any
    life: Lifecycle = msgspec.field(default_factory=Lifecycle)  # seats' control, clocks, resign, abort


class StateCache:
    """LRU of folded states by game id."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: OrderedDict[str, Folded] = OrderedDict()

    def get(self, game_id: str) -> Folded | None:
        item = self._items.get(game_id)
        if item is not None:
            self._items.move_to_end(game_id)
        return item

    def put(self, game_id: str, folded: Folded) -> None:
        current = self._items.get(game_id)
        if current is not None and current.version > folded.version:
            return
        self._items[game_id] = folded
        self._items.move_to_end(game_id)
        while len(self._items) > self.capacity:
            self._items.popitem(last=False)

    def clear(self) -> None:
        self._items.clear()

    def drop(self, game_id: str) -> None:
        self._items.pop(game_id, None)

    def __len__(self) -> int:
        return len(self._items)


class UndoBeforeStart(Exception):
    """An undo among the entries to fold voids versions the starting state already holds: fold again from a
    state older than ``first_voided`` (the start of the stream, or an older snapshot)."""

    def __init__(self, first_voided: int) -> None:
        super().__init__(f"an undo voids version {first_voided}, already folded")
        self.first_voided = first_voided


def fold_envelopes(engine: AnyEngine, folded: Folded, envelopes: list[Envelope], game_id: str = "") -> Folded:
    """Fold stream entries onto ``folded``.  The versions an undo among them voids (``command_undone``) are
    skipped, as if never played: they count in the version, and their time in the clocks (time spent stays
    spent), but not as moves.  UndoBeforeStart when an undo voids versions ``folded`` already holds.  A game this
    engine cannot read (events of an engine version it neither is nor upcasts from, a content pack that is not
    installed) raises GameNotSupported, counted and logged: such a game is never folded with other rules or
    other data."""
    void = undo.voided(envelopes)
    if void and (first := min(first for first, _ in void)) <= folded.version:
        raise UndoBeforeStart(first)
    state = folded.state
    version = folded.version
    life = folded.life
    commit: list[Envelope] = []  # the envelopes of the commit being folded (they share command id and time)
    try:
        for envelope in envelopes:
            if envelope.version != version + 1:
                raise RuntimeError(f"gap in stream: version {envelope.version} after {version}")
            if commit and (envelope.command_id, envelope.ts_ms) != (commit[0].command_id, commit[0].ts_ms):
                life = _advance(engine, life, state, commit, void)
                commit = []
            if envelope.is_engine and not _is_void(envelope.version, void):
                state = engine.evolve(state, engine.decode_event(envelope.data, envelope.engine_version))
            commit.append(envelope)
            version = envelope.version
        if commit:
            life = _advance(engine, life, state, commit, void)
    except GameNotSupported as refused:
        GAMES_NOT_SUPPORTED.labels(engine.game_type, refused.code).inc()
        log().error("game_not_supported", game_id=game_id, version=version + 1, code=refused.code,
                    error=refused.message)
        raise
    return Folded(version, state, life)


def _is_void(version: int, void: list[tuple[int, int]]) -> bool:
    return any(first <= version <= last for first, last in void)


def _advance(engine: AnyEngine, life: Lifecycle, state: Any, commit: list[Envelope],
             void: list[tuple[int, int]]) -> Lifecycle:
    head = commit[0]
    move = head.is_engine and not _is_void(head.version, void)  # a voided move's time stays spent, not its move
    return lifecycle.advance(life, engine, state, head.ts_ms, head.seat, move,
                             [(e.type, e.data) for e in commit if not e.is_engine])


class StateLoader:
    """Folded states, from this process's cache, else the snapshot, then the stream's tail.

    A cache can hold what a Redis primary had and its successor never got (a write made but not yet replicated
    when the primary died: never acknowledged, but seen).  So when the store's ``epoch`` moves (the primary
    changed: a failover, a restart) the whole cache is dropped before anything is read from it again."""

    def __init__(self, store: EventStore, cache_size: int, snapshot_every: int) -> None:
        self.store = store
        self.cache = StateCache(cache_size)
        self.snapshot_every = snapshot_every
        self._snapshot_tasks: set[asyncio.Task[None]] = set()
        self._epoch = store.epoch

    def forget_if_primary_changed(self) -> bool:
        """Drop the cache if the primary changed since it was filled; whether it did."""
        if self._epoch == self.store.epoch:
            return False
        self._epoch = self.store.epoch
        self.cache.clear()
        return True

    def cached(self, game_id: str) -> Folded | None:
        self.forget_if_primary_changed()
        return self.cache.get(game_id)

    async def load(self, game_id: str, engine: AnyEngine) -> Folded:
        """The state at the stream's current version."""
        self.forget_if_primary_changed()
        folded = self.cache.get(game_id)
        if folded is None:
            folded = await self._from_snapshot(game_id, engine)
        tail = await self.store.load(game_id, after=folded.version)
        if tail:
            try:
                folded = fold_envelopes(engine, folded, tail, game_id)
            except UndoBeforeStart as undone:
                folded = await self.refold(game_id, engine, undone.first_voided)
        self.cache.put(game_id, folded)
        return folded

    async def load_at(self, game_id: str, engine: AnyEngine, version: int) -> Folded:
        """The state at ``version`` exactly (at most the stream's version): from the cache when it is not newer,
        else from the snapshot when that is not newer, else from the start."""
        self.forget_if_primary_changed()
        folded = self.cache.get(game_id)
        if folded is None or folded.version > version:
            folded = await self._from_snapshot(game_id, engine)
            if folded.version > version:
                folded = Folded(0, engine.initial_state())
        if folded.version < version:
            tail = await self.store.load(game_id, after=folded.version, until=version)
            try:
                folded = fold_envelopes(engine, folded, tail, game_id)
            except UndoBeforeStart as undone:
                folded = await self.refold(game_id, engine, undone.first_voided, until=version)
            self.cache.put(game_id, folded)
        return folded

    async def refold(self, game_id: str, engine: AnyEngine, first_voided: int, until: int | None = None) -> Folded:
        """The state at ``until`` (the stream's end when None) folded again from before ``first_voided``, the
        first version an undo voids: from the snapshot when it is older, else from the start.  An undo costs
        this one fold of the game from the start in each process that had folded past it."""
        start = await self._from_snapshot(game_id, engine)
        if start.version >= first_voided:
            start = Folded(0, engine.initial_state())
        tail = await self.store.load(game_id, after=start.version, until=until)
        try:
            return fold_envelopes(engine, start, tail, game_id)
        except UndoBeforeStart:  # an earlier undo voids versions the snapshot holds
            tail = await self.store.load(game_id, until=until)
            return fold_envelopes(engine, Folded(0, engine.initial_state()), tail, game_id)

    async def _from_snapshot(self, game_id: str, engine: AnyEngine) -> Folded:
        snapshot = await self.store.load_snapshot(game_id)
        if snapshot is not None and snapshot.engine_version == engine.version:
            try:
                return Folded(snapshot.version, engine.decode_state(snapshot.state), lifecycle.decode(snapshot.life))
            except (msgspec.DecodeError, msgspec.ValidationError):
                pass  # a snapshot we cannot read is only a missed shortcut
        return Folded(0, engine.initial_state())

    def _snapshot_saved(self, task: asyncio.Task[None]) -> None:
        """A snapshot is a shortcut: one that could not be written (Redis failing over, say) is left for the next
        multiple of N, its error retrieved here so that asyncio does not report it as lost."""
        self._snapshot_tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            SNAPSHOTS_FAILED.inc()

    def remember(self, game_id: str, engine: AnyEngine, before: int, folded: Folded) -> None:
        """Cache a state this process just produced, and snapshot it when it crosses a multiple of N."""
        if self.forget_if_primary_changed():
            return  # produced from a state read before the primary changed: not to be trusted
        self.cache.put(game_id, folded)
        if self.snapshot_every and folded.version // self.snapshot_every > before // self.snapshot_every:
            snapshot = Snapshot(engine.version, folded.version, engine.encode_state(folded.state),
                                lifecycle.encode(folded.life))
            task = asyncio.create_task(self.store.save_snapshot(game_id, snapshot))
            self._snapshot_tasks.add(task)
            task.add_done_callback(self._snapshot_saved)
