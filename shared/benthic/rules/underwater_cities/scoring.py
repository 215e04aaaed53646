"""Final scoring (§8.1): brown metropolis, end-scoring cards, network, resources; ranking with the final
play order as tie-break; the solo result."""

from __future__ import annotations

from .board import building_types_at, connected_city_sites, geometry, metropolis_connected, quantity
from .content import content
from .effects import BuyScore, EndScoring, PerScore, TableScore
from .state import GameState, Player

SOLO_CITIES = 7
SOLO_POINTS = 100


def end_scoring_points(player: Player, scoring: EndScoring) -> int:
    """Points of a `per` or `table` record (a `buy` record scores through its purchases)."""
    if isinstance(scoring, PerScore):
        times = quantity(player, scoring.q) // scoring.div
        if scoring.max is not None:
            times = min(times, scoring.max)
        return times * scoring.points
    if isinstance(scoring, TableScore):
        value = quantity(player, scoring.q)
        reached = [points for threshold, points in scoring.steps if value >= threshold]
        return max(reached, default=0)
    return 0


def brown_points(player: Player) -> int:
    geom = geometry(player)
    tile = player.metros.get("MB")
    if tile is None or not metropolis_connected(geom, player.pieces, "MB"):
        return 0
    scoring = content().metropolises[tile].end_scoring
    return end_scoring_points(player, scoring) if scoring is not None else 0


def network_points(player: Player) -> int:
    table = content().info.network_scoring
    geom = geometry(player)
    return sum(table[building_types_at(geom, player.pieces, c)] for c in connected_city_sites(geom, player))


def resource_points(player: Player) -> int:
    conv = content().info.resource_conversion
    res = player.res
    credits = res.credit + conv.biomatter_to_credits * res.biomatter
    return (credits + res.kelp + res.science + res.steelplast) // conv.resources_per_point


def seat_breakdown(state: GameState, seat: int) -> dict[str, int]:
    """Points of one seat (its final purchases already paid): track, brown, end_cards, network, resources."""
    player = state.players[seat]
    cards = content().cards
    end_cards = 0
    for card_id in player.tableau:
        scoring = cards[card_id].end_scoring
        if scoring is not None and not isinstance(scoring, BuyScore):
            end_cards += end_scoring_points(player, scoring)
    for purchase in state.purchases[seat]:
        scoring = cards[purchase.card_id].end_scoring
        assert isinstance(scoring, BuyScore)
        end_cards += scoring.points * purchase.times
    parts = {
        "track": player.points,
        "brown": brown_points(player),
        "end_cards": end_cards,
        "network": network_points(player),
        "resources": resource_points(player),
    }
    parts["total"] = sum(parts.values())
    parts["connected_cities"] = len(connected_city_sites(geometry(player), player))
    return parts


def final_breakdowns(state: GameState) -> tuple[list[dict[str, int]], tuple[int, ...], str]:
    """Per-seat breakdowns (with rank and tie-break position), the ranking (best first) and the solo result.
    Ties are broken by the final play order (earlier ranks higher), so ranks are always distinct."""
    breakdowns = [seat_breakdown(state, seat) for seat in range(state.seats)]
    order = state.play_order or tuple(range(state.seats))
    position = {seat: i for i, seat in enumerate(order)}
    ranking = tuple(sorted(range(state.seats), key=lambda s: (-breakdowns[s]["total"], position[s])))
    for rank, seat in enumerate(ranking, start=1):
        breakdowns[seat]["rank"] = rank
        breakdowns[seat]["tie_break_position"] = position[seat] + 1
    solo = ""
    if state.seats == 1:
        b = breakdowns[0]
        solo = "win" if b["connected_cities"] >= SOLO_CITIES and b["total"] >= SOLO_POINTS else "loss"
    return breakdowns, ranking, solo
