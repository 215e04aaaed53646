"""Final scoring, ranking and tie-breaks (spec §8.2, §8.3), solo ranks (§3.8), and the bots' heuristic."""

from __future__ import annotations

from collections.abc import Callable

from benthic.rules.aquatica.events import GameEnded, SeatBreakdown
from benthic.rules.aquatica.queries import CAT
from benthic.rules.aquatica.state import State
from benthic.rules.core import FinalScores, SeatResult


def goal_points(state: State, seat: int) -> int:
    points = CAT.board.goal_track_points
    return sum(points[i] for track in state.tracks for i, spot in enumerate(track) if spot.seat == seat)


def seat_breakdown(state: State, seat: int) -> SeatBreakdown:
    p = state.players[seat]
    hand_pp = len(p.hand)
    goal_pp = goal_points(state, seat)
    location_pp = sum(CAT.locations[x].prosperity for x in p.scored)
    return SeatBreakdown(
        seat=seat, hand_pp=hand_pp, goal_pp=goal_pp, location_pp=location_pp, total=hand_pp + goal_pp + location_pp,
        mantas_in_reserve=len(p.mantas), king_number=p.king_number, king_id=p.king_id,
        hand=p.hand, discard=p.discard, scoring_pile=p.scored,
    )


def rank_seats(state: State, breakdowns: list[SeatBreakdown]) -> tuple[list[list[int]], list[str]]:
    """Seats grouped best first (a group holds seats every tie-break leaves tied) and the tie-breaks used."""
    n = state.seats
    tie_breaks: list[tuple[str, Callable[[SeatBreakdown], int]]] = [
        ("mantas_in_reserve", lambda b: -b.mantas_in_reserve)
    ]
    if state.rules.use_kings:
        tie_breaks.append(("king_number", lambda b: b.king_number))
    else:  # [UPD]: without Kings the player later in turn order wins
        tie_breaks.append(("turn_order", lambda b: -((b.seat - state.first_seat) % n)))
    used: set[str] = set()

    def split(group: list[SeatBreakdown], key: Callable[[SeatBreakdown], int]) -> list[list[SeatBreakdown]]:
        group = sorted(group, key=key)
        out: list[list[SeatBreakdown]] = []
        for b in group:
            if out and key(out[-1][0]) == key(b):
                out[-1].append(b)
            else:
                out.append([b])
        return out

    def order(group: list[SeatBreakdown], level: int) -> list[list[SeatBreakdown]]:
        if len(group) == 1 or level == len(tie_breaks):
            return [group]
        name, key = tie_breaks[level]
        used.add(name)
        return [g for sub in split(group, key) for g in order(sub, level + 1)]

    groups = [g for tied in split(breakdowns, lambda b: -b.total) for g in order(tied, 0)]
    return [sorted(b.seat for b in g) for g in groups], [name for name, _ in tie_breaks if name in used]


def solo_rank(state: State, total: int) -> str | None:
    if state.seats != 1:
        return None
    for rank in CAT.solo.ranks[state.rules.solo_ranks]:
        if total >= rank.min and (rank.max is None or total <= rank.max):
            return rank.title
    return None


def game_ended_event(state: State) -> GameEnded:
    breakdowns = [seat_breakdown(state, seat) for seat in range(state.seats)]
    groups, used = rank_seats(state, breakdowns)
    return GameEnded(
        breakdown=tuple(breakdowns),
        ranking=tuple(seat for group in groups for seat in group),
        tie_breaks_used=tuple(used),
        solo_rank=solo_rank(state, breakdowns[0].total),
        end_reason=state.end_reason or "round_cap",
    )


def final_scores(state: State) -> FinalScores:
    breakdowns = [seat_breakdown(state, seat) for seat in range(state.seats)]
    groups, used = rank_seats(state, breakdowns)
    results = []
    position = 1
    for group in groups:
        for seat in group:
            b = breakdowns[seat]
            results.append(SeatResult(seat, b.total, position, {
                "hand_pp": b.hand_pp, "goal_pp": b.goal_pp, "location_pp": b.location_pp,
                "mantas_in_reserve": b.mantas_in_reserve, "king_number": b.king_number,
            }))
        position += len(group)
    return FinalScores(tuple(results), {
        "ranking": [seat for group in groups for seat in group], "tie_breaks_used": used,
        "solo_rank": solo_rank(state, breakdowns[0].total), "end_reason": state.end_reason,
    })


def heuristic(state: State, seat: int) -> float:
    """Current score plus what is on the way: discarded cards and the card in play (Matrona brings them
    back, so playing a card costs little), the pool and the effects still queued (the greedy bot looks one
    decision ahead only), Locations on the board by how far they have risen (less than scored), Mantas,
    and the ready ones a little more."""
    p = state.players[seat]
    value = float(seat_breakdown(state, seat).total) + 0.95 * len(p.discard)
    if state.active_seat == seat:
        value += 0.2 * (state.pool_coins + state.pool_power) + 0.3 * len(state.queue)
        if state.in_play is not None:
            value += 0.95
    for bl in p.board:
        if bl is not None:  # worth less than scored, so that scoring always looks better
            location = CAT.locations[bl.location_id]
            depths = len(location.depths)
            progress = 1.0 if depths == 0 else bl.covered / depths
            value += location.prosperity * (0.2 + 0.5 * progress)
    value += sum(0.4 if m.ready else 0.25 for m in p.mantas)
    return value
