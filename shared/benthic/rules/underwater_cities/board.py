"""A player's board: network (§6.6), site legality (§6.4.4), build and upgrade costs (§6.4.2, §6.5) and the
quantities of §3.7.2.  Pure functions of a Player and the board geometry."""

from __future__ import annotations

from .content import Geometry, content
from .effects import BUILDING_KINDS, CITY_KINDS, Condition, Discount, Per, Quantity, Res
from .state import Piece, Player

CITY = frozenset(CITY_KINDS)


def geometry(player: Player) -> Geometry:
    return content().boards[player.board]


def network_of(geom: Geometry, pieces: dict[str, Piece]) -> tuple[str, ...]:
    """R: city sites reachable from the start city through built city-city tunnels (empty sites included,
    metropolises never traversed)."""
    seen = {geom.start}
    stack = [geom.start]
    links = geom.city_links
    while stack:
        for tunnel, other in links[stack.pop()]:
            if other not in seen and tunnel in pieces:
                seen.add(other)
                stack.append(other)
    return tuple(sorted(seen))


def has_city(pieces: dict[str, Piece], site: str) -> bool:
    piece = pieces.get(site)
    return piece is not None and piece.kind in CITY


def connected_city_sites(geom: Geometry, player: Player) -> list[str]:
    pieces = player.pieces
    return [c for c in player.network if has_city(pieces, c)]


# --- site legality (§6.4.4) ---------------------------------------------------------------------------------

def city_site_legal(geom: Geometry, pieces: dict[str, Piece], site: str) -> bool:
    """An empty city site next (through a tunnel site, built or not) to a site holding any city."""
    if site in pieces:
        return False
    for _, other in geom.city_links[site]:
        if has_city(pieces, other):
            return True
    return False


def building_site_legal(geom: Geometry, pieces: dict[str, Piece], site: str) -> bool:
    """An empty building site whose city site holds a city, or could legally take one (geometry only)."""
    if site in pieces:
        return False
    city = geom.buildings[site].city
    return has_city(pieces, city) or city_site_legal(geom, pieces, city)


def tunnel_site_legal(geom: Geometry, player: Player, site: str) -> bool:
    if site in player.pieces:
        return False
    info = geom.tunnels[site]
    network = player.network
    if info.metropolis is not None:
        return info.city in network
    return info.city in network or info.other in network


_SITES_MEMO: dict[tuple[int, int, int, str, bool], tuple[Geometry, dict[str, Piece], tuple[str, ...],
                                                         tuple[str, ...]]] = {}
_SITES_MEMO_LIMIT = 1024


def legal_sites(geom: Geometry, player: Player, kind: str, expansion: bool) -> tuple[str, ...]:
    """Empty sites where a piece of ``kind`` may legally go (ignoring cost and supply).  Memoised by the
    identity of the geometry, pieces and network (never mutated; the entry holds them, so their ids stay
    unique): the usability checks of one prompt ask the same question for many slots and cards."""
    pieces, network = player.pieces, player.network
    key = (id(geom), id(pieces), id(network), kind, expansion)
    hit = _SITES_MEMO.get(key)
    if hit is not None and hit[0] is geom and hit[1] is pieces and hit[2] is network:
        return hit[3]
    sites = tuple(_legal_sites(geom, player, kind, expansion))
    if len(_SITES_MEMO) >= _SITES_MEMO_LIMIT:
        del _SITES_MEMO[next(iter(_SITES_MEMO))]
    _SITES_MEMO[key] = (geom, pieces, network, sites)
    return sites


def _legal_sites(geom: Geometry, player: Player, kind: str, expansion: bool) -> list[str]:
    pieces = player.pieces
    if kind == "tunnel":
        return [t for t in geom.tunnels if tunnel_site_legal(geom, player, t)]
    if kind in CITY:
        return [c for c in geom.cities if city_site_legal(geom, pieces, c)]
    sites: list[str] = []
    for city in geom.cities:
        if not (has_city(pieces, city) or city_site_legal(geom, pieces, city)):
            continue
        if expansion:
            site = geom.city_expansion[city]
            if site not in pieces:
                sites.append(site)
        else:
            sites.extend(s for s in geom.city_regular[city] if s not in pieces)
    return sites


def site_allows(geom: Geometry, kind: str, site: str) -> bool:
    """The site is of the type the kind is built on (city site, tunnel site, building site)."""
    site_kind = geom.site_kind.get(site)
    if kind == "tunnel":
        return site_kind == "tunnel"
    if kind in CITY:
        return site_kind == "city"
    return site_kind == "building"


