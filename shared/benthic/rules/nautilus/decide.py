"""``decide``: the events a command produces, or a RuleViolation naming the rule (spec §5, §6).

Checks run in the spec's order, the first failing one gives the error code.  After the command, the
auto-pass rule (§5.2, R-9) resolves every prompt whose only legal command is its done/skip command.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benthic.rules import emitter
from benthic.rules.core import RuleViolation
from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.city import locks_pair
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.content import ROTATIONS, STACK_KINDS_RESIDENTIAL
from benthic.rules.nautilus.derived import (
    RESEARCH_INDEX,
    budget,
    cell_of,
    chest_value,
    city,
    echo_cells,
    echo_range,
    face_down_spaces,
    find_cells,
    is_destination,
    is_free,
    is_research,
    research_value,
    route,
    sub_cells,
    sub_range,
)
from benthic.rules.nautilus.evolve import evolve
from benthic.rules.nautilus.flow import Emitter, atlantis_went_out, cash, chips_of_kind, end_turn, prompt_of
from benthic.rules.nautilus.legal import (
    PASS_COMMANDS,
    activation_fee,
    block_level,
    has_choice,
    withdrawal_fee,
)
from benthic.rules.nautilus.state import NO_CELL, State

ACCEPTED: dict[str, tuple[type, ...]] = {
    "phase1_turn": (cmd.BuyStation, cmd.BuildStation, cmd.EndTurn),
    "phase2_turn": (cmd.MoveResearcher, cmd.EndTurn),
    "phase3_turn": (cmd.LaunchSub, cmd.Echo, cmd.MoveSub, cmd.WithdrawSub, cmd.EndTurn),
    "tempo_move": (cmd.TempoMove, cmd.SkipTempo),
    "trial_peek": (cmd.Peek, cmd.EndPeeks),
    "atlantis_bonus": (cmd.BonusMoveResearcher, cmd.SkipBonus),
    "cash_assignment": (cmd.CashAssignment,),
    "pending": (),
}


def decide(state: State, seat: int, command: Any) -> list[Any]:
    prompt = prompt_of(state)
    if prompt is None:
        raise RuleViolation("game_over", "§5.2: the game is over")
    kind, seats = prompt
    if seat not in seats:
        raise RuleViolation(
            "not_your_turn", f"§5.2: seat {seat} is not prompted (prompt {kind} for seats {list(seats)})"
        )
    if not isinstance(command, ACCEPTED[kind]):
        tag = type(command).__struct_config__.tag
        raise RuleViolation("wrong_prompt", f"§5.2: the {kind} prompt does not accept {tag}")
    em: Emitter = emitter.Emitter(state, evolve)  # the class itself: a typing alias call is slow
    HANDLERS[type(command)](em, seat, command)
    auto_pass(em)
    return em.events


def auto_pass(em: Emitter) -> None:
    """R-9: resolve every prompt whose only legal command is its done/skip command."""
    if not em.state.options.auto_pass:
        return
    while (prompt := prompt_of(em.state)) is not None:
        kind, seats = prompt
        if kind == "cash_assignment":
            idle = [s for s in seats if not has_choice(em.state, s, kind)]
            if not idle:
                return
            for s in idle:
                cash(em, s, {}, auto=True)
            continue
        if not seats or has_choice(em.state, seats[0], kind):
            return
        _pass(em, seats[0], PASS_COMMANDS[kind], auto=True)


# --- phase 1 ---------------------------------------------------------------------------------------


def _turn(em: Emitter) -> Any:
    turn = em.state.turn
    assert turn is not None
    return turn


def buy_station(em: Emitter, seat: int, c: cmd.BuyStation) -> None:
    state = em.state
    if c.kind not in C.stack_kinds:
        raise RuleViolation("invalid_argument", f"§5.3 buy_station: unknown kind {c.kind!r}")
    turn, s = _turn(em), state.seats[seat]
    if turn.bought:
        raise RuleViolation(
            "already_bought", "§5.3 buy_station check 1: you already bought a station this turn"
        )
    if turn.built:
        raise RuleViolation(
            "buy_after_build", "§5.3 buy_station check 2 (R-2): buying comes before your first build"
        )
    if len(s.held) >= C.tables.hand_limit:
        raise RuleViolation(
            "hand_full", f"§5.3 buy_station check 3 (R-4): you already hold {C.tables.hand_limit} stations"
        )
    stack = state.stacks[c.kind]
    if not stack:
        raise RuleViolation("stack_empty", f"§5.3 buy_station check 4: the {c.kind} stack is empty")
    residential = c.kind in STACK_KINDS_RESIDENTIAL
    cap = C.player_counts[state.player_count].residential_cap
    if residential and not 1 <= c.staff <= cap:
        raise RuleViolation(
            "invalid_staff_count", f"§5.3 buy_station check 5 (R-1): staff a residential with 1..{cap}"
        )
    if not residential and c.staff != 0:
        raise RuleViolation(
            "invalid_staff_count", "§5.3 buy_station check 5: a research station takes no staff"
        )
    if c.staff > s.supply:
        raise RuleViolation(
            "not_enough_researchers", f"§5.3 buy_station check 6: only {s.supply} researchers in supply"
        )
    price = c.staff * C.tables.researcher_staff_price if residential else C.tables.research_station_price
    if s.nemo < price:
        raise RuleViolation(
            "insufficient_funds", f"§5.3 buy_station check 7: costs {price} Nemo, you have {s.nemo}"
        )
    em.emit(ev.StationBought(seat=seat, tile=stack[0], kind=c.kind, staff=c.staff, price=price))
    reason = "staff_researchers" if residential else "buy_station"
    em.emit(ev.NemoTransferred(from_=seat, to="bank", amount=price, reason=reason))


def build_station(em: Emitter, seat: int, c: cmd.BuildStation) -> None:
    state = em.state
    tile = C.tiles.get(c.tile)
    if tile is None:
        raise RuleViolation("invalid_argument", f"§5.3 build_station: unknown tile {c.tile!r}")
    if c.rotation not in ROTATIONS:
        raise RuleViolation(
            "invalid_argument", f"§3.5.2: rotation must be one of {list(ROTATIONS)}, not {c.rotation}"
        )
    turn, s = _turn(em), state.seats[seat]
    if all(h.tile != c.tile for h in s.held):
        raise RuleViolation("tile_not_held", f"§5.3 build_station check 1: you do not hold {c.tile}")
    x0, y0 = c.anchor
    if not C.block_on_board(x0, y0):
        raise RuleViolation(
            "off_board", f"§5.3 build_station check 2: the 3×3 block at {[x0, y0]} leaves the board"
        )
    town = city(state)
    if town.block_covered(x0, y0):
        raise RuleViolation("overlaps_station", "§5.3 build_station check 3: the block overlaps a station")
    cells = C.block_cells(x0, y0)
    subs = sub_cells(state)
    if any(cell in subs for cell in cells):
        raise RuleViolation("submarine_in_the_way", "§5.3 build_station check 4: a submarine is on the block")
    locks = tile.board_locks[ROTATIONS.index(c.rotation)]
    docked = []
    for slot in range(8):
        j = town.neighbour((x0, y0), slot)
        if j is not None and locks_pair(locks, slot, state.stations[j].locks):
            docked.append(state.stations[j].tile)
    if not docked:
        raise RuleViolation(
            "no_matching_lock", "§5.3 build_station check 5: no lock meets a same-colour lock"
        )
    if turn.built and not any(t in turn.built for t in docked):
        raise RuleViolation(
            "not_contiguous",
            "§5.3 build_station check 6 (R-5): a further station must share a same-colour lock pair with "
            "a station you built this turn",
        )
    level = block_level((x0, y0))
    paid = max(0, level - turn.cost_level_paid)
    if s.nemo < paid:
        raise RuleViolation(
            "insufficient_funds", f"§5.3 build_station check 7: building costs {paid} more Nemo"
        )
    em.emit(
        ev.StationBuilt(
            seat=seat, tile=c.tile, anchor=(x0, y0), rotation=c.rotation, locks=locks, level=level, paid=paid
        )
    )
    if paid:
        em.emit(ev.NemoTransferred(from_=seat, to="bank", amount=paid, reason="build"))
    finds = find_cells(state)
    for cell in sorted((cell for cell in cells if cell in finds), key=C.xy):
        chip = C.chips[state.finds[finds[cell]]]
        number = chip.atlantis_number
        em.emit(ev.FindRemoved(cell=C.xy(cell), chip=chip.id, kind=chip.kind, atlantis_number=number))
        if chip.atlantis_number is not None:
            em.emit(ev.AtlantisToTracker(number=chip.atlantis_number, seat=None, cause="covered"))
            atlantis_went_out(em, chip.atlantis_number)


def end_turn_command(em: Emitter, seat: int, c: cmd.EndTurn, auto: bool = False) -> None:
    turn = _turn(em)
    if turn.phase == 1:
        _return_held(em, seat)
    end_turn(em, seat, auto)


def _return_held(em: Emitter, seat: int) -> None:
    """§5.3 end_turn, R-3 and the FAQ: returns after a partial build or a turn without buy or build."""
    turn, held = _turn(em), em.state.seats[seat].held
    if not held or (turn.bought and not turn.built):
        return
    reason = "partial_build" if turn.built else "no_buy_no_build"
    em.emit(
        ev.StationsReturned(
            seat=seat,
            tiles=tuple(h.tile for h in held),
            researchers_returned=sum(h.staff for h in held),
            reason=reason,
        )
    )


# --- researchers and activation ------------------------------------------------------------------------


def _board_station(em: Emitter, tile: str, what: str) -> int:
    index = city(em.state).index.get(tile)
    if index is None:
        raise RuleViolation("invalid_argument", f"§5.2: {what} {tile!r} is not a station on the board")
    return index


def move_researcher(em: Emitter, seat: int, c: cmd.MoveResearcher) -> None:
    a = _board_station(em, c.from_, "from")
    b = _board_station(em, c.to, "to")
    state, turn = em.state, _turn(em)
    rule = "§5.4 move_researcher"
    if a == b:
        raise RuleViolation("same_station", f"{rule} check 1: from and to are the same station")
    if turn.researchers_moved >= C.tables.max_researchers_moved:
        raise RuleViolation(
            "move_limit_reached", f"{rule} check 2: at most {C.tables.max_researchers_moved} researchers per turn"
        )
    mine = state.occupancy[a][seat]
    if mine == 0:
        raise RuleViolation("no_researcher_there", f"{rule} check 3: you have no researcher in {c.from_}")
    if mine <= turn.arrived.count(c.from_):
        raise RuleViolation(
            "researcher_already_moved", f"{rule} check 4 (R-6): your researchers in {c.from_} moved already"
        )
    _check_locked_steps_fee(em, seat, a, b, budget(state, seat) - turn.steps_used, rule)
    _move_researcher(em, seat, a, b, "phase2")


def bonus_move_researcher(em: Emitter, seat: int, c: cmd.BonusMoveResearcher) -> None:
    a = _board_station(em, c.from_, "from")
    b = _board_station(em, c.to, "to")
    rule = "§5.5.1 bonus_move_researcher (as §5.4)"
    if a == b:
        raise RuleViolation("same_station", f"{rule} check 1: from and to are the same station")
    if em.state.occupancy[a][seat] == 0:
        raise RuleViolation("no_researcher_there", f"{rule} check 3: you have no researcher in {c.from_}")
    _check_locked_steps_fee(em, seat, a, b, C.tables.atlantis_bonus_steps, rule)
    _move_researcher(em, seat, a, b, "atlantis_bonus")


def _check_locked_steps_fee(em: Emitter, seat: int, a: int, b: int, steps_left: int, rule: str) -> None:
    """Checks 5, 6 and 7 of §5.4 (shared by Phase 2 and the Atlantis bonus)."""
    state = em.state
    if is_research(state.stations[a]) and state.occupancy[a][seat] < 2:
        raise RuleViolation(
            "researcher_locked", f"{rule} check 5 (F-4): your only researcher in an active station stays"
        )
    distance = city(state).distance(a, b)
    if distance > steps_left:
        raise RuleViolation("not_enough_steps", f"{rule} check 6: {distance} steps needed, {steps_left} left")
    fee = activation_fee(state, seat, b)
    if state.seats[seat].nemo < fee:
        raise RuleViolation(
            "insufficient_funds", f"{rule} check 7 (R-8): you cannot pay the activation fee of {fee}"
        )


def _move_researcher(em: Emitter, seat: int, a: int, b: int, source: str) -> None:
    state = em.state
    town = city(state)
    em.emit(
        ev.ResearcherMoved(
            seat=seat,
            from_=state.stations[a].tile,
            to=state.stations[b].tile,
            steps=town.distance(a, b),
            path=town.path(a, b),
            source=source,
        )
    )
    report_activation(em, state, seat, b)


def report_activation(em: Emitter, before: State, seat: int, station: int) -> None:
    """§6.4: if the researcher that just arrived activated ``station`` (``before`` is the state before
    its arrival; ``evolve`` applied track and 3-chip with the arrival), report it and pay the fee."""
    st = before.stations[station]
    research_type = C.tiles[st.tile].research_type
    if research_type is None or before.occupancy[station][seat]:
        return
    fee = activation_fee(before, seat, station)
    em.emit(ev.StationActivated(seat=seat, station=st.tile, research_type=research_type, owner=st.owner, fee=fee))
    if fee:
        assert st.owner is not None
        em.emit(ev.NemoTransferred(from_=seat, to=st.owner, amount=fee, reason="activation_fee"))
    t = RESEARCH_INDEX[research_type]
    holder = em.state.three_chips[t]
    if holder != before.three_chips[t]:
        assert holder is not None
        em.emit(ev.ThreeChipMoved(research_type=research_type, from_seat=before.three_chips[t], to_seat=holder))
    count = em.state.seats[seat].counts[t]
    value = research_value(em.state, seat, t)
    em.emit(ev.ResearchTrackChanged(seat=seat, research_type=research_type, count=count, value=value))


# --- phase 3 -----------------------------------------------------------------------------------------------


def _sub(c: Any) -> int:
    if not 1 <= c.sub <= C.tables.subs_per_player:
        subs = list(range(1, C.tables.subs_per_player + 1))
        raise RuleViolation("invalid_argument", f"§5.2: sub must be one of {subs}, not {c.sub}")
    return int(c.sub)


def _board_cell(xy: tuple[int, int], what: str) -> int:
    cell = cell_of(xy)
    if cell is None:
        raise RuleViolation("invalid_argument", f"§5.2: {what} {list(xy)} is not on the board")
    return cell


def _blue_exit_xys(em: Emitter, station: int) -> list[tuple[int, int]]:
    """Exit cells of the station's blue locks, on the board or not (§3.5.3)."""
    st = em.state.stations[station]
    x0, y0 = st.anchor
    return [
        (x0 + dx, y0 + dy)
        for slot, lock in enumerate(st.locks)
        if lock == "blue"
        for dx, dy in C.exit_offsets[slot]
    ]


