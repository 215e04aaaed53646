"""``evolve``: the state after one event.  Pure, no randomness, never mutates its input; it applies the
facts an event records (the decisions were taken by ``decide``)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.derived import RESEARCH_INDEX, city, trial_peeks
from benthic.rules.nautilus.state import NO_CELL, HeldTile, SeatState, State, Station, SubPrompt, Turn


def _seat(state: State, seat: int, **changes: Any) -> tuple[SeatState, ...]:
    seats = list(state.seats)
    seats[seat] = replace(seats[seat], **changes)
    return tuple(seats)


def _occupancy(state: State, station: int, seat: int, delta: int) -> tuple[tuple[int, ...], ...]:
    rows = list(state.occupancy)
    row = list(rows[station])
    row[seat] += delta
    rows[station] = tuple(row)
    return tuple(rows)


def _space(cell: tuple[int, int]) -> int:
    return C.find_space_at[C.cell(*cell)]


def _forget(state: State, space: int) -> tuple[SeatState, ...]:
    """A chip that is no longer face down leaves every seat's peek knowledge (R-20)."""
    if not any(space in s.known for s in state.seats):
        return state.seats
    return tuple(
        replace(s, known=tuple(k for k in s.known if k != space)) if space in s.known else s
        for s in state.seats
    )


def _take_chip(state: State, space: int) -> dict[str, Any]:
    """The chip leaves its find space; Atlantis chips go onto the tracker (unmarked until
    ``atlantis_to_tracker`` names a finder)."""
    chip = state.finds[space]
    finds = list(state.finds)
    finds[space] = ""
    face_up = list(state.face_up)
    face_up[space] = False
    changes: dict[str, Any] = {
        "finds": tuple(finds),
        "face_up": tuple(face_up),
        "seats": _forget(state, space),
    }
    number = C.chips[chip].atlantis_number
    if number is not None:
        out = list(state.atlantis_out)
        out[number - 1] = True
        changes["atlantis_out"] = tuple(out)
    return changes


# --- setup, rounds, turns ---------------------------------------------------------------------------


def _game_started(state: State, e: ev.GameStarted) -> State:
    n = e.player_count
    seat = SeatState(
        nemo=e.starting_nemo,
        supply=C.tables.researchers_per_player,
        subs=(NO_CELL,) * C.tables.subs_per_player,
        counts=(0,) * len(C.research_types),
    )
    base = Station(C.base_tile, e.base_anchor, 0, None, C.tiles[C.base_tile].board_locks[0])
    return State(
        version=state.version,
        seed=e.seed,
        content=sys.intern(e.content.key),
        player_count=n,
        options=e.options,
        base_anchor=e.base_anchor,
        atlantis_points=e.atlantis_points,
        seats=(seat,) * n,
        stacks=dict(e.stacks),
        stations=(base,),
        occupancy=((0,) * n,),
        finds=("",) * len(C.find_space_cell),
        face_up=(False,) * len(C.find_space_cell),
        atlantis_out=(False,) * C.atlantis_count,
        atlantis_finder=(None,) * C.atlantis_count,
        three_chips=(None,) * len(C.research_types),
        start_seat=e.start_seat,
    )


def _sea_finds_dealt(state: State, e: ev.SeaFindsDealt) -> State:
    finds = list(state.finds)
    for p in e.placements:
        finds[_space(p.cell)] = p.chip
    return replace(state, finds=tuple(finds))


def _assignment_dealt(state: State, e: ev.AssignmentDealt) -> State:
    return replace(state, seats=_seat(state, e.seat, card=e.card))


def _round_started(state: State, e: ev.RoundStarted) -> State:
    return replace(
        state,
        round=e.round,
        start_seat=e.start_seat,
        round_bought=False,
        round_built=False,
        round_recovered=False,
    )


def _turn_started(state: State, e: ev.TurnStarted) -> State:
    return replace(state, turn=Turn(seat=e.seat, phase=e.phase), sub_prompt=None)


def _turn_ended(state: State, e: ev.TurnEnded) -> State:
    return replace(state, turn=None, sub_prompt=None)


def _round_ended(state: State, e: ev.RoundEnded) -> State:
    return state


def _end_triggered(state: State, e: ev.EndTriggered) -> State:
    final = e.final_round if state.final_round is None else min(state.final_round, e.final_round)
    return replace(state, final_round=final, end_reason=e.trigger)


# --- money ------------------------------------------------------------------------------------------


