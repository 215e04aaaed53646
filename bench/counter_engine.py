"""The trivial two-player counter game of the peer benchmark (bench/peer_bench.py), as a Benthic engine.

Two seats take turns; the only command is ``increment``; the game ends after ``moves`` increments (option,
default 100).  Nothing is hidden and nothing is random, so every byte the platform spends on a move is the
platform's own cost: the same game runs on boardgame.io in bench/peer/counter.js.  It is registered only
through ``BENTHIC_EXTRA_ENGINES=bench.counter_engine:ENGINE``, never in the product.
"""

from __future__ import annotations

import random
from typing import Any, Union

import msgspec

from benthic.rules import Engine, FinalScores, GameConfig, Prompt, RuleViolation, SeatResult, Secret

DEFAULT_MOVES = 100
MAX_MOVES = 10_000


class Increment(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", tag="increment"):
    pass


class CounterStarted(msgspec.Struct, frozen=True, tag_field="type", tag="counter_started"):
    seats: int
    seed: int
    options: dict[str, int]


class Incremented(msgspec.Struct, frozen=True, tag_field="type", tag="incremented"):
    seat: int
    count: int


class CounterState(msgspec.Struct, frozen=True):
    version: int = 0
    seed: int = 0
    seats: int = 0
    moves: int = 0  # the game ends when count reaches it
    count: int = 0
    turn: int = 0
    increments: tuple[int, ...] = ()  # per seat


class CounterEngine(Engine):
    game_type = "counter"
    version = "counter/1"
    min_seats = 2
    max_seats = 2
    command_type = Increment
    event_type = Union[CounterStarted, Incremented]  # noqa: UP007 - a runtime Union for msgspec
    state_type = CounterState
    playout_bound = MAX_MOVES

    def start(self, config: GameConfig) -> list[Any]:
        if not self.min_seats <= config.seats <= self.max_seats:
            raise RuleViolation("invalid_player_count", "counter: exactly 2 players")
        unknown = sorted(set(config.options) - {"moves"})
        if unknown:
            raise RuleViolation("invalid_option", f"counter: unknown options {unknown}; the only one is `moves`")
        moves = config.options.get("moves", DEFAULT_MOVES)
        if type(moves) is not int or not 1 <= moves <= MAX_MOVES:
            raise RuleViolation("invalid_option", f"counter: `moves` is an integer from 1 to {MAX_MOVES}")
        return [CounterStarted(config.seats, config.seed, {"moves": moves})]

    def initial_state(self) -> CounterState:
        return CounterState()

    def evolve(self, state: CounterState, event: Any) -> CounterState:
        if isinstance(event, CounterStarted):
            return CounterState(state.version + 1, event.seed, event.seats, event.options["moves"], 0, 0,
                                (0,) * event.seats)
        increments = list(state.increments)
        increments[event.seat] += 1
        return CounterState(state.version + 1, state.seed, state.seats, state.moves, event.count,
                            (event.seat + 1) % state.seats, tuple(increments))

    def prompt(self, state: CounterState) -> Prompt | None:
        if state.count >= state.moves:
            return None
        return Prompt("increment", (state.turn,), {"count": state.count, "moves": state.moves})

    def decide(self, state: CounterState, seat: int, command: Any) -> list[Any]:
        prompt = self.prompt(state)
        if prompt is None:
            raise RuleViolation("game_over", "counter: the game ended after its last move")
        if seat not in prompt.seats:
            raise RuleViolation("not_your_turn", f"counter: seats alternate; it is seat {state.turn}'s turn")
        return [Incremented(seat, state.count + 1)]

    def legal_commands(self, state: CounterState, seat: int) -> list[Any]:
        prompt = self.prompt(state)
        return [Increment()] if prompt is not None and seat in prompt.seats else []

    def view(self, state: CounterState, seat: int | None) -> dict[str, Any]:
        return {"count": state.count, "moves": state.moves, "turn": state.turn, "increments": list(state.increments)}

    def redact(self, event: Any, seat: int | None) -> dict[str, Any] | None:
        return msgspec.to_builtins(event)  # type: ignore[no-any-return]

    def secrets(self, state: CounterState) -> list[Secret]:
        return []

    def determinize(self, state: CounterState, seat: int, rng: random.Random) -> CounterState:
        return state  # nothing is hidden, nothing is random

    def final_scores(self, state: CounterState) -> FinalScores:
        order = sorted(range(state.seats), key=lambda s: (-state.increments[s], s))
        results: list[SeatResult] = []
        for i, seat in enumerate(order):
            tied = i > 0 and state.increments[seat] == state.increments[order[i - 1]]
            rank = results[-1].rank if tied else i + 1
            results.append(SeatResult(seat, state.increments[seat], rank, {"increments": state.increments[seat]}))
        return FinalScores(tuple(results))

    def heuristic(self, state: CounterState, seat: int) -> float:
        return float(state.increments[seat] - sum(state.increments) / max(1, state.seats))


ENGINE = CounterEngine()