def site_legal(geom: Geometry, player: Player, kind: str, site: str) -> bool:
    if kind == "tunnel":
        return tunnel_site_legal(geom, player, site)
    if kind in CITY:
        return city_site_legal(geom, player.pieces, site)
    return building_site_legal(geom, player.pieces, site)


# --- costs ---------------------------------------------------------------------------------------------------

def sub_floor(cost: Res, discount: Res) -> Res:
    return Res(
        max(0, cost.credit - discount.credit),
        max(0, cost.kelp - discount.kelp),
        max(0, cost.steelplast - discount.steelplast),
        max(0, cost.science - discount.science),
        max(0, cost.biomatter - discount.biomatter),
    )


def add(a: Res, b: Res) -> Res:
    return Res(a.credit + b.credit, a.kelp + b.kelp, a.steelplast + b.steelplast, a.science + b.science,
               a.biomatter + b.biomatter)


def sub(a: Res, b: Res) -> Res:
    """a − b (callers make sure a covers b)."""
    return Res(a.credit - b.credit, a.kelp - b.kelp, a.steelplast - b.steelplast, a.science - b.science,
               a.biomatter - b.biomatter)


def scaled(res: Res, times: int) -> Res:
    return Res(res.credit * times, res.kelp * times, res.steelplast * times, res.science * times,
               res.biomatter * times)


def covers(have: Res, cost: Res) -> bool:
    return (have.credit >= cost.credit and have.kelp >= cost.kelp and have.steelplast >= cost.steelplast
            and have.science >= cost.science and have.biomatter >= cost.biomatter)


def discounts(player: Player, target: str, kind: str) -> list[Res]:
    cards = content().cards
    found = []
    for card_id in player.tableau:
        perm = cards[card_id].permanent
        if isinstance(perm, Discount) and perm.target == target and kind in perm.kinds:
            found.append(perm.amount)
    return found


def surcharge(geom: Geometry, site: str) -> Res | None:
    """The surcharge of an advanced-side site (city_prod6, city_points6, tunnel_triple, metro_plus2)."""
    special = geom.city_special.get(site) or (geom.tunnels[site].special if site in geom.tunnels else None)
    return getattr(content().info.surcharges, special) if special else None


def base_build_cost(player: Player, kind: str, cost: str | Res, discount: Res | None) -> Res:
    """Base cost of one placement before the site's surcharge (§6.4.2 steps 1-2): the usual or specified
    cost minus discounts (per resource type, floor 0), or nothing for a free build."""
    if cost == "free":
        return Res()
    base = content().info.usual_costs.of(kind) if cost == "usual" else cost
    assert isinstance(base, Res)
    for amount in discounts(player, "build", kind):
        base = sub_floor(base, amount)
    if discount is not None:
        base = sub_floor(base, discount)
    return base


def with_surcharge(base: Res, geom: Geometry, site: str) -> Res:
    """§6.4.2 step 3: the surcharge is added after discounts, also to a free build."""
    extra = surcharge(geom, site)
    return add(base, extra) if extra is not None else base


def build_cost(player: Player, geom: Geometry, kind: str, site: str, cost: str | Res, discount: Res | None) -> Res:
    return with_surcharge(base_build_cost(player, kind, cost, discount), geom, site)


def bio_payment(cost: Res, have: Res, bio_for_kelp: int | None, bio_for_steelplast: int | None) -> Res | str:
    """What is paid for a build cost with biomatter replacing kelp/steelplast units (§6.4.2 step 4), or the
    error code: ``invalid_payment`` / ``insufficient_resources``.  None = the minimum needed."""
    bk = max(0, cost.kelp - have.kelp) if bio_for_kelp is None else bio_for_kelp
    bs = max(0, cost.steelplast - have.steelplast) if bio_for_steelplast is None else bio_for_steelplast
    if bk < 0 or bs < 0 or bk > cost.kelp or bs > cost.steelplast:
        return "invalid_payment"
    paid = Res(cost.credit, cost.kelp - bk, cost.steelplast - bs, cost.science, cost.biomatter + bk + bs)
    return paid if covers(have, paid) else "insufficient_resources"


def payable_with_bio(cost: Res, have: Res) -> bool:
    short = max(0, cost.kelp - have.kelp) + max(0, cost.steelplast - have.steelplast)
    return (have.credit >= cost.credit and have.science >= cost.science
            and have.biomatter >= cost.biomatter + short)