def _nemo_transferred(state: State, e: ev.NemoTransferred) -> State:
    seats = list(state.seats)
    if e.from_ != "bank":
        seats[e.from_] = replace(seats[e.from_], nemo=seats[e.from_].nemo - e.amount)
    if e.to != "bank":
        seats[e.to] = replace(seats[e.to], nemo=seats[e.to].nemo + e.amount)
    return replace(state, seats=tuple(seats))


# --- phase 1 ------------------------------------------------------------------------------------------


def _station_bought(state: State, e: ev.StationBought) -> State:
    s = state.seats[e.seat]
    stacks = dict(state.stacks)
    stacks[e.kind] = tuple(t for t in stacks[e.kind] if t != e.tile)
    turn = replace(state.turn, bought=True) if state.turn is not None else None
    return replace(
        state,
        stacks=stacks,
        seats=_seat(state, e.seat, held=(*s.held, HeldTile(e.tile, e.staff)), supply=s.supply - e.staff),
        turn=turn,
        round_bought=True,
    )


def _station_built(state: State, e: ev.StationBuilt) -> State:
    s = state.seats[e.seat]
    held = next((h for h in s.held if h.tile == e.tile), HeldTile(e.tile))
    tile = C.tiles[e.tile]
    owner = e.seat if tile.kind == "research" else None
    occupants = [0] * state.player_count
    occupants[e.seat] = held.staff
    turn = state.turn
    if turn is not None:
        turn = replace(turn, built=(*turn.built, e.tile), cost_level_paid=max(turn.cost_level_paid, e.level))
    return replace(
        state,
        stations=(*state.stations, Station(e.tile, e.anchor, e.rotation, owner, e.locks)),
        occupancy=(*state.occupancy, tuple(occupants)),
        seats=_seat(state, e.seat, held=tuple(h for h in s.held if h.tile != e.tile)),
        turn=turn,
        round_built=True,
    )


def _stations_returned(state: State, e: ev.StationsReturned) -> State:
    s = state.seats[e.seat]
    stacks = dict(state.stacks)
    for tile in e.tiles:
        stack = C.tiles[tile].stack
        assert stack is not None
        stacks[stack] = (*stacks[stack], tile)
    held = tuple(h for h in s.held if h.tile not in e.tiles)
    return replace(
        state, stacks=stacks, seats=_seat(state, e.seat, held=held, supply=s.supply + e.researchers_returned)
    )


def _find_removed(state: State, e: ev.FindRemoved) -> State:
    space = _space(e.cell)
    changes = _take_chip(state, space)
    if e.atlantis_number is None:
        changes["box"] = (*state.box, e.chip)
    return replace(state, **changes)


def _atlantis_to_tracker(state: State, e: ev.AtlantisToTracker) -> State:
    out = list(state.atlantis_out)
    out[e.number - 1] = True
    finder = list(state.atlantis_finder)
    finder[e.number - 1] = e.seat
    return replace(state, atlantis_out=tuple(out), atlantis_finder=tuple(finder))


# --- researchers ---------------------------------------------------------------------------------------


def _arrive(state: State, seat: int, station: int) -> dict[str, Any]:
    """A researcher of ``seat`` stops in ``station``.  In a research station where the seat had none, that
    is the activation (§6.4): its track count rises and the 3-chip goes to a strict majority of ≥2 (ties
    never move it).  The events that follow (station_activated, three_chip_moved,
    research_track_changed) report these consequences."""
    changes: dict[str, Any] = {"occupancy": _occupancy(state, station, seat, +1)}
    research_type = C.tiles[state.stations[station].tile].research_type
    if research_type is None or state.occupancy[station][seat]:
        return changes
    t = RESEARCH_INDEX[research_type]
    counts = list(state.seats[seat].counts)
    counts[t] += 1
    changes["seats"] = _seat(state, seat, counts=tuple(counts))
    if state.three_chips[t] != seat and counts[t] >= 2:
        if all(counts[t] > other.counts[t] for i, other in enumerate(state.seats) if i != seat):
            chips = list(state.three_chips)
            chips[t] = seat
            changes["three_chips"] = tuple(chips)
    return changes


