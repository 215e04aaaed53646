"""Given-states of the spec's acceptance scenarios (§10.1), built by folding events.

A ``Game`` starts from the engine's own setup events (start seat 0, first-game base) with a *test deal*
(each depth's chips in reverse id order onto that depth's find spaces, then the chips a scenario names
swapped onto their cells).  History is added with real commands (turns are "teleported" with
``turn_started`` events) or with hand-written events for things the scenario just asserts (money,
researchers, submarines already on the board).
"""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from benthic.rules import GameConfig, RuleViolation, get_engine
from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.decide import report_activation
from benthic.rules.nautilus.derived import city
from benthic.rules.nautilus.evolve import evolve
from benthic.rules.nautilus.flow import Emitter
from benthic.rules.nautilus.state import NO_CELL, State

ENGINE = get_engine("nautilus")
RED, ORANGE, VIOLET, YELLOW = 0, 1, 2, 3


def deal(chips: dict[tuple[int, int], str] | None = None) -> ev.SeaFindsDealt:
    at: dict[tuple[int, int], str] = {}
    for depth in C.depths:
        spaces = [C.xy(C.find_space_cell[i]) for i, d in enumerate(C.find_space_depth) if d == depth]
        for cell, chip in zip(spaces, reversed(C.chips_by_depth[depth]), strict=True):
            at[cell] = chip
    for cell, chip in (chips or {}).items():
        assert C.chips[chip].depth == C.find_space_depth[C.find_space_at[C.cell(*cell)]], (cell, chip)
        current = next(c for c, x in at.items() if x == chip)
        at[current], at[cell] = at[cell], chip
    return ev.SeaFindsDealt(placements=tuple(ev.Placement(cell=c, chip=x, depth=C.chips[x].depth)
                                             for c, x in at.items()))


class Game:
    """A game under test: its events and state, with helpers to act and to set the scene."""

    def __init__(
        self,
        seats: int = 4,
        options: dict[str, Any] | None = None,
        chips: dict[tuple[int, int], str] | None = None,
        cards: list[str] | None = None,
        seed: int = 0,
    ) -> None:
        setup = ENGINE.start(GameConfig(seats=seats, seed=seed, options={"start_seat": 0, **(options or {})}))
        self.events: list[Any] = []
        for event in setup:
            if isinstance(event, ev.SeaFindsDealt):
                event = deal(chips)
            elif isinstance(event, ev.AssignmentDealt) and cards is not None:
                event = ev.AssignmentDealt(seat=event.seat, card=cards[event.seat])
            self.events.append(event)
        self.state: State = ENGINE.replay(self.events)

    # --- acting -------------------------------------------------------------------------------------
    def apply(self, *events: Any) -> None:
        for event in events:
            self.state = ENGINE.evolve(self.state, event)
            self.events.append(event)

    def do(self, seat: int, command: Any) -> list[Any]:
        events = ENGINE.decide(self.state, seat, command)
        self.apply(*events)
        return events

    def reject(self, seat: int, command: Any) -> str:
        before = ENGINE.encode_state(self.state)
        with pytest.raises(RuleViolation) as info:
            ENGINE.decide(self.state, seat, command)
        assert ENGINE.encode_state(self.state) == before
        assert info.value.message
        return info.value.code

    def legal(self, seat: int) -> list[Any]:
        return ENGINE.legal_commands(self.state, seat)

    # --- setting the scene -----------------------------------------------------------------------------
    def turn(self, seat: int, phase: int, round_: int | None = None) -> None:
        """Make it ``seat``'s turn of ``phase`` now (a fresh turn)."""
        self.apply(ev.TurnStarted(round=round_ or self.state.round, phase=phase, seat=seat))

    def round(self, number: int, start_seat: int = 0, final: bool = False) -> None:
        self.apply(ev.RoundStarted(round=number, start_seat=start_seat, final_round=final))

    def build(self, seat: int, tile: str, anchor: tuple[int, int], rotation: int, staff: int = 0) -> None:
        """Buy the tile (it must be on top of its stack) and build it, in a turn of its own."""
        self.hold(seat, tile, staff)
        self.turn(seat, 1)
        self.do(seat, cmd.BuildStation(tile=tile, anchor=anchor, rotation=rotation))

    def hold(self, seat: int, tile: str, staff: int = 0) -> None:
        """The seat bought ``tile`` in an earlier turn (paid nothing here; money is set separately)."""
        stack = C.tiles[tile].stack
        assert stack is not None and tile in self.state.stacks[stack], f"{tile} is not in its stack"
        self.apply(ev.StationBought(seat=seat, tile=tile, kind=stack, staff=staff, price=0))

    def set_nemo(self, seat: int, amount: int) -> None:
        delta = amount - self.state.seats[seat].nemo
        if delta > 0:
            self.apply(ev.NemoTransferred(from_="bank", to=seat, amount=delta, reason="treasure_chest"))
        elif delta < 0:
            self.apply(ev.NemoTransferred(from_=seat, to="bank", amount=-delta, reason="echo"))

    def researchers(self, seat: int, station: str, n: int = 1) -> list[Any]:
        """Put ``n`` researchers of ``seat`` from supply into a station; the first one activates a research
        station new to the seat (with the engine's own activation: track, 3-chip; no fee)."""
        index = city(self.state).index[station]
        em = Emitter(self.state, evolve)
        for _ in range(n):
            before = em.state
            em.emit(ev.ResearcherPlaced(seat=seat, station=station, source="withdrawal"))
            report_activation(em, before, seat, index)
        events = [e for e in em.events if not isinstance(e, ev.NemoTransferred)]  # a scene: nobody pays
        self.apply(*events)
        return events

    def sub(self, seat: int, sub: int, cell: tuple[int, int]) -> None:
        """A submarine of ``seat`` stands on ``cell`` since an earlier round (launched from the base:
        the researcher lent for it goes straight back, so nothing else changes)."""
        self.apply(
            ev.ResearcherPlaced(seat=seat, station=C.base_tile, source="withdrawal"),
            ev.SubLaunched(seat=seat, sub=sub, station=C.base_tile, cell=cell),
        )

    def empty_supply(self, seat: int) -> None:
        """Park every researcher of the seat's supply in the base."""
        for _ in range(self.state.seats[seat].supply):
            self.apply(ev.ResearcherPlaced(seat=seat, station=C.base_tile, source="withdrawal"))

    def patch(self, **changes: Any) -> None:
        """Scene setting without an event of its own (e.g. the round's activity flags).  Patched states
        are only used to test ``decide`` from there on, never replayed."""
        self.state = replace(self.state, **changes)

    # --- reading -----------------------------------------------------------------------------------------
    def nemo(self, seat: int) -> int:
        return self.state.seats[seat].nemo

    def count(self, seat: int, research_type: str) -> int:
        return self.state.seats[seat].counts[C.research_types.index(research_type)]

    def in_station(self, seat: int, station: str) -> int:
        return self.state.occupancy[city(self.state).index[station]][seat]

    def chip_at(self, cell: tuple[int, int]) -> str:
        return self.state.finds[C.find_space_at[C.cell(*cell)]]

    def sub_at(self, seat: int, sub: int) -> tuple[int, int] | None:
        cell = self.state.seats[seat].subs[sub - 1]
        return None if cell == NO_CELL else C.xy(cell)

    @property
    def prompt(self) -> Any:
        return ENGINE.prompt(self.state)


