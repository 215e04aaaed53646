"""Production (§6.12) and feeding (§6.13): what a seat's network, cards and metropolises produce."""

from __future__ import annotations

from .board import connected_city_sites, geometry, metropolis_connected, quantity, tunnel_adjacent_to_city
from .content import Yield, content
from .effects import BUILDING_KINDS, Gain, Modifier, Per, Produce
from .state import GameState

ZERO = Yield()


def _add(a: Yield, b: Yield, times: int = 1) -> Yield:
    return Yield(a.credit + b.credit * times, a.kelp + b.kelp * times, a.steelplast + b.steelplast * times,
                 a.science + b.science * times, a.biomatter + b.biomatter * times, a.points + b.points * times)


def production_of(state: GameState, seat: int, use_cards: tuple[str, ...]) -> tuple[dict[str, Yield], Yield]:
    """(breakdown by source, totals) of one seat's Production."""
    player = state.players[seat]
    geom = geometry(player)
    info = content().info
    table = info.production
    pieces = player.pieces
    rules = state.rules
    out: dict[str, Yield] = {}

    def put(key: str, y: Yield, times: int = 1) -> None:
        if times and y != ZERO:
            out[key] = _add(out.get(key, ZERO), y, times)

    # Step 1: the network.
    producing_labs = 0
    for city in connected_city_sites(geom, player):
        if pieces[city].kind == "city_sym":
            prod6 = geom.city_special[city] == "city_prod6"
            put("symbiotic_cities", Yield(points=table.city_prod6_points if prod6 else table.symbiotic_city_points))
        upgraded = {k: 0 for k in BUILDING_KINDS}
        for site in geom.city_buildings[city]:
            piece = pieces.get(site)
            if piece is None:
                continue
            row = table.row(piece.kind)
            put(piece.kind, row.upgraded if piece.upgraded else row.plain, geom.buildings[site].multiplier)
            if piece.upgraded:
                upgraded[piece.kind] += 1
            if piece.kind == "lab":
                producing_labs += 1
        for kind, n in upgraded.items():
            pair = table.row(kind).pair_bonus
            if n >= 2 and pair is not None:
                put(kind, pair, n // 2 if rules.pair_bonus_per_pair else 1)
    for tunnel, info_t in geom.tunnels.items():
        piece = pieces.get(tunnel)
        if piece is None or not tunnel_adjacent_to_city(geom, pieces, tunnel):
            continue
        row = table.tunnel
        put("tunnel", row.upgraded if piece.upgraded else row.plain,
            table.tunnel_triple_factor if info_t.special == "tunnel_triple" else 1)
    for group, tunnels in geom.pair_groups.items():
        built = all(t in pieces for t in tunnels)
        adjacent = [tunnel_adjacent_to_city(geom, pieces, t) for t in tunnels if t in pieces]
        if built and (all(adjacent) if rules.tunnel_pair_both_adjacent else any(adjacent)):
            put(f"tunnel_pair:{group}", Yield(credit=table.tunnel_pair_credits))
    network = ZERO
    for y in out.values():
        network = _add(network, y)

    # Modifiers of production cards.
    cards = content().cards
    for card_id in player.tableau:
        mod = cards[card_id].production
        if not isinstance(mod, Modifier):
            continue
        if mod.modifier == "lab_alt_output" and card_id in use_cards and producing_labs:
            put(f"card:{card_id}", Yield(kelp=1, steelplast=1, science=-1))
        elif mod.modifier == "biomatter_bonus" and network.biomatter >= 1:
            put(f"card:{card_id}", Yield(biomatter=mod.amount))

    # Step 2: production cards, metropolises.
    for card_id in player.tableau:
        prod = cards[card_id].production
        if not isinstance(prod, Produce):
            continue
        effect = prod.effect
        if isinstance(effect, Gain):
            put(f"card:{card_id}", _gain_yield(effect))
        elif isinstance(effect, Per):
            times = quantity(player, effect.q) // effect.div
            if effect.max is not None:
                times = min(times, effect.max)
            put(f"card:{card_id}", _gain_yield(effect.then), times)
    metros = content().metropolises
    for space, tile in player.metros.items():
        if not metropolis_connected(geom, pieces, space):
            continue
        if metros[tile].production is not None:
            put(f"metropolis:{tile}", _gain_yield(metros[tile].production))  # type: ignore[arg-type]
        if any(geom.tunnels[t].special == "metro_plus2" for t in geom.metro_tunnels[space]):
            put(f"metro_plus2:{space}", Yield(points=table.metro_plus2_points))
    for tile in player.gained_metros:
        if metros[tile].production is not None:
            put(f"metropolis:{tile}", _gain_yield(metros[tile].production))  # type: ignore[arg-type]

    totals = ZERO
    for y in out.values():
        totals = _add(totals, y)
    return out, totals


def _gain_yield(g: Gain) -> Yield:
    return Yield(g.credit, g.kelp, g.steelplast, g.science, g.biomatter, g.points)


def feeding(state: GameState, seat: int) -> tuple[int, int, int, int]:
    """(connected cities, kelp paid, biomatter paid, points lost): kelp first, then biomatter, then
    3 points per unfed city, never below 0 (§6.13)."""
    player = state.players[seat]
    rule = content().info.feeding
    cities = len(connected_city_sites(geometry(player), player))
    need = cities * rule.kelp_per_city
    kelp = min(player.res.kelp, need)
    bio = min(player.res.biomatter, need - kelp)
    unfed = need - kelp - bio
    lost = min(player.points, unfed * rule.unfed_city_penalty)
    return cities, kelp, bio, lost
