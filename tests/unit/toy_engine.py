"""A tiny game used only to test the engine harness itself (never registered in the product)."""

from __future__ import annotations

import random

import msgspec

from benthic.rules import Engine, FinalScores, GameConfig, Prompt, RuleViolation, SeatResult, Secret, rng_for
from benthic.rules.determinize import fresh_seed, redeal


class Play(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", tag="play"):
    card: str


class Pass(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type", tag="pass_turn"):
    pass


class Started(msgspec.Struct, frozen=True, tag_field="type", tag="started"):
    seats: int
    seed: int
    hands: list[list[str]]


class Played(msgspec.Struct, frozen=True, tag_field="type", tag="played"):
    seat: int
    card: str


class Passed(msgspec.Struct, frozen=True, tag_field="type", tag="passed"):
    seat: int


class State(msgspec.Struct, frozen=True):
    version: int = 0
    seed: int = 0
    seats: int = 0
    hands: tuple[tuple[str, ...], ...] = ()
    table: tuple[str, ...] = ()
    turn: int = 0
    scores: tuple[int, ...] = ()


class ToyEngine(Engine):
    game_type = "toy"
    version = "toy/1"
    min_seats = 2
    max_seats = 3
    command_type = Play | Pass
    event_type = Started | Played | Passed
    state_type = State
    playout_bound = 100

    def start(self, config: GameConfig) -> list:
        if not self.min_seats <= config.seats <= self.max_seats:
            raise RuleViolation("invalid_player_count", "2 or 3 players")
        if config.options:
            raise RuleViolation("invalid_option", f"unknown options {sorted(config.options)}")
        cards = [f"k{i}" for i in range(1, 10)]
        rng_for(config.seed, 0).shuffle(cards)
        return [Started(config.seats, config.seed, [cards[i::config.seats][:3] for i in range(config.seats)])]

    def initial_state(self) -> State:
        return State()

    def evolve(self, state: State, event) -> State:
        v = state.version + 1
        if isinstance(event, Started):
            hands = tuple(tuple(h) for h in event.hands)
            return State(v, event.seed, event.seats, hands, (), 0, (0,) * event.seats)
        seat = event.seat
        hands, scores = list(state.hands), list(state.scores)
        table = state.table
        if isinstance(event, Played):
            hands[seat] = tuple(c for c in hands[seat] if c != event.card)
            scores[seat] += int(event.card[1:])
            table = (*table, event.card)
        return msgspec.structs.replace(
            state, version=v, hands=tuple(hands), table=table, scores=tuple(scores),
            turn=(state.turn + 1) % state.seats,
        )

    def prompt(self, state: State) -> Prompt | None:
        if all(not h for h in state.hands):
            return None
        return Prompt("turn", (state.turn,))

    def decide(self, state: State, seat: int, command) -> list:
        prompt = self.prompt(state)
        if prompt is None:
            raise RuleViolation("game_over", "the game is over")
        if seat not in prompt.seats:
            raise RuleViolation("not_your_turn", "wait for your turn")
        if isinstance(command, Play):
            if command.card not in state.hands[seat]:
                raise RuleViolation("card_not_in_hand", "you can only play a card from your hand")
            return [Played(seat, command.card)]
        return [Passed(seat)]

    def legal_commands(self, state: State, seat: int) -> list:
        prompt = self.prompt(state)
        if prompt is None or seat not in prompt.seats:
            return []
        return [Play(c) for c in state.hands[seat]] + [Pass()]

    def view(self, state: State, seat: int | None) -> dict:
        return {
            "hand": list(state.hands[seat]) if seat is not None else None,
            "hand_counts": [len(h) for h in state.hands],
            "table": list(state.table),
            "scores": list(state.scores),
        }

    def redact(self, event, seat: int | None) -> dict | None:
        data = msgspec.to_builtins(event)
        if isinstance(event, Started):
            return {"type": "started", "seats": event.seats,
                    "hand": event.hands[seat] if seat is not None else None}
        return data

    def secrets(self, state: State) -> list[Secret]:
        return [Secret(c, frozenset({s})) for s, h in enumerate(state.hands) for c in h]

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        """The other hands dealt again from every card the seat does not see (the undealt ones too)."""
        seen = {*state.hands[seat], *state.table}
        others = [s for s in range(state.seats) if s != seat]
        places = [("card", c) for s in others for c in state.hands[s]]
        dealt = {c for h in state.hands for c in h}
        spare = [("card", f"k{i}") for i in range(1, 10) if f"k{i}" not in dealt | seen]
        new = iter(redeal(places, rng, spare))
        hands = tuple(h if s == seat else tuple(next(new) for _ in h) for s, h in enumerate(state.hands))
        return msgspec.structs.replace(state, seed=fresh_seed(rng), hands=hands)

    def final_scores(self, state: State) -> FinalScores:
        order = sorted(range(state.seats), key=lambda s: (-state.scores[s], s))
        results, rank = [], 0
        for i, s in enumerate(order):
            if i == 0 or state.scores[s] != state.scores[order[i - 1]]:
                rank = i + 1
            results.append(SeatResult(s, state.scores[s], rank, {}))
        return FinalScores(tuple(results))

    def heuristic(self, state: State, seat: int) -> float:
        return state.scores[seat]


class LeakyToyEngine(ToyEngine):
    def view(self, state: State, seat: int | None) -> dict:
        return {**super().view(state, seat), "all_hands": [list(h) for h in state.hands]}