def launch_sub(em: Emitter, seat: int, c: cmd.LaunchSub) -> None:
    state = em.state
    if c.station not in C.tiles:
        raise RuleViolation("invalid_argument", f"§5.2: unknown station tile {c.station!r}")
    rule = "§5.5 launch_sub"
    if not _turn(em).launch_open:
        raise RuleViolation(
            "out_of_order", f"{rule} check 1 (F-2): launches come before any Echo or movement"
        )
    subs = state.seats[seat].subs
    if NO_CELL not in subs:
        raise RuleViolation("no_sub_in_supply", f"{rule} check 2: all your submarines are deployed")
    station = city(state).index.get(c.station)
    if station is None or not is_research(state.stations[station]):
        raise RuleViolation(
            "not_a_research_station", f"{rule} check 3: {c.station} is not a research station on the board"
        )
    if state.occupancy[station][seat] < 2:
        raise RuleViolation(
            "not_enough_researchers", f"{rule} check 4: you need 2 researchers in {c.station}"
        )
    if tuple(c.cell) not in _blue_exit_xys(em, station):
        raise RuleViolation(
            "not_a_blue_lock_exit", f"{rule} check 5: {list(c.cell)} is not at a blue lock of {c.station}"
        )
    cell = cell_of(c.cell)
    if cell is None or not is_free(state, cell):
        raise RuleViolation("exit_not_free", f"{rule} check 6: {list(c.cell)} is not a free sea space")
    sub = subs.index(NO_CELL) + 1
    em.emit(ev.SubLaunched(seat=seat, sub=sub, station=c.station, cell=C.xy(cell)))
    if C.is_gorge[cell] and not state.gorge_open:
        em.emit(ev.GorgeOpened(seat=seat, cause="launch"))


