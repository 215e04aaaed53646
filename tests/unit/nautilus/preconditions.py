"""What must hold of the state an event is applied to (issue 36): an event never acts on a researcher,
submarine, chip, tile or Nemo that is no longer there.  The property tests check it for every event of their
playouts, so a step of a dive (a Tempo move, a Trial peek, an Atlantis bonus move) that acts on what an earlier
step of the same dive changed shows here."""

from __future__ import annotations

from typing import Any

from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.derived import city
from benthic.rules.nautilus.state import NO_CELL, State


def _chip_at(state: State, cell: tuple[int, int]) -> str:
    space = C.find_space_at.get(C.cell(*cell))
    return state.finds[space] if space is not None else ""


def check_event_applies(state: State, event: Any) -> None:
    """Raises AssertionError when ``event`` acts on something ``state`` no longer has."""
    if not state.round:
        return  # the setup events lay the game out
    seat = getattr(event, "seat", None)
    if isinstance(event, ev.NemoTransferred) and isinstance(event.from_, int):
        assert state.seats[event.from_].nemo >= event.amount, f"seat {event.from_} pays more Nemo than it has"
    elif isinstance(event, ev.ResearcherMoved):
        station = city(state).index.get(event.from_)
        assert station is not None and state.occupancy[station][event.seat] > 0, \
            f"no researcher of seat {event.seat} in {event.from_}"
    elif isinstance(event, ev.ResearcherPlaced):
        assert state.seats[event.seat].supply > 0, "a researcher placed from an empty supply"
    elif isinstance(event, ev.SubMoved):
        assert state.seats[event.seat].subs[event.sub - 1] == C.cell(*event.from_), f"sub {event.sub} is elsewhere"
    elif isinstance(event, ev.SubWithdrawn):
        assert state.seats[event.seat].subs[event.sub - 1] == C.cell(*event.cell), f"sub {event.sub} is elsewhere"
    elif isinstance(event, ev.SubLaunched):
        assert NO_CELL in state.seats[event.seat].subs
    elif isinstance(event, (ev.FindRecovered, ev.FindUnaffordable, ev.FindRemoved, ev.FindRevealed)):
        assert _chip_at(state, event.cell) == event.chip, f"{event.chip} is not on {event.cell}"
        if isinstance(event, ev.FindRecovered):
            assert seat is not None and state.seats[seat].nemo >= event.cost
    elif isinstance(event, ev.FindsPeeked):
        for chip in event.chips:
            assert _chip_at(state, chip.cell) == chip.chip, f"peeked at {chip.cell}, which no longer holds the chip"
    elif isinstance(event, ev.StationBuilt):
        assert any(h.tile == event.tile for h in state.seats[event.seat].held), f"{event.tile} is not held"
    elif isinstance(event, ev.AtlantisToTracker):
        assert state.atlantis_finder[event.number - 1] is None, f"Atlantis {event.number} marked twice"
