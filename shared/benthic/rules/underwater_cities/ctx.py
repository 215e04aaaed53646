"""The emitter every ``decide`` and ``start`` of Underwater Cities runs through."""

from __future__ import annotations

import random

from benthic.rules import emitter

from .effects import Effect
from .events import Event
from .evolve import evolve
from .state import GameState


class Ctx(emitter.Emitter[GameState, Event]):
    """The shared emitter (``benthic.rules.emitter``) with the trigger frames still to push (§5.2)."""

    __slots__ = ("pending",)

    def __init__(self, state: GameState, rng: random.Random | None = None) -> None:
        super().__init__(state, evolve, rng)
        self.pending: list[tuple[str, tuple[Effect, ...], bool, str]] = []