def echo(em: Emitter, seat: int, c: cmd.Echo) -> None:
    sub = _sub(c)
    state, turn = em.state, _turn(em)
    rule = "§5.5 echo"
    if not turn.echo_open:
        raise RuleViolation(
            "out_of_order", f"{rule} check 1 (F-2): the Echo is used before any submarine moves"
        )
    cell = state.seats[seat].subs[sub - 1]
    if cell == NO_CELL:
        raise RuleViolation("sub_not_deployed", f"{rule} check 2: submarine {sub} is not on the board")
    if sub in turn.echoed:
        raise RuleViolation(
            "already_echoed", f"{rule} check 3: submarine {sub} already used the Echo this turn"
        )
    if state.seats[seat].nemo < C.tables.echo_price:
        raise RuleViolation("insufficient_funds", f"{rule} check 4: the Echo costs {C.tables.echo_price} Nemo")
    scan_range = echo_range(state, seat)
    cells = echo_cells(state, cell, scan_range)
    em.emit(ev.EchoUsed(seat=seat, sub=sub, range=scan_range, cells=tuple(C.xy(x) for x in cells)))
    em.emit(ev.FindsPeeked(seat=seat, source="echo", chips=tuple(_peeked(state, x) for x in cells)))
    em.emit(ev.NemoTransferred(from_=seat, to="bank", amount=C.tables.echo_price, reason="echo"))


