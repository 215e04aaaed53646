"""Game-independent bots: they only use the engine contract, and decide only from what their seat may see
(``engine.determinize`` and the seat's legal commands).  The search bot lives in ``benthic.rules.search``."""

from __future__ import annotations

import random
from typing import Any

from benthic.rules.bot_settings import bot_settings
from benthic.rules.core import AnyEngine
from benthic.rules.search import SearchBot


class RandomBot:
    """Plays a uniformly random legal command (the seat's legal commands are public to it)."""

    name = "random"

    def choose(self, engine: AnyEngine, state: Any, seat: int, rng: random.Random) -> Any:
        legal = engine.legal_commands(state, seat)
        if not legal:
            raise LookupError(f"seat {seat} has no legal command")
        return rng.choice(legal)


class GreedyBot:
    """One-step look-ahead: plays the legal command whose resulting state the engine's heuristic rates
    best for the bot's seat (random among equals), averaged over determinizations (``bot_settings.json``):
    it never looks at the true state, so it cannot see what its seat may not (the next card drawn ...)."""

    name = "greedy"
    tie_tolerance = 0.0  # values this close count as equal (a subclass summing floats may want some)

    def value(self, engine: AnyEngine, state: Any, seat: int) -> float:
        """How good ``state`` is for ``seat``; a subclass may rate states its own way."""
        return engine.heuristic(state, seat)

    def choose(self, engine: AnyEngine, state: Any, seat: int, rng: random.Random) -> Any:
        legal = engine.legal_commands(state, seat)  # public to the seat
        if not legal:
            raise LookupError(f"seat {seat} has no legal command")
        if len(legal) == 1:
            return legal[0]
        worlds = [engine.determinize(state, seat, rng)
                  for _ in range(bot_settings(engine.game_type).greedy_determinizations)]
        best: list[Any] = []
        best_value = float("-inf")
        for command in legal:
            value = sum(self.value(engine, engine.fold(w, engine.decide(w, seat, command)), seat) for w in worlds)
            value /= len(worlds)
            if value > best_value + self.tie_tolerance:
                best, best_value = [command], value
            elif abs(value - best_value) <= self.tie_tolerance:
                best.append(command)
        return rng.choice(best)


BOT_NAMES: tuple[str, ...] = ("random", "greedy", "mcts")  # what a bot seat may ask for (``{"bot": name}``)


def make_bot(name: str, level: int | None = None) -> Any:
    """The bot a bot seat names.  ``level`` (1..3, None: the default) sets the search bot's budget; bots
    without levels ignore it.  Raises ValueError for an unknown name or level (services answer it as a bad
    option)."""
    if name == "random":
        return RandomBot()
    if name == "greedy":
        return GreedyBot()
    if name == "mcts":
        return SearchBot() if level is None else SearchBot(level)
    raise ValueError(f"unknown bot {name!r}: choose one of {', '.join(BOT_NAMES)}")


def play_out(
    engine: AnyEngine,
    events: list[Any],
    bots: dict[int, Any],
    rng: random.Random,
    max_commands: int | None = None,
) -> tuple[Any, list[Any], int]:
    """Play a game from ``events`` to its end with one bot per seat (seats absent from ``bots`` use the
    random bot).  Returns (final state, all events, commands played).  Raises RuntimeError past the bound."""
    bound = engine.playout_bound if max_commands is None else max_commands
    state = engine.replay(events)
    events = list(events)
    fallback = RandomBot()
    commands = 0
    while (prompt := engine.prompt(state)) is not None:
        if commands >= bound:
            raise RuntimeError(f"{engine.game_type}: no end after {bound} commands")
        seat = prompt.seats[0] if len(prompt.seats) == 1 else rng.choice(prompt.seats)
        command = bots.get(seat, fallback).choose(engine, state, seat, rng)
        new = engine.decide(state, seat, command)
        state = engine.fold(state, new)
        events.extend(new)
        commands += 1
    return state, events, commands
