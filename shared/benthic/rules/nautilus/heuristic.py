"""A simple evaluation for the generic greedy bot (one-step look-ahead).

The final score the seat would get now, with the research multiplier credited for progress (a type with
one active station is half-way to a point), plus rough Nemo values for the means of raising it: stations
held and owned, researchers in the city, deployed submarines and their distance to the nearest face-down
find.  The weights make the usual investments (buying, building near the base, activating, launching,
recovering) look worth their price, so greedy bots play a real game and spend their money, which ends it.
"""

from __future__ import annotations

from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.derived import research_value
from benthic.rules.nautilus.scoring import atlantis_awards, tableau_points
from benthic.rules.nautilus.state import NO_CELL, State

HELD_TILE = 1.3
HELD_STAFF = 1.0
RESEARCHER_IN_CITY = 1.2
OWNED_STATION = 3.0
ACTIVE_STATION = 1.0
DEPLOYED_SUB = 1.3
FIND_DISTANCE = 0.05


def heuristic(state: State, seat: int) -> float:
    s = state.seats[seat]
    research = sum(
        research_value(state, seat, t) + (0.5 if count == 1 else 0.0) for t, count in enumerate(s.counts)
    )
    sea = tableau_points(state, seat) + atlantis_awards(state)[seat].points + 0.3 * len(s.tableau)
    held = HELD_TILE * len(s.held) + HELD_STAFF * sum(h.staff for h in s.held)
    in_city = RESEARCHER_IN_CITY * sum(row[seat] for row in state.occupancy)
    owned = OWNED_STATION * sum(1 for st in state.stations if st.owner == seat)
    active = ACTIVE_STATION * sum(s.counts)
    subs = [c for c in s.subs if c != NO_CELL]
    return (
        max(research, 1.0) * sea
        + s.nemo
        + held
        + in_city
        + owned
        + active
        + DEPLOYED_SUB * len(subs)
        - FIND_DISTANCE * sum(_nearest_find(state, c) for c in subs)
    )


def _nearest_find(state: State, cell: int) -> int:
    x, y = C.xy(cell)
    best = C.width + C.height
    for space, chip in enumerate(state.finds):
        if chip and not state.face_up[space]:
            fx, fy = C.xy(C.find_space_cell[space])
            best = min(best, abs(fx - x) + abs(fy - y))
    return best