def _peeked(state: State, cell: int) -> ev.PeekedChip:
    chip = C.chips[state.finds[C.find_space_at[cell]]]
    return ev.PeekedChip(cell=C.xy(cell), chip=chip.id, kind=chip.kind, atlantis_number=chip.atlantis_number)


def _withdraw_station(em: Emitter, seat: int, cell: int, tile: str, rule: str) -> int:
    """§6.12: a free cell at a blue lock of a research station holding ≥1 researcher."""
    state = em.state
    station = _board_station(em, tile, "station")
    ok = (
        cell not in find_cells(state)
        and is_research(state.stations[station])
        and any(state.occupancy[station])
        and station in city(state).blue_exits.get(cell, ())
    )
    if not ok:
        raise RuleViolation(
            "cannot_withdraw_here",
            f"{rule}: {list(C.xy(cell))} is not a free cell at a blue lock of an occupied research "
            f"station {tile}",
        )
    return station


def _check_withdrawal_fee(em: Emitter, seat: int, station: int, rule: str) -> None:
    fee = withdrawal_fee(em.state, seat, station)
    if em.state.seats[seat].nemo < fee:
        raise RuleViolation(
            "insufficient_funds", f"{rule} (R-16): you cannot pay the activation fee of {fee}"
        )


def move_sub(em: Emitter, seat: int, c: cmd.MoveSub) -> None:
    _move(em, seat, c, "normal")