def upgrade_bags(player: Player, kind: str, cost: object) -> tuple[Res, ...]:
    """The cost options of one upgrade (§6.5): usual 1 science, a specified bag, `one_of` bags, or free;
    upgrade discounts apply to every bag except a free one."""
    if cost == "free":
        return (Res(),)
    bags = (content().info.usual_costs.upgrade,) if cost == "usual" else cost.bags()  # type: ignore[attr-defined]
    found = discounts(player, "upgrade", kind)
    if found:
        out = []
        for bag in bags:
            for amount in found:
                bag = sub_floor(bag, amount)
            out.append(bag)
        return tuple(out)
    return bags


def bag_name(bag: Res) -> str:
    """The selector of a `one_of` bag in the upgrade command: its first resource type."""
    for name in ("credit", "kelp", "steelplast", "science", "biomatter"):
        if getattr(bag, name):
            return name
    return "free"


# --- quantities (§3.7.2) ------------------------------------------------------------------------------------

def tunnel_adjacent_to_city(geom: Geometry, pieces: dict[str, Piece], tunnel: str) -> bool:
    info = geom.tunnels[tunnel]
    if has_city(pieces, info.city):
        return True
    return info.metropolis is None and has_city(pieces, info.other)


def metropolis_connected(geom: Geometry, pieces: dict[str, Piece], space: str) -> bool:
    return all(t in pieces for t in geom.metro_tunnels[space])


def connected_metropolises(geom: Geometry, player: Player) -> list[str]:
    """Tiles of connected metropolis spaces, then tiles gained during play."""
    tiles = [tile for space, tile in player.metros.items() if metropolis_connected(geom, player.pieces, space)]
    return tiles + list(player.gained_metros)


def count_buildings(geom: Geometry, player: Player, kind: str, upgraded: bool | None, city: str | None = None) -> int:
    pieces = player.pieces
    cities = (city,) if city is not None else connected_city_sites(geom, player)
    n = 0
    for c in cities:
        for site in geom.city_buildings[c]:
            piece = pieces.get(site)
            if piece is not None and piece.kind == kind and (upgraded is None or piece.upgraded == upgraded):
                n += 1
    return n


def count_tunnels(geom: Geometry, player: Player, upgraded: bool | None, adjacent: bool | None) -> int:
    pieces = player.pieces
    n = 0
    for t in geom.tunnels:
        piece = pieces.get(t)
        if piece is None or (upgraded is not None and piece.upgraded != upgraded):
            continue
        if adjacent and not tunnel_adjacent_to_city(geom, pieces, t):
            continue
        n += 1
    return n


def building_types_at(geom: Geometry, pieces: dict[str, Piece], city: str) -> int:
    kinds = {pieces[s].kind for s in geom.city_buildings[city] if s in pieces}
    return len(kinds)


def specials_paid(player: Player) -> int:
    cards = content().cards
    return sum(1 for c in player.tableau if cards[c].is_special) + len(player.under_board)


def quantity(player: Player, q: Quantity) -> int:
    geom = geometry(player)
    name = q.q
    if name == "connected_cities":
        return len(connected_city_sites(geom, player))
    if name == "connected_symbiotic_cities":
        return sum(1 for c in connected_city_sites(geom, player) if player.pieces[c].kind == "city_sym")
    if name == "connected_buildings":
        return count_buildings(geom, player, q.kind or "", q.upgraded)
    if name == "tunnels":
        return count_tunnels(geom, player, q.upgraded, q.adjacent_to_city)
    if name == "connected_metropolises":
        return len(connected_metropolises(geom, player))
    if name == "complete_cities":
        return sum(1 for c in connected_city_sites(geom, player)
                   if building_types_at(geom, player.pieces, c) == len(BUILDING_KINDS))
    if name == "upgraded_sets":
        return min(count_tunnels(geom, player, True, True),
                   *(count_buildings(geom, player, k, True) for k in BUILDING_KINDS))
    if name == "specials_paid":
        return specials_paid(player)
    raise ValueError(f"unknown quantity {name}")


def condition_holds(player: Player, cond: Condition) -> bool:
    if cond.federation_space is not None:
        return player.fed_space == cond.federation_space
    assert cond.q is not None and cond.min is not None
    return quantity(player, cond.q) >= cond.min


def per_times(player: Player, node: Per) -> int:
    times = quantity(player, node.q) // node.div
    return min(times, node.max) if node.max is not None else times
