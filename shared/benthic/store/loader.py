"""The state loader: a game's folded state from this process's cache, else the snapshot, then the stream's tail."""

from __future__ import annotations

import asyncio

import msgspec

from benthic.game import lifecycle
from benthic.game.gamestate import Folded, StateCache, UndoBeforeStart, fold_envelopes
from benthic.rules import AnyEngine
from benthic.runtime.telemetry import SNAPSHOTS_FAILED
from benthic.store.eventstore import EventStore
from benthic.store.records import Snapshot


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
