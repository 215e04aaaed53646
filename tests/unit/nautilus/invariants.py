"""The invariants of spec §6.14, checked after every event of the property tests."""

from __future__ import annotations

from collections import Counter

from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.derived import city
from benthic.rules.nautilus.state import NO_CELL, State

T = C.tables


def check_state(state: State) -> None:
    if not state.round:  # setup still in progress
        return
    town = city(state)
    # resources and component counts
    for seat, s in enumerate(state.seats):
        assert s.nemo >= 0, f"seat {seat} has {s.nemo} Nemo"
        on_board = sum(row[seat] for row in state.occupancy)
        staff = sum(h.staff for h in s.held)
        assert s.supply >= 0, f"seat {seat} supply"
        assert s.supply + on_board + staff == T.researchers_per_player, f"seat {seat} researchers"
        assert len(s.subs) == T.subs_per_player
        assert len(s.held) <= T.hand_limit
    tiles = [t for stack in state.stacks.values() for t in stack]
    tiles += [h.tile for s in state.seats for h in s.held] + [st.tile for st in state.stations]
    assert sorted(tiles) == sorted(C.tiles), "tiles are not conserved"
    chips = [c for c in state.finds if c] + [c for s in state.seats for c in s.tableau] + list(state.box)
    chips += [C.atlantis_chip[i + 1] for i, out in enumerate(state.atlantis_out) if out]
    assert sorted(chips) == sorted(C.chips), "chips are not conserved"
    assert all(out for out, f in zip(state.atlantis_out, state.atlantis_finder, strict=True) if f is not None)
    assert all(state.finds[i] for i, up in enumerate(state.face_up) if up), "a face-up space without a chip"

    # the board
    subs = [c for s in state.seats for c in s.subs if c != NO_CELL]
    for cell, k in Counter(subs).items():
        assert not town.covered[cell], f"a submarine on covered cell {C.xy(cell)}"
        # §6.14 allows shared cells only with a face-up chip; but once a sub recovers a face-up chip next
        # to another sub (N-39), both stay on the now empty find space.
        assert k == 1 or cell in C.find_space_at, f"{k} submarines on {C.xy(cell)}"
    bx, by = state.base_anchor
    for st in state.stations:
        assert (st.anchor[0] - bx) % C.block_size == 0 and (st.anchor[1] - by) % C.block_size == 0
        assert st.locks == C.tiles[st.tile].board_locks[st.rotation // 90]
    reached = {0}
    frontier = [0]
    while frontier:
        nxt = [j for i in frontier for j in town.adjacency[i] if j not in reached]
        reached.update(nxt)
        frontier = nxt
    assert len(reached) == len(state.stations), "the station graph is not connected"

    # research tracks and 3-chips
    for seat, s in enumerate(state.seats):
        for t, research_type in enumerate(C.research_types):
            active = sum(
                1
                for i, st in enumerate(state.stations)
                if C.tiles[st.tile].research_type == research_type and state.occupancy[i][seat]
            )
            assert s.counts[t] == active, f"seat {seat} {research_type}: {s.counts[t]} != {active} active"
    for t in range(len(C.research_types)):
        top = max(s.counts[t] for s in state.seats)
        holder = state.three_chips[t]
        if top >= 2:
            assert holder is not None and state.seats[holder].counts[t] == top, f"3-chip {t} misplaced"
        else:
            assert holder is None


def check_step(before: State, after: State) -> None:
    """What must hold between two consecutive states."""
    if not before.round:
        return
    for seat, (a, b) in enumerate(zip(before.seats, after.seats, strict=True)):
        assert all(y >= x for x, y in zip(a.counts, b.counts, strict=True)), f"seat {seat}: a research count fell"
    for i, row in enumerate(before.occupancy):
        for seat in range(before.player_count):
            if row[seat] and C.tiles[before.stations[i].tile].kind == "research":
                assert after.occupancy[i][seat], f"seat {seat} left {before.stations[i].tile}"
    for t in range(len(C.research_types)):
        holder = before.three_chips[t]
        if holder is not None and before.seats[holder].counts[t] == 4:
            assert after.three_chips[t] == holder, "a 3-chip held with 4 stations moved"
    assert after.gorge_open >= before.gorge_open


class TurnOrder:
    """Phase 1, 2, 3 each visit every seat once per round, in order from the start seat."""

    def __init__(self) -> None:
        self.expected: list[tuple[int, int, int]] = []

    def round_started(self, round_: int, start: int, n: int) -> None:
        assert not self.expected, f"round {round_} started before {self.expected[:1]}"
        order = [(start + i) % n for i in range(n)]
        self.expected = [(round_, phase, seat) for phase in (1, 2, 3) for seat in order]

    def turn_started(self, round_: int, phase: int, seat: int) -> None:
        turn = (round_, phase, seat)
        assert self.expected and self.expected[0] == turn, (turn, self.expected[:1])
        self.expected.pop(0)

    def round_ended(self) -> None:
        assert not self.expected, f"round ended before {self.expected[:1]}"