def tempo_move(em: Emitter, seat: int, c: cmd.TempoMove) -> None:
    _move(em, seat, c, "tempo")


def _move(em: Emitter, seat: int, c: Any, mode: str) -> None:
    sub = _sub(c)
    to = _board_cell(c.to, "destination")
    if c.withdraw_into is not None:
        _board_station(em, c.withdraw_into, "withdraw_into")
    state, turn = em.state, _turn(em)
    rule = "§5.5 move_sub" if mode == "normal" else "§5.5.1 tempo_move (R-14)"
    start = state.seats[seat].subs[sub - 1]
    if start == NO_CELL:
        raise RuleViolation("sub_not_deployed", f"{rule} check 1: submarine {sub} is not on the board")
    if mode == "normal" and sub in turn.moved:
        raise RuleViolation("sub_already_moved", f"{rule} check 2: submarine {sub} already moved this turn")
    if not is_destination(state, start, to, sub_cells(state)):
        raise RuleViolation(
            "invalid_destination",
            f"{rule} check 3 (R-12): a move ends on a free sea space or a find, never where it starts",
        )
    station = None
    if c.withdraw_into is not None:
        station = _withdraw_station(em, seat, to, c.withdraw_into, f"{rule} check 4")
    steps = sub_range(state, seat) if mode == "normal" else C.tables.tempo_steps
    error, path = route(state, seat, start, to, steps)
    if error == "gorge_locked":
        raise RuleViolation(
            error, f"{rule} check 5: only through the Gorge, which needs all 5 research types (§6.7)"
        )
    if error is not None:
        raise RuleViolation(
            error, f"{rule} check 5: no path of at most {steps} spaces without passing over a find"
        )
    if station is not None:
        _check_withdrawal_fee(em, seat, station, f"{rule} check 6")
    em.emit(
        ev.SubMoved(
            seat=seat,
            sub=sub,
            from_=C.xy(start),
            to=C.xy(to),
            steps=len(path) - 1,
            path=tuple(C.xy(x) for x in path),
            mode=mode,
        )
    )
    if not state.gorge_open and any(C.is_gorge[x] for x in path[1:]):
        em.emit(ev.GorgeOpened(seat=seat, cause="entry"))
    if to in find_cells(state):
        recover(em, seat, sub, to)
    elif station is not None:
        withdraw(em, seat, sub, to, station)