def _researcher_moved(state: State, e: ev.ResearcherMoved) -> State:
    index = city(state).index
    left = replace(state, occupancy=_occupancy(state, index[e.from_], e.seat, -1))
    changes = _arrive(left, e.seat, index[e.to])
    turn, sub_prompt = state.turn, state.sub_prompt
    if e.source == "phase2" and turn is not None:
        turn = replace(
            turn,
            researchers_moved=turn.researchers_moved + 1,
            steps_used=turn.steps_used + e.steps,
            arrived=(*turn.arrived, e.to),
        )
    elif e.source == "atlantis_bonus":
        sub_prompt = None
    return replace(left, **changes, turn=turn, sub_prompt=sub_prompt)


def _researcher_placed(state: State, e: ev.ResearcherPlaced) -> State:
    s = state.seats[e.seat]
    drawn = replace(state, seats=_seat(state, e.seat, supply=s.supply - 1))
    return replace(drawn, **_arrive(drawn, e.seat, city(state).index[e.station]))


def _station_activated(state: State, e: ev.StationActivated) -> State:
    return state  # applied with the arrival; the fee is its own event


def _three_chip_moved(state: State, e: ev.ThreeChipMoved) -> State:
    chips = list(state.three_chips)
    chips[RESEARCH_INDEX[e.research_type]] = e.to_seat
    return replace(state, three_chips=tuple(chips))


def _research_track_changed(state: State, e: ev.ResearchTrackChanged) -> State:
    counts = list(state.seats[e.seat].counts)
    counts[RESEARCH_INDEX[e.research_type]] = e.count
    return replace(state, seats=_seat(state, e.seat, counts=tuple(counts)))


# --- submarines and finds ------------------------------------------------------------------------------


def _set_sub(state: State, seat: int, sub: int, cell: int) -> tuple[SeatState, ...]:
    subs = list(state.seats[seat].subs)
    subs[sub - 1] = cell
    return _seat(state, seat, subs=tuple(subs))


def _sub_launched(state: State, e: ev.SubLaunched) -> State:
    occupancy = _occupancy(state, city(state).index[e.station], e.seat, -1)
    seats = list(_set_sub(state, e.seat, e.sub, C.cell(*e.cell)))
    seats[e.seat] = replace(seats[e.seat], supply=seats[e.seat].supply + 1)
    return replace(state, occupancy=occupancy, seats=tuple(seats))


def _close_launch_and_echo(turn: Turn | None, moved_sub: int | None) -> Turn | None:
    if turn is None:
        return None
    moved = turn.moved if moved_sub is None or moved_sub in turn.moved else (*turn.moved, moved_sub)
    return replace(turn, launch_open=False, echo_open=False, moved=moved)


def _sub_moved(state: State, e: ev.SubMoved) -> State:
    if e.mode == "tempo":
        turn, sub_prompt = _close_launch_and_echo(state.turn, None), None
    else:
        turn, sub_prompt = _close_launch_and_echo(state.turn, e.sub), state.sub_prompt
    seats = _set_sub(state, e.seat, e.sub, C.cell(*e.to))
    return replace(state, seats=seats, turn=turn, sub_prompt=sub_prompt)


def _sub_withdrawn(state: State, e: ev.SubWithdrawn) -> State:
    return replace(
        state, seats=_set_sub(state, e.seat, e.sub, NO_CELL), turn=_close_launch_and_echo(state.turn, e.sub)
    )


def _gorge_opened(state: State, e: ev.GorgeOpened) -> State:
    return replace(state, gorge_open=True)


def _echo_used(state: State, e: ev.EchoUsed) -> State:
    turn = state.turn
    if turn is not None:
        turn = replace(turn, launch_open=False, echoed=(*turn.echoed, e.sub))
    return replace(state, turn=turn)


def _finds_peeked(state: State, e: ev.FindsPeeked) -> State:
    spaces = [_space(c.cell) for c in e.chips]
    known = tuple(sorted(set(state.seats[e.seat].known).union(spaces)))
    sub_prompt = state.sub_prompt
    if e.source == "trial" and sub_prompt is not None:
        left = sub_prompt.peeks_left - len(spaces)
        peeked = (*sub_prompt.peeked, *spaces)
        sub_prompt = replace(sub_prompt, peeks_left=left, peeked=peeked) if left > 0 else None
    return replace(state, seats=_seat(state, e.seat, known=known), sub_prompt=sub_prompt)


def _find_revealed(state: State, e: ev.FindRevealed) -> State:
    space = _space(e.cell)
    face_up = list(state.face_up)
    face_up[space] = True
    return replace(state, face_up=tuple(face_up), seats=_forget(state, space))


