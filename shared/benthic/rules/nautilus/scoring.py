"""Final scoring (spec §8.2–§8.4): Atlantis point chips, special assignments, research × finds + Nemo."""

from __future__ import annotations

from typing import Any

from benthic.rules.core import FinalScores, SeatResult
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.derived import research_points, research_value
from benthic.rules.nautilus.events import AtlantisAward
from benthic.rules.nautilus.state import State


def atlantis_holdings(state: State, seat: int) -> list[int]:
    return [i + 1 for i, finder in enumerate(state.atlantis_finder) if finder == seat]


def atlantis_ranking(state: State) -> list[int]:
    """Seats holding ≥1 marked Atlantis chip, best first: more chips, then the higher highest chip."""
    holders = [s for s in range(state.player_count) if atlantis_holdings(state, s)]

    def rank_key(seat: int) -> tuple[int, int]:
        held = atlantis_holdings(state, seat)
        return -len(held), -max(held)

    return sorted(holders, key=rank_key)


def atlantis_awards(state: State) -> tuple[AtlantisAward, ...]:
    """§8.2 step 1 (awards in seat order).  Leftover point chips are unused."""
    points = dict.fromkeys(range(state.player_count), 0)
    for place, seat in enumerate(atlantis_ranking(state)):
        if place < len(state.atlantis_points):
            points[seat] = state.atlantis_points[place]
    out = []
    for seat in range(state.player_count):
        held = atlantis_holdings(state, seat)
        highest = max(held) if held else None
        out.append(AtlantisAward(seat=seat, finds=len(held), highest=highest, points=points[seat]))
    return tuple(out)


def tableau_points(state: State, seat: int) -> int:
    return sum(C.kind_points[C.chips[chip].kind] or 0 for chip in state.seats[seat].tableau)


def sea_points(state: State, seat: int, atlantis_points: int) -> int:
    upgrades = state.seats[seat].upgrades or {}
    return tableau_points(state, seat) + sum(upgrades.values()) + atlantis_points


def seat_breakdown(state: State, seat: int, award: AtlantisAward, rank: int | None) -> dict[str, Any]:
    s = state.seats[seat]
    chips: dict[str, dict[str, int]] = {}
    for chip in s.tableau:
        kind = C.chips[chip].kind
        entry = chips.setdefault(kind, {"count": 0, "points": 0})
        entry["count"] += 1
        entry["points"] += C.kind_points[kind] or 0
    research = {
        t: {"count": s.counts[i], "value": research_value(state, seat, i)}
        for i, t in enumerate(C.research_types)
    }
    rp = research_points(state, seat)
    sea = sea_points(state, seat, award.points)
    return {
        "research": research,
        "research_points": rp,
        "chips": chips,
        "upgrades": dict(s.upgrades or {}),
        "assignment": s.card,
        "atlantis": {"finds": award.finds, "highest": award.highest, "rank": rank, "points": award.points},
        "sea_points": sea,
        "product": rp * sea,
        "nemo": s.nemo,
        "score": rp * sea + s.nemo,
    }


def final_scores(state: State) -> FinalScores:
    awards = state.atlantis_awards or atlantis_awards(state)
    ranking = atlantis_ranking(state)
    breakdowns = [
        seat_breakdown(state, seat, awards[seat], ranking.index(seat) + 1 if seat in ranking else None)
        for seat in range(state.player_count)
    ]
    tiebreak = state.options.tiebreak

    def key(seat: int) -> tuple[int, ...]:
        b = breakdowns[seat]
        return (b["score"], b["nemo"]) if tiebreak == "most_nemo" else (b["score"],)

    results = []
    for seat in range(state.player_count):
        rank = 1 + sum(1 for other in range(state.player_count) if key(other) > key(seat))
        breakdowns[seat]["rank"] = rank
        score = breakdowns[seat]["score"]
        results.append(SeatResult(seat=seat, score=score, rank=rank, breakdown=breakdowns[seat]))
    results.sort(key=lambda r: (r.rank, r.seat))
    return FinalScores(results=tuple(results), details={"tiebreak": tiebreak})
