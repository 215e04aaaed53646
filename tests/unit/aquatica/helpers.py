"""Fixture builder and driver for the Aquatica tests (spec §10 conventions).

``new_game`` starts a real game (first seat 0 unless said otherwise); the ``with_*`` functions rearrange
components of a state so a scenario's situation holds, keeping every component somewhere (a Location put
on a board or in a row is taken from wherever it was).  ``Table`` drives a state with commands written as
in the spec: ``t.do(0, "acquire", location_id="SS03", slot=2, mode="buy")``.
"""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from benthic.rules import GameConfig, RuleViolation, get_engine
from benthic.rules.aquatica.content import catalog
from benthic.rules.aquatica.state import BoardLocation, Manta, State

ENGINE = get_engine("aquatica")
CAT = catalog()


def new_game(seats: int = 2, seed: int = 1, **options: Any) -> State:
    options.setdefault("first_seat", 0)
    return ENGINE.replay(ENGINE.start(GameConfig(seats=seats, seed=seed, options=options)))


def cmd(type_: str, **fields: Any) -> Any:
    """A command from its JSON form, exactly as a client posts it."""
    return ENGINE.decode_command({"type": type_, **fields})


def names(events: list[Any]) -> list[str]:
    return [ENGINE.event_name(e) for e in events]


def of_type(events: list[Any], name: str) -> list[Any]:
    return [e for e in events if ENGINE.event_name(e) == name]


def one(events: list[Any], name: str) -> Any:
    found = of_type(events, name)
    assert len(found) == 1, f"expected one {name} in {names(events)}"
    return found[0]


def edit_player(state: State, seat: int, **changes: Any) -> State:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return replace(state, players=tuple(players))


def parse_board(spec: dict[int, str]) -> dict[int, tuple[str, int]]:
    """{slot: "SB13@0"} -> {slot: ("SB13", 0)}; "SB01" alone means covered 0."""
    out = {}
    for slot, text in spec.items():
        location_id, _, covered = text.partition("@")
        out[slot] = (location_id, int(covered or 0))
    return out


def with_locations(
    state: State,
    *,
    top: list[str] | None = None,
    bottom: list[str] | None = None,
    boards: dict[int, dict[int, str]] | None = None,
    scored: dict[int, tuple[str, ...]] | None = None,
    deck_size: int | None = None,
) -> State:
    """Put Locations in the rows, on boards and in Scoring Piles; the others stay in the deck (in deck
    order), and a deck larger than `deck_size` gives its bottom cards to the Location discard pile."""
    placed_boards = {seat: parse_board(b) for seat, b in (boards or {}).items()}
    scored = scored or {}
    placed = {loc for b in placed_boards.values() for loc, _ in b.values()} | {x for p in scored.values() for x in p}
    top = [x for x in state.top_row if x not in placed] if top is None else top
    bottom = [x for x in state.bottom_row if x not in placed] if bottom is None else bottom
    used = set(top) | set(bottom) | placed
    for seat, p in enumerate(state.players):
        if seat not in placed_boards:
            used |= {bl.location_id for bl in p.board if bl is not None}
        used |= set(scored.get(seat, p.scored))
    for seat, pile in scored.items():
        state = edit_player(state, seat, scored=tuple(pile))
    pool = [x for x in state.location_deck + state.top_row + state.bottom_row + state.location_discard
            if x not in used]
    deck, discard = (pool, []) if deck_size is None else (pool[:deck_size], pool[deck_size:])
    state = replace(state, top_row=tuple(top), bottom_row=tuple(bottom), location_deck=tuple(deck),
                    location_discard=tuple(discard))
    for seat, board in placed_boards.items():
        cells: list[BoardLocation | None] = [None] * 5
        for slot, (loc, covered) in board.items():
            cells[slot] = BoardLocation(loc, covered)
        state = edit_player(state, seat, board=tuple(cells))
    return state


def with_cards(state: State, seat: int, *, hand: list[str] | None = None, discard: list[str] | None = None) -> State:
    """Set a seat's hand and discard pile (cards named without the `S{seat}-` prefix get it)."""
    def full(card: str) -> str:
        return card if card in CAT.card else f"S{seat}-{card}"

    changes: dict[str, Any] = {}
    if hand is not None:
        changes["hand"] = tuple(full(c) for c in hand)
    if discard is not None:
        changes["discard"] = tuple(full(c) for c in discard)
    state = edit_player(state, seat, **changes)
    # an Ocean Character put in a hand leaves the row / deck
    taken = set(changes.get("hand", ())) | set(changes.get("discard", ()))
    return replace(
        state,
        ocean_deck=tuple(c for c in state.ocean_deck if c not in taken),
        character_row=tuple(None if c in taken else c for c in state.character_row),
    )


def with_mantas(state: State, seat: int, *, tired: tuple[str, ...] = (), wild: tuple[str, ...] = (),
                wild_tired: tuple[str, ...] = ()) -> State:
    """Tire some of the seat's Mantas and give it Wild Mantas of the given kinds (taken from the reserve)."""
    p = state.players[seat]
    mantas = [replace(m, ready=m.id not in tired) for m in p.mantas]
    reserve = list(state.wild_reserve)
    for kind, ready in [(k, True) for k in wild] + [(k, False) for k in wild_tired]:
        index = CAT.wild_index[kind]
        taken = CAT.wild_counts[index] - reserve[index]
        mantas.append(Manta(CAT.wild_manta_id(kind, taken), kind, ready))
        reserve[index] -= 1
    state = replace(state, wild_reserve=tuple(reserve))
    return edit_player(state, seat, mantas=tuple(mantas))


class Table:
    """Drives a state with commands and keeps every event."""

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Any] = []

    def do(self, seat: int, type_: str, **fields: Any) -> list[Any]:
        new = ENGINE.decide(self.state, seat, cmd(type_, **fields))
        self.state = ENGINE.fold(self.state, new)
        self.events.extend(new)
        return new

    def reject(self, seat: int, type_: str, code: str, **fields: Any) -> RuleViolation:
        before = ENGINE.encode_state(self.state)
        with pytest.raises(RuleViolation) as info:
            ENGINE.decide(self.state, seat, cmd(type_, **fields))
        assert info.value.code == code, info.value
        assert "§" in info.value.message, "every RuleViolation names its rule"
        assert ENGINE.encode_state(self.state) == before
        return info.value

    @property
    def prompt(self) -> Any:
        return ENGINE.prompt(self.state)

    def player(self, seat: int = 0) -> Any:
        return self.state.players[seat]

    def board(self, seat: int = 0) -> dict[int, str]:
        return {slot: f"{bl.location_id}@{bl.covered}" for slot, bl in enumerate(self.player(seat).board)
                if bl is not None}

    def manta(self, manta_id: str, seat: int = 0) -> Manta:
        return next(m for m in self.player(seat).mantas if m.id == manta_id)

    def play_first_legal(self, seat: int) -> list[Any]:
        """Answer the current prompt with its first legal command that is not a claim."""
        command = next(c for c in self.legal(seat) if c.__struct_config__.tag != "claim_goal")
        fields = ENGINE.command_to_builtins(command)
        return self.do(seat, fields.pop("type"), **fields)

    def legal(self, seat: int = 0) -> list[Any]:
        return ENGINE.legal_commands(self.state, seat)
