"""The search bot (``mcts``): information-set Monte Carlo search over the seat's own moves.

The candidates are the seat's best moves by one-step value (its heuristic against the best other seat's) on
a determinization.  Every iteration draws a new determinization (``engine.determinize``: the seat never sees
the true state), picks a candidate by UCB1, plays it, then plays greedy moves (the best of a sample of the
legal commands by the mover's heuristic) until the seat's turn is over (``horizon``) or ``rollout_depth``
commands, and scores the leaf by the same value (a finished game: the score margin, plus a bonus for first
place).  The most visited candidate is played.  The budget is a number of iterations (the level), never a
clock: the same RNG state gives the same move.  Tuning: ``bot_settings.json``.
"""

from __future__ import annotations

import math
import random
from typing import Any

from benthic.rules.bot_settings import BotSettings, bot_settings
from benthic.rules.core import AnyEngine, RuleViolation

LEVELS = (1, 2, 3)
DEFAULT_LEVEL = 2


class SearchBot:
    name = "mcts"

    def __init__(self, level: int = DEFAULT_LEVEL) -> None:
        if level not in LEVELS:
            raise ValueError(f"mcts level must be one of {', '.join(map(str, LEVELS))}, not {level!r}")
        self.level = level

    def choose(self, engine: AnyEngine, state: Any, seat: int, rng: random.Random) -> Any:
        legal = engine.legal_commands(state, seat)  # public to the seat: its own legal commands
        if not legal:
            raise LookupError(f"seat {seat} has no legal command")
        if len(legal) == 1:
            return legal[0]
        settings = bot_settings(engine.game_type)
        world = engine.determinize(state, seat, rng)
        rated = [(value_after(engine, world, seat, command, settings), i) for i, command in enumerate(legal)]
        rated.sort(key=lambda r: -r[0])
        arms = [legal[i] for value, i in rated[: settings.candidates] if value > -math.inf] or legal[:1]
        if len(arms) == 1:
            return arms[0]
        visits = [0] * len(arms)
        totals = [0.0] * len(arms)
        low, high = math.inf, -math.inf
        for iteration in range(settings.levels[self.level - 1]):
            if iteration:
                world = engine.determinize(state, seat, rng)
            arm = _select(visits, totals, settings.exploration * max(high - low, 1e-9))
            value = _simulate(engine, world, seat, arms[arm], settings, rng)
            if value is None:
                continue
            visits[arm] += 1
            totals[arm] += value
            low, high = min(low, value), max(high, value)
        best = max(range(len(arms)), key=lambda a: (visits[a], totals[a] / max(visits[a], 1), -a))
        return arms[best]


def _select(visits: list[int], totals: list[float], scale: float) -> int:
    for arm, n in enumerate(visits):
        if n == 0:
            return arm
    log_n = math.log(sum(visits))
    return max(range(len(visits)), key=lambda a: (totals[a] / visits[a] + scale * math.sqrt(log_n / visits[a]), -a))


def _simulate(engine: AnyEngine, world: Any, seat: int, command: Any, settings: BotSettings,
              rng: random.Random) -> float | None:
    """The leaf value of one iteration; None when the engine rejected a legal command (a defect)."""
    try:
        state = engine.fold(world, engine.decide(world, seat, command))
        others_moved = False
        for _ in range(settings.rollout_depth):
            prompt = engine.prompt(state)
            if prompt is None:
                break
            if settings.horizon == "turn" and seat not in prompt.seats:
                break  # the seat's turn is over: where every move is rated alike
            if seat in prompt.seats and others_moved:
                break  # the seat's next decision after the others' turns
            actor = prompt.seats[0] if len(prompt.seats) == 1 else rng.choice(prompt.seats)
            others_moved = others_moved or actor != seat
            state = engine.fold(state, _rollout_move(engine, state, actor, settings.rollout_sample, rng))
    except RuleViolation:
        return None
    return leaf_value(engine, state, seat, settings)


def _rollout_move(engine: AnyEngine, state: Any, seat: int, sample: int, rng: random.Random) -> list[Any]:
    """The events of a greedy move of the actor (its own heuristic, random among equals), rating at most
    ``sample`` random legal commands."""
    legal = engine.legal_commands(state, seat)
    if len(legal) == 1:
        return engine.decide(state, seat, legal[0])
    if len(legal) > sample:
        legal = rng.sample(legal, sample)
    best: list[list[Any]] = []
    best_value = -math.inf
    for command in legal:
        events = engine.decide(state, seat, command)
        value = engine.heuristic(engine.fold(state, events), seat)
        if value > best_value:
            best, best_value = [events], value
        elif value == best_value:
            best.append(events)
    return best[0] if len(best) == 1 else rng.choice(best)


def value_after(engine: AnyEngine, world: Any, seat: int, command: Any, settings: BotSettings) -> float:
    try:
        after = engine.fold(world, engine.decide(world, seat, command))
    except RuleViolation:  # legal on the true state, so on every determinization: never expected
        return -math.inf
    return leaf_value(engine, after, seat, settings)


def leaf_value(engine: AnyEngine, state: Any, seat: int, settings: BotSettings) -> float:
    """How good ``state`` is for ``seat`` against the best other seat."""
    if engine.is_over(state):
        results = engine.final_scores(state).results
        mine = next(r for r in results if r.seat == seat)
        others = [r.score for r in results if r.seat != seat]
        margin = mine.score - max(others) if others else mine.score
        return margin + (settings.win_bonus if mine.rank == 1 else 0.0)
    own = engine.heuristic(state, seat)
    seats = _seat_count(engine, state)
    others_h = [engine.heuristic(state, s) for s in range(seats) if s != seat]
    return own - max(others_h) if others_h else own


def _seat_count(engine: AnyEngine, state: Any) -> int:
    for field in ("player_count", "seats"):
        value = getattr(state, field, None)
        if isinstance(value, int):
            return value
        if isinstance(value, tuple):
            return len(value)
    return engine.min_seats