def withdraw_sub(em: Emitter, seat: int, c: cmd.WithdrawSub) -> None:
    sub = _sub(c)
    _board_station(em, c.station, "station")
    state, turn = em.state, _turn(em)
    rule = "§5.5 withdraw_sub"
    if not state.options.allow_withdraw_in_place:
        raise RuleViolation(
            "withdraw_in_place_disabled", f"{rule} check 0 (R-18): in-place withdrawal is switched off"
        )
    cell = state.seats[seat].subs[sub - 1]
    if cell == NO_CELL:
        raise RuleViolation("sub_not_deployed", f"{rule} check 1: submarine {sub} is not on the board")
    if sub in turn.moved:
        raise RuleViolation("sub_already_moved", f"{rule} check 2: submarine {sub} already moved this turn")
    station = _withdraw_station(em, seat, cell, c.station, f"{rule} check 3")
    _check_withdrawal_fee(em, seat, station, f"{rule} check 4")
    withdraw(em, seat, sub, cell, station)


def withdraw(em: Emitter, seat: int, sub: int, cell: int, station: int) -> None:
    """§6.12: the sub returns to supply; a researcher from supply enters the station (if any)."""
    tile = em.state.stations[station].tile
    placed = em.state.seats[seat].supply > 0
    em.emit(ev.SubWithdrawn(seat=seat, sub=sub, cell=C.xy(cell), station=tile, researcher_placed=placed))
    if placed:
        before = em.state
        em.emit(ev.ResearcherPlaced(seat=seat, station=tile, source="withdrawal"))
        report_activation(em, before, seat, station)


def recover(em: Emitter, seat: int, sub: int, cell: int) -> None:
    """§6.8: reveal, pay (or fail to), apply the find."""
    state = em.state
    space = C.find_space_at[cell]
    chip = C.chips[state.finds[space]]
    if not state.face_up[space]:
        number = chip.atlantis_number
        em.emit(ev.FindRevealed(cell=C.xy(cell), chip=chip.id, kind=chip.kind, atlantis_number=number))
    cost = C.recovery_cost[C.zone[cell]] if C.kind_front[chip.kind] == "blue" else 0
    if state.seats[seat].nemo < cost:
        em.emit(ev.FindUnaffordable(seat=seat, sub=sub, cell=C.xy(cell), chip=chip.id, kind=chip.kind, cost=cost))
        if chip.atlantis_number is not None:
            em.emit(ev.AtlantisToTracker(number=chip.atlantis_number, seat=None, cause="unaffordable"))
            atlantis_went_out(em, chip.atlantis_number)
        return
    em.emit(ev.FindRecovered(seat=seat, sub=sub, cell=C.xy(cell), chip=chip.id, kind=chip.kind, cost=cost))
    if cost:
        em.emit(ev.NemoTransferred(from_=seat, to="bank", amount=cost, reason="recovery"))
    if chip.atlantis_number is not None:
        em.emit(ev.AtlantisToTracker(number=chip.atlantis_number, seat=seat, cause="recovered"))
        atlantis_went_out(em, chip.atlantis_number)
    elif chip.kind == "treasure_chest":
        income = chest_value(em.state, seat)
        em.emit(ev.NemoTransferred(from_="bank", to=seat, amount=income, reason="treasure_chest"))


