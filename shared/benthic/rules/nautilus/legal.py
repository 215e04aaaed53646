"""Enumeration of the legal commands (spec §5.2): lazy generators per prompt, so that the auto-pass check
can stop at the first real option.  Nothing here looks at the identity of a face-down chip, only at the
presence and depth of chips (§7.2)."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import chain
from typing import Any

from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus.city import City, memo
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.content import STACK_KINDS_RESIDENTIAL, TileDef
from benthic.rules.nautilus.derived import (
    budget,
    city,
    destinations,
    face_down_spaces,
    find_cells,
    is_free,
    is_research,
    sub_cells,
    sub_range,
)
from benthic.rules.nautilus.flow import chips_of_kind, prompt_of
from benthic.rules.nautilus.state import NO_CELL, State

PASS_COMMANDS: dict[str, Any] = {
    "phase1_turn": cmd.EndTurn(),
    "phase2_turn": cmd.EndTurn(),
    "phase3_turn": cmd.EndTurn(),
    "tempo_move": cmd.SkipTempo(),
    "trial_peek": cmd.EndPeeks(),
    "atlantis_bonus": cmd.SkipBonus(),
    "cash_assignment": cmd.CashAssignment(),
}


def block_level(anchor: tuple[int, int]) -> int:
    """Build cost level of a block: the highest zone among its 9 cells (§6.2)."""
    return C.block_level(anchor)


def activation_fee(state: State, seat: int, station: int) -> int:
    """The fee ``seat`` pays when its researcher stops in ``station`` now (§6.4): 1 for a foreign research
    station it does not operate yet, else 0."""
    st = state.stations[station]
    if st.owner is None or st.owner == seat or state.occupancy[station][seat]:
        return 0
    return C.tables.activation_fee


def withdrawal_fee(state: State, seat: int, station: int) -> int:
    return activation_fee(state, seat, station) if state.seats[seat].supply else 0


# --- phase 1 ---------------------------------------------------------------------------------------


def buy_commands(state: State, seat: int) -> Iterator[Any]:
    turn, s = state.turn, state.seats[seat]
    assert turn is not None
    if turn.bought or turn.built or len(s.held) >= C.tables.hand_limit:
        return
    cap = C.player_counts[state.player_count].residential_cap
    for kind in C.stack_kinds:
        if not state.stacks[kind]:
            continue
        if kind in STACK_KINDS_RESIDENTIAL:
            for staff in range(1, min(cap, s.supply, s.nemo // C.tables.researcher_staff_price) + 1):
                yield cmd.BuyStation(kind=kind, staff=staff)
        elif s.nemo >= C.tables.research_station_price:
            yield cmd.BuyStation(kind=kind)


def _colour_masks(locks: tuple[str | None, ...]) -> dict[str, int]:
    """colour -> bit mask of the slots holding a lock of that colour."""
    masks: dict[str, int] = {}
    for slot, lock in enumerate(locks):
        if lock is not None:
            masks[lock] = masks.get(lock, 0) | 1 << slot
    return masks


def _lock_masks(tile: TileDef) -> tuple[tuple[tuple[str, int], ...], ...]:
    """Per rotation of the tile: its (colour, slot mask) pairs."""
    return tuple(tuple(_colour_masks(locks).items()) for locks in tile.board_locks)


def _sites(town: City) -> list[tuple[tuple[int, int], dict[str, int], int, tuple[int, ...]]]:
    """The build sites, each with the colour masks of the locks facing it, its build cost level and cells."""
    return [
        (anchor, _colour_masks(facing), C.block_level(anchor), C.block_cells(*anchor))
        for anchor, facing in town.build_sites()
    ]


def build_commands(state: State, seat: int) -> Iterator[Any]:
    turn, s = state.turn, state.seats[seat]
    assert turn is not None
    if not s.held:
        return
    c = city(state)
    subs = sub_cells(state)
    # after a first build, a pair must meet a station built this turn: per site, the slots facing one
    reach: dict[tuple[int, int], int] = {}
    for built in turn.built:
        x, y = c.stations[c.index[built]].anchor
        for slot, (dx, dy) in enumerate(C.neighbour_offset):
            reach[(x - dx, y - dy)] = reach.get((x - dx, y - dy), 0) | 1 << slot
    sites = []
    affordable = s.nemo + turn.cost_level_paid
    for anchor, facing_masks, level, cells in memo("build_sites", c, _sites):
        if level > affordable or (subs and any(cell in subs for cell in cells)):
            continue
        sites.append((anchor, facing_masks, reach.get(anchor, 0) if turn.built else 255))
    for held in s.held:
        tile = C.tiles[held.tile]
        masks = memo("lock_masks", tile, _lock_masks)
        for rotation in tile.distinct_rotations:
            lock_masks = masks[rotation]
            for anchor, facing_masks, slots in sites:
                # a same-colour lock pair: a slot in both masks of one colour
                if any(facing_masks.get(colour, 0) & mask & slots for colour, mask in lock_masks):
                    yield cmd.BuildStation(tile=held.tile, anchor=anchor, rotation=rotation * 90)


# --- researchers -------------------------------------------------------------------------------------


def _researcher_moves(
    state: State, seat: int, steps_left: int, arrived: tuple[str, ...], bonus: bool
) -> Iterator[Any]:
    c = city(state)
    nemo = state.seats[seat].nemo
    make = cmd.BonusMoveResearcher if bonus else cmd.MoveResearcher
    for a, st in enumerate(state.stations):
        mine = state.occupancy[a][seat]
        if not mine or mine <= arrived.count(st.tile):
            continue
        if mine < 2 and is_research(st):  # the last researcher in a research station is locked
            continue
        dist = c.bfs(a)[0]
        for b, target in enumerate(state.stations):
            if b == a or dist[b] > steps_left:
                continue
            if activation_fee(state, seat, b) > nemo:
                continue
            yield make(from_=st.tile, to=target.tile)


def move_researcher_commands(state: State, seat: int) -> Iterator[Any]:
    turn = state.turn
    assert turn is not None
    if turn.researchers_moved >= C.tables.max_researchers_moved:
        return
    steps_left = budget(state, seat) - turn.steps_used
    yield from _researcher_moves(state, seat, steps_left, turn.arrived, bonus=False)


def bonus_move_commands(state: State, seat: int) -> Iterator[Any]:
    yield from _researcher_moves(state, seat, C.tables.atlantis_bonus_steps, (), bonus=True)


# --- submarines -----------------------------------------------------------------------------------------


def launch_commands(state: State, seat: int) -> Iterator[Any]:
    turn = state.turn
    assert turn is not None
    if not turn.launch_open or NO_CELL not in state.seats[seat].subs:
        return
    c = city(state)
    for i, st in enumerate(state.stations):
        if state.occupancy[i][seat] < 2 or not is_research(st):
            continue
        for cell in c.exit_cells(st, "blue"):
            if is_free(state, cell):
                yield cmd.LaunchSub(station=st.tile, cell=C.xy(cell))


def echo_commands(state: State, seat: int) -> Iterator[Any]:
    turn, s = state.turn, state.seats[seat]
    assert turn is not None
    if not turn.echo_open or s.nemo < C.tables.echo_price:
        return
    for sub, cell in enumerate(s.subs, start=1):
        if cell != NO_CELL and sub not in turn.echoed:
            yield cmd.Echo(sub=sub)


def withdraw_targets(state: State, seat: int, cell: int) -> Iterator[int]:
    """Stations a sub on ``cell`` may be withdrawn into (§6.12): a free cell at a blue lock of a research
    station holding a researcher, the fee affordable."""
    if cell in find_cells(state):
        return
    nemo = state.seats[seat].nemo
    for station in city(state).blue_exits.get(cell, ()):
        if any(state.occupancy[station]) and withdrawal_fee(state, seat, station) <= nemo:
            yield station


def _sub_moves(state: State, seat: int, sub: int, steps: int, tempo: bool) -> Iterator[Any]:
    start = state.seats[seat].subs[sub - 1]
    make = cmd.TempoMove if tempo else cmd.MoveSub
    for cell in destinations(state, seat, start, steps):
        xy = C.xy(cell)
        yield make(sub=sub, to=xy)
        for station in withdraw_targets(state, seat, cell):
            yield make(sub=sub, to=xy, withdraw_into=state.stations[station].tile)


def move_sub_commands(state: State, seat: int) -> Iterator[Any]:
    turn, s = state.turn, state.seats[seat]
    assert turn is not None
    for sub, cell in enumerate(s.subs, start=1):
        if cell != NO_CELL and sub not in turn.moved:
            yield from _sub_moves(state, seat, sub, sub_range(state, seat), tempo=False)


def withdraw_sub_commands(state: State, seat: int) -> Iterator[Any]:
    turn, s = state.turn, state.seats[seat]
    assert turn is not None
    if not state.options.allow_withdraw_in_place:
        return
    for sub, cell in enumerate(s.subs, start=1):
        if cell != NO_CELL and sub not in turn.moved:
            for station in withdraw_targets(state, seat, cell):
                yield cmd.WithdrawSub(sub=sub, station=state.stations[station].tile)


def tempo_commands(state: State, seat: int) -> Iterator[Any]:
    for sub, cell in enumerate(state.seats[seat].subs, start=1):
        if cell != NO_CELL:
            yield from _sub_moves(state, seat, sub, C.tables.tempo_steps, tempo=True)


def peek_commands(state: State, seat: int) -> Iterator[Any]:
    sp = state.sub_prompt
    assert sp is not None
    spaces = [i for i in face_down_spaces(state) if i not in sp.peeked]
    if sp.peeked:
        first_depth = C.find_space_depth[sp.peeked[0]]
        other_depths = [i for i in spaces if C.find_space_depth[i] != first_depth]
        if other_depths:
            spaces = other_depths
    for space in spaces:
        yield cmd.Peek(cell=C.xy(C.find_space_cell[space]))


# --- the end -----------------------------------------------------------------------------------------


def cash_commands(state: State, seat: int) -> Iterator[Any]:
    s = state.seats[seat]
    if s.card is None:
        yield cmd.CashAssignment()
        return
    first, second = C.cards[s.card]
    affordable = s.nemo // C.tables.assignment_upgrade_price
    for a in range(chips_of_kind(s.tableau, first) + 1):
        for b in range(chips_of_kind(s.tableau, second) + 1):
            if a + b <= affordable:
                yield cmd.CashAssignment(upgrades={k: n for k, n in ((first, a), (second, b)) if n})


# --- per prompt --------------------------------------------------------------------------------------------


def choices(state: State, seat: int, kind: str) -> Iterator[Any]:
    """Every legal command of the prompt except its done/skip command."""
    if kind == "phase1_turn":
        return chain(buy_commands(state, seat), build_commands(state, seat))
    if kind == "phase2_turn":
        return move_researcher_commands(state, seat)
    if kind == "phase3_turn":
        return chain(
            launch_commands(state, seat),
            echo_commands(state, seat),
            move_sub_commands(state, seat),
            withdraw_sub_commands(state, seat),
        )
    if kind == "tempo_move":
        return tempo_commands(state, seat)
    if kind == "trial_peek":
        return peek_commands(state, seat)
    if kind == "atlantis_bonus":
        return bonus_move_commands(state, seat)
    if kind == "cash_assignment":
        return (c for c in cash_commands(state, seat) if c.upgrades)
    return iter(())


def has_choice(state: State, seat: int, kind: str) -> bool:
    return next(choices(state, seat, kind), None) is not None


def legal_commands(state: State, seat: int) -> list[Any]:
    prompt = prompt_of(state)
    if prompt is None or seat not in prompt[1]:
        return []
    kind = prompt[0]
    return [PASS_COMMANDS[kind], *choices(state, seat, kind)]
