"""The event collector every engine's ``decide`` and ``start`` use.

An ``Emitter`` holds the state being advanced by one call and the events emitted so far; each event is
folded into ``state`` as it is emitted, so every later rule check in the same call reads the state as the
events so far have made it (a new range after an activation, the money left after a payment ...).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

from benthic.rules.core import rng_for


class Seeded(Protocol):
    """What the emitter reads of a state: the game seed and the number of events folded into it."""

    @property
    def seed(self) -> int: ...

    @property
    def version(self) -> int: ...


S = TypeVar("S", bound=Seeded)
E = TypeVar("E")


class Emitter(Generic[S, E]):
    """The events of one call, folded into ``state`` one at a time with the engine's ``evolve``."""

    __slots__ = ("state", "events", "_evolve", "_rng", "_rng_version")

    def __init__(self, state: S, evolve: Callable[[S, E], S], rng: random.Random | None = None) -> None:
        self.state = state
        self.events: list[E] = []
        self._evolve = evolve
        self._rng = rng
        self._rng_version = state.version  # the contract: decide's RNG depends on the state it was given

    def emit(self, event: E) -> None:
        self.events.append(event)
        self.state = self._evolve(self.state, event)

    @property
    def rng(self) -> random.Random:
        """``rng_for(seed, version)`` of the state the call started from, made on first use."""
        if self._rng is None:
            self._rng = rng_for(self.state.seed, self._rng_version)
        return self._rng
