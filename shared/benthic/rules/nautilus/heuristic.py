"""A simple evaluation for the generic greedy bot: the final score the seat would get now, plus small
credits for the means of raising it (held stations, researchers at work, deployed submarines)."""

from __future__ import annotations

from benthic.rules.nautilus.derived import research_points
from benthic.rules.nautilus.scoring import atlantis_awards, tableau_points
from benthic.rules.nautilus.state import NO_CELL, State


def heuristic(state: State, seat: int) -> float:
    s = state.seats[seat]
    atlantis = atlantis_awards(state)[seat].points
    research = research_points(state, seat) + 0.4 * sum(1 for c in s.counts if c == 1)
    sea = tableau_points(state, seat) + atlantis + 0.3 * len(s.tableau)
    on_board = sum(row[seat] for row in state.occupancy)
    deployed = sum(1 for c in s.subs if c != NO_CELL)
    development = 0.8 * len(s.held) + 0.5 * on_board + 0.6 * deployed
    return max(research, 0.5) * max(sea, 0.5) + s.nemo + development