def names(events: list[Any]) -> list[str]:
    return [ENGINE.event_name(e) for e in events]


def of(events: list[Any], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def first(events: list[Any], kind: type) -> Any:
    found = of(events, kind)
    assert found, (kind.__name__, names(events))
    return found[0]


def one(events: list[Any], kind: type) -> Any:
    found = of(events, kind)
    assert len(found) == 1, (kind.__name__, names(events))
    return found[0]


REF_CITY = [
    (VIOLET, "training_1", (8, 14), 0, 0),
    (VIOLET, "green_01", (5, 14), 0, 4),
    (VIOLET, "training_2", (11, 17), 90, 0),
    (RED, "trial_1", (8, 17), 0, 0),
    (ORANGE, "analysis_1", (11, 11), 270, 0),
    (ORANGE, "blue_01", (14, 14), 0, 4),
]


Chips = dict[tuple[int, int], str] | None


def ref(chips: Chips = None, phase: int = 1, seat: int = 0, **options: Any) -> Game:
    """§10.1 REF: F4 plus the reference city, 30 Nemo each, round 5, start seat 0."""
    game = Game(4, options=options, chips=chips)
    for owner, tile, anchor, rotation, staff in REF_CITY:
        game.build(owner, tile, anchor, rotation, staff)
    game.researchers(RED, "trial_1")
    for s in range(4):
        game.set_nemo(s, 30)
    game.round(5, 0)
    game.patch(round_built=True)  # round 5 had activity: finishing it must not end the game
    game.turn(seat, phase)
    return game


def ref18(chips: Chips = None, phase: int = 1, seat: int = 0, **options: Any) -> Game:
    """§10.1 REF18: REF after N-18 (Violet 1 in training_1, 1 in training_2, 2 in green_01)."""
    game = ref(chips, phase=2, seat=VIOLET, **options)
    game.do(VIOLET, cmd.MoveResearcher(from_="green_01", to="training_1"))
    game.do(VIOLET, cmd.MoveResearcher(from_="green_01", to="training_2"))
    game.round(6, 1)
    game.patch(round_built=True)
    game.turn(seat, phase)
    return game


GORGE_CITY = [
    (YELLOW, "technology_1", (8, 11), 180),
    (RED, "echo_1", (11, 8), 90),
    (RED, "echo_2", (11, 5), 90),
    (RED, "trial_2", (11, 2), 90),
]


def gorge(chips: Chips = None, phase: int = 1, seat: int = 0, **options: Any) -> Game:
    """§10.1 GORGE: REF plus technology_1, echo_1, echo_2 and trial_2 (builders as listed)."""
    game = ref(chips, **options)
    for owner, tile, anchor, rotation in GORGE_CITY:
        game.build(owner, tile, anchor, rotation)
    for s in range(4):
        game.set_nemo(s, 30)
    game.round(5, 0)
    game.patch(round_built=True)
    game.turn(seat, phase)
    return game