def _movement_ended(turn: Turn | None, sub: int) -> Turn | None:
    """§6.8: a move (normal or Tempo) that ends on a find ends that sub's movement for the phase, so a
    Tempo move onto a find uses up the sub's normal move (R-14 holds only for a Tempo move onto no find)."""
    if turn is None or sub in turn.moved:
        return turn
    return replace(turn, moved=(*turn.moved, sub))


def _find_recovered(state: State, e: ev.FindRecovered) -> State:
    changes = _take_chip(state, _space(e.cell))
    changes["turn"] = _movement_ended(state.turn, e.sub)
    seats = list(changes["seats"])
    front = C.kind_front[e.kind]
    sub_prompt = None
    if e.kind == "atlantis":
        number = C.chips[e.chip].atlantis_number or 0
        sub_prompt = SubPrompt("atlantis_bonus", sub=e.sub, atlantis_number=number)
    elif front == "beige":
        changes["box"] = (*state.box, e.chip)
        if e.kind == "tempo":
            sub_prompt = SubPrompt("tempo_move", sub=e.sub)
    else:
        seats[e.seat] = replace(seats[e.seat], tableau=(*seats[e.seat].tableau, e.chip))
        peeks = trial_peeks(state, e.seat)
        if e.kind in ("shell", "snail") and peeks > 0:
            sub_prompt = SubPrompt("trial_peek", sub=e.sub, peeks_left=peeks)
    changes["seats"] = tuple(seats)
    return replace(state, **changes, sub_prompt=sub_prompt, round_recovered=True)


def _find_unaffordable(state: State, e: ev.FindUnaffordable) -> State:
    turn = _movement_ended(state.turn, e.sub)
    if e.kind != "atlantis":
        return replace(state, turn=turn)  # the chip stays face up on its cell
    return replace(state, **_take_chip(state, _space(e.cell)), turn=turn)


def _option_declined(state: State, e: ev.OptionDeclined) -> State:
    return replace(state, sub_prompt=None)


# --- the end ---------------------------------------------------------------------------------------------


def _final_scoring_started(state: State, e: ev.FinalScoringStarted) -> State:
    return replace(state, final_scoring=True, turn=None, sub_prompt=None)


def _assignment_cashed(state: State, e: ev.AssignmentCashed) -> State:
    return replace(state, seats=_seat(state, e.seat, upgrades=dict(e.upgrades)))


def _atlantis_points_awarded(state: State, e: ev.AtlantisPointsAwarded) -> State:
    return replace(state, atlantis_awards=e.awards)


def _game_ended(state: State, e: ev.GameEnded) -> State:
    return replace(state, ended=True, end_reason=e.reason)


_HANDLERS: dict[type, Callable[[State, Any], State]] = {
    ev.GameStarted: _game_started,
    ev.SeaFindsDealt: _sea_finds_dealt,
    ev.AssignmentDealt: _assignment_dealt,
    ev.RoundStarted: _round_started,
    ev.TurnStarted: _turn_started,
    ev.TurnEnded: _turn_ended,
    ev.RoundEnded: _round_ended,
    ev.EndTriggered: _end_triggered,
    ev.NemoTransferred: _nemo_transferred,
    ev.StationBought: _station_bought,
    ev.StationBuilt: _station_built,
    ev.StationsReturned: _stations_returned,
    ev.FindRemoved: _find_removed,
    ev.AtlantisToTracker: _atlantis_to_tracker,
    ev.ResearcherMoved: _researcher_moved,
    ev.ResearcherPlaced: _researcher_placed,
    ev.StationActivated: _station_activated,
    ev.ThreeChipMoved: _three_chip_moved,
    ev.ResearchTrackChanged: _research_track_changed,
    ev.SubLaunched: _sub_launched,
    ev.SubMoved: _sub_moved,
    ev.SubWithdrawn: _sub_withdrawn,
    ev.GorgeOpened: _gorge_opened,
    ev.EchoUsed: _echo_used,
    ev.FindsPeeked: _finds_peeked,
    ev.FindRevealed: _find_revealed,
    ev.FindRecovered: _find_recovered,
    ev.FindUnaffordable: _find_unaffordable,
    ev.OptionDeclined: _option_declined,
    ev.FinalScoringStarted: _final_scoring_started,
    ev.AssignmentCashed: _assignment_cashed,
    ev.AtlantisPointsAwarded: _atlantis_points_awarded,
    ev.GameEnded: _game_ended,
}


def evolve(state: State, event: Any) -> State:
    new = _HANDLERS[type(event)](state, event)
    return replace(new, version=state.version + 1)
