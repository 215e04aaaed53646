"""A game's folded state as the services hold it (engine state, version, lifecycle), its in-memory cache, and the fold
of stream entries onto it (undos skipped).  Pure: the state loader that reads the store is ``benthic.store.loader``."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import msgspec

from benthic.game import lifecycle, undo
from benthic.game.events import Envelope
from benthic.game.lifecycle import Lifecycle
from benthic.rules import AnyEngine, GameNotSupported
from benthic.runtime.telemetry import GAMES_NOT_SUPPORTED, log


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