def skip(option: str) -> Callable[[Emitter, int, Any], None]:
    def handler(em: Emitter, seat: int, c: Any, auto: bool = False) -> None:
        em.emit(ev.OptionDeclined(seat=seat, option=option, auto=auto))

    return handler


def peek(em: Emitter, seat: int, c: cmd.Peek) -> None:
    cell = _board_cell(c.cell, "cell")
    state = em.state
    sp = state.sub_prompt
    assert sp is not None
    rule = "§5.5.1 peek"
    space = C.find_space_at.get(cell)
    if space is None or not state.finds[space] or state.face_up[space]:
        raise RuleViolation("not_face_down_find", f"{rule} check 1: no face-down find on {list(c.cell)}")
    if space in sp.peeked:
        raise RuleViolation(
            "duplicate_peek", f"{rule} check 2 (R-15): you already looked at that find in this Trial"
        )
    if sp.peeked:
        first_depth = C.find_space_depth[sp.peeked[0]]
        elsewhere = any(C.find_space_depth[i] != first_depth for i in face_down_spaces(state))
        if elsewhere and C.find_space_depth[space] == first_depth:
            raise RuleViolation(
                "same_depth_not_allowed", f"{rule} check 3 (R-15): the second find must lie at another depth"
            )
    em.emit(ev.FindsPeeked(seat=seat, source="trial", chips=(_peeked(state, cell),)))


# --- the end ---------------------------------------------------------------------------------------


def cash_assignment(em: Emitter, seat: int, c: cmd.CashAssignment) -> None:
    s = em.state.seats[seat]
    card = C.cards.get(s.card or "", ())
    rule = "§5.7 cash_assignment"
    for kind, n in c.upgrades.items():
        if kind not in C.kind_front:
            raise RuleViolation("invalid_argument", f"§5.2: unknown find kind {kind!r}")
        if kind not in card:
            raise RuleViolation(
                "invalid_upgrade", f"{rule} check 1: {kind} is not on your special assignment"
            )
        if not 0 <= n <= chips_of_kind(s.tableau, kind):
            raise RuleViolation(
                "invalid_upgrade", f"{rule} check 1: you can raise 0..{chips_of_kind(s.tableau, kind)} {kind}"
            )
    cost = sum(c.upgrades.values()) * C.tables.assignment_upgrade_price
    if cost > s.nemo:
        raise RuleViolation("insufficient_funds", f"{rule} check 2: {cost} Nemo needed, you have {s.nemo}")
    cash(em, seat, {k: c.upgrades[k] for k in card if c.upgrades.get(k)}, auto=False)


HANDLERS: dict[type, Callable[[Emitter, int, Any], None]] = {
    cmd.BuyStation: buy_station,
    cmd.BuildStation: build_station,
    cmd.EndTurn: end_turn_command,
    cmd.MoveResearcher: move_researcher,
    cmd.LaunchSub: launch_sub,
    cmd.Echo: echo,
    cmd.MoveSub: move_sub,
    cmd.WithdrawSub: withdraw_sub,
    cmd.TempoMove: tempo_move,
    cmd.SkipTempo: skip("tempo"),
    cmd.Peek: peek,
    cmd.EndPeeks: skip("trial"),
    cmd.BonusMoveResearcher: bonus_move_researcher,
    cmd.SkipBonus: skip("atlantis_bonus"),
    cmd.CashAssignment: cash_assignment,
}


def _pass(em: Emitter, seat: int, command: Any, auto: bool) -> None:
    HANDLERS[type(command)](em, seat, command, auto)  # type: ignore[call-arg]
