"""The usability function of spec §6.1.3: may a node (a slot effect, a card effect, a part) be chosen now?
The same function decides which parts ``resolve_effect`` offers and when a frame closes by itself.
It also enumerates the concrete choices of a node (legal build sites, upgradable structures, eligible
slots...) that the command checks and ``legal_commands`` share."""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

from msgspec.structs import replace

from .board import (
    base_build_cost,
    condition_holds,
    covers,
    geometry,
    has_city,
    legal_sites,
    payable_with_bio,
    per_times,
    sub,
    upgrade_bags,
    with_surcharge,
)
from .content import Slot, content
from .effects import (
    All,
    Build,
    BuildUpgrade,
    Choice,
    ConvertCity,
    Effect,
    Exchange,
    Fed,
    Gain,
    GainDistinct,
    GainMetropolis,
    HandLimit,
    If,
    OnSlotUsed,
    Pay,
    Per,
    PerformSlot,
    Res,
    RestoreAction,
    StructureProduction,
    TakeSpecial,
    Trigger,
    Upgrade,
    UseAction,
    parts_of,
)
from .resolve import blue_tiles_in_box, simulate_build
from .state import GameState, Player

MAX_DEPTH = 4  # use_action inside an action card inside perform_slot ... never deeper in practice


# --- small rule helpers shared by the engine -----------------------------------------------------------------

def side_slots(state: GameState) -> dict[str, Slot]:
    return content().sides[state.main_side]


def hand_limit(player: Player) -> int:
    cards = content().cards
    bonus = 0
    for card_id in player.tableau:
        perm = cards[card_id].permanent
        if isinstance(perm, HandLimit):
            bonus += perm.plus
    return content().info.supply.hand_limit + bonus


def action_cards(player: Player) -> list[str]:
    cards = content().cards
    return [c for c in player.tableau if cards[c].type == "action"]


def unused_action_cards(player: Player) -> list[str]:
    return [c for c in action_cards(player) if c not in player.used_actions]


def supply_has(state: GameState, kind: str) -> bool:
    if kind == "tunnel":
        return state.tunnels_left > 0
    if kind == "city_nonsym":
        return state.white_left > 0
    if kind == "city_sym":
        return state.purple_left is None or state.purple_left > 0
    return True


def slot_extra_parts(player: Player, slot_code: str) -> tuple[Effect, ...]:
    """`slot_used(Ax)` permanents add their effect as an extra optional part of that slot's effect."""
    return _slot_triggers(player.tableau).get(slot_code, ())


_TRIGGERS_MEMO: dict[tuple[int, int], tuple[tuple[str, ...], object, dict[str, tuple[Effect, ...]]]] = {}
_TRIGGERS_MEMO_LIMIT = 1024


def _slot_triggers(tableau: tuple[str, ...]) -> dict[str, tuple[Effect, ...]]:
    """slot code -> the effects of the tableau's `slot_used` permanents, in tableau order; memoised by the
    identity of the tableau (never mutated; the entry holds it and the cards, so the ids stay unique)."""
    cards = content().cards
    key = (id(tableau), id(cards))
    hit = _TRIGGERS_MEMO.get(key)
    if hit is not None and hit[0] is tableau and hit[1] is cards:
        return hit[2]
    triggers: dict[str, tuple[Effect, ...]] = {}
    for card_id in tableau:
        perm = cards[card_id].permanent
        if isinstance(perm, Trigger) and isinstance(perm.on, OnSlotUsed):
            code = perm.on.slot_effect
            triggers[code] = (*triggers.get(code, ()), perm.effect)
    if len(_TRIGGERS_MEMO) >= _TRIGGERS_MEMO_LIMIT:
        del _TRIGGERS_MEMO[next(iter(_TRIGGERS_MEMO))]
    _TRIGGERS_MEMO[key] = (tableau, cards, triggers)
    return triggers


def slot_parts(player: Player, slot: Slot) -> tuple[tuple[Effect, ...], bool]:
    """The parts of a slot's frame and whether it is an `all` (parts started from resolve_effect)."""
    parts, is_all = parts_of(slot.effect)
    extra = slot_extra_parts(player, slot.code)
    return parts + extra, is_all or bool(extra)


def with_res(state: GameState, seat: int, res: Res) -> GameState:
    players = list(state.players)
    players[seat] = replace(players[seat], res=res)
    return replace(state, players=tuple(players))


def card_aware_state(state: GameState, seat: int, card_id: str) -> GameState:
    """`usability_check = card_aware`: resources after the matched card's automatic gains (and its cost)."""
    card = content().cards[card_id]
    if card.type != "instant" or card.effect is None:
        return state
    parts, _ = parts_of(card.effect)
    res = state.players[seat].res
    if card.is_special:
        if res.credit < (card.cost or 0):
            return state
        res = sub(res, Res(credit=card.cost or 0))
    for part in parts:
        if isinstance(part, Gain):
            res = Res(res.credit + part.credit, res.kelp + part.kelp, res.steelplast + part.steelplast,
                      res.science + part.science, res.biomatter + part.biomatter)
    return with_res(state, seat, res)


def card_first_state(state: GameState, seat: int, card_id: str) -> GameState | None:
    """The seat after resolving a matched card first (rulebook p.7), as far as slot usability is concerned:
    a card that is claimed (action, permanent, production, end scoring; a Special only if its cost is paid)
    is in the tableau, unused, so the slot's "use 1 of your action cards" may use it the same turn (p.8)
    and its permanent already works (§6.1.5).  Instant gains count only under ``card_aware``.  None when
    resolving the card first adds nothing."""
    card = content().cards[card_id]
    if card.type == "instant":
        return card_aware_state(state, seat, card_id) if state.rules.usability_check == "card_aware" else None
    player = state.players[seat]
    res = player.res
    if card.is_special:
        if res.credit < (card.cost or 0):
            return None
        res = sub(res, Res(credit=card.cost or 0))
    players = list(state.players)
    players[seat] = replace(player, res=res, tableau=(*player.tableau, card_id))
    return replace(state, players=tuple(players))


def usable_card_first(state: GameState, seat: int, card_id: str, slot: Slot) -> bool:
    """§6.1.3 with the matched card resolved first (see ``card_first_state``)."""
    after = card_first_state(state, seat, card_id)
    return after is not None and slot_usable(after, seat, slot)


# --- concrete choices of a node ------------------------------------------------------------------------------

def build_options(state: GameState, seat: int, kinds: tuple[str, ...], cost: object, discount: Res | None,
                  expansion: bool) -> Iterator[tuple[str, str, Res]]:
    """(kind, site, final cost) of every placement that is legal, in supply and payable now."""
    player = state.players[seat]
    geom = geometry(player)
    have = player.res
    for kind in kinds:
        if not supply_has(state, kind):
            continue
        base = base_build_cost(player, kind, cost, discount)  # type: ignore[arg-type]
        for site in legal_sites(geom, player, kind, expansion):
            final = with_surcharge(base, geom, site)
            if payable_with_bio(final, have):
                yield kind, site, final


def min_bio_payment(cost: Res, have: Res) -> Res:
    bk = max(0, cost.kelp - have.kelp)
    bs = max(0, cost.steelplast - have.steelplast)
    return Res(cost.credit, cost.kelp - bk, cost.steelplast - bs, cost.science, cost.biomatter + bk + bs)


def build_upgrade_options(state: GameState, seat: int, node: BuildUpgrade) -> Iterator[tuple[str, str, Res]]:
    """Builds of a build_upgrade node after which the upgrade can be paid (§6.5, RULING 9.2.11)."""
    player = state.players[seat]
    for kind, site, final in build_options(state, seat, node.kinds, "usual", None, False):
        left = sub(player.res, min_bio_payment(final, player.res))
        bags = upgrade_bags(player, kind, "usual")
        if any(covers(left, bag) for bag in bags):
            yield kind, site, final
            continue
        after = simulate_build(state, seat, kind, site, min_bio_payment(final, player.res))
        after_player = after.players[seat]
        if any(covers(after_player.res, bag) for bag in upgrade_bags(after_player, kind, "usual")):
            yield kind, site, final


def upgrade_targets(state: GameState, seat: int, node: Upgrade) -> Iterator[tuple[str, tuple[Res, ...]]]:
    """(site, payable cost bags) of every structure the node may upgrade now."""
    player = state.players[seat]
    kinds = node.kinds
    for site, piece in player.pieces.items():
        if piece.upgraded or piece.kind not in kinds:
            continue
        bags = tuple(b for b in upgrade_bags(player, piece.kind, node.cost) if covers(player.res, b))
        if bags:
            yield site, bags


def eligible_slots(state: GameState, seat: int, node: PerformSlot) -> Iterator[Slot]:
    """Slots a perform_slot node may target (§6.11), before the usability check."""
    available = node.scope in ("available", "available_or_occupied_other")
    occupied_other = node.scope in ("occupied_other", "available_or_occupied_other")
    for slot in side_slots(state).values():
        tiles = state.slots.get(slot.id, ())
        if slot.colour is None:
            if available and not node.colored_only:
                yield slot
        elif not tiles:
            if available:
                yield slot
        elif occupied_other and seat not in tiles:
            yield slot


def structure_production_sites(player: Player) -> list[str]:
    """Upgraded structures adjacent to a connected city (buildings at one, tunnels touching one)."""
    geom = geometry(player)
    pieces = player.pieces
    network = set(player.network)
    sites = []
    for site, piece in pieces.items():
        if not piece.upgraded:
            continue
        if piece.kind == "tunnel":
            info = geom.tunnels[site]
            ends = (info.city,) if info.metropolis else (info.city, info.other)
            if any(e in network and has_city(pieces, e) for e in ends):
                sites.append(site)
        else:
            city = geom.buildings[site].city
            if city in network and has_city(pieces, city):
                sites.append(site)
    return sites


def convertible_cities(player: Player) -> list[str]:
    return [site for site, piece in player.pieces.items() if piece.kind == "city_nonsym"]


def gain_distinct_types(state: GameState, node: GainDistinct) -> tuple[str, ...]:
    types = node.from_
    if state.rules.a14_allow_biomatter and "biomatter" not in types:
        types = (*types, "biomatter")
    return types


# --- the usability function --------------------------------------------------------------------------------

def usable(state: GameState, seat: int, node: Effect, depth: int = 0) -> bool:
    t = type(node)
    if t is Gain or t is Fed or t is GainDistinct:
        return True
    player = state.players[seat]
    if t is Build:
        return any(True for _ in build_options(state, seat, node.kinds, node.cost, node.discount,  # type: ignore[union-attr]
                                               node.site == "expansion"))  # type: ignore[union-attr]
    if t is All:
        return any(usable(state, seat, p, depth) for p in node.parts)  # type: ignore[union-attr]
    if t is Choice:
        return any(usable(state, seat, o, depth) for o in node.options)  # type: ignore[union-attr]
    if t is Upgrade:
        return any(True for _ in upgrade_targets(state, seat, node))  # type: ignore[arg-type]
    if t is UseAction:
        if depth >= MAX_DEPTH:
            return False
        cards = content().cards
        return any(usable(state, seat, cards[c].effect, depth + 1)  # type: ignore[arg-type]
                   for c in unused_action_cards(player))
    if t is BuildUpgrade:
        return any(True for _ in build_upgrade_options(state, seat, node))  # type: ignore[arg-type]
    if t is Per:
        return per_times(player, node) >= 1  # type: ignore[arg-type]
    if t is If:
        return condition_holds(player, node.cond) and usable(state, seat, node.then, depth)  # type: ignore[union-attr]
    if t is RestoreAction:
        return bool(player.used_actions)
    if t is TakeSpecial:
        return bool(state.special_deck) or any(state.special_row)
    if t is PerformSlot:
        if depth >= MAX_DEPTH:
            return False
        return any(slot_usable(state, seat, slot, depth + 1) for slot in eligible_slots(state, seat, node))  # type: ignore[arg-type]
    if t is Pay:
        pay = cast(Pay, node)
        if not covers(player.res, pay.cost):
            return False
        return usable(with_res(state, seat, sub(player.res, pay.cost)), seat, pay.then, depth)
    if t is Exchange:
        return covers(player.res, node.a) or covers(player.res, node.b)  # type: ignore[union-attr]
    if t is StructureProduction:
        return bool(structure_production_sites(player))
    if t is ConvertCity:
        return (bool(convertible_cities(player)) and supply_has(state, "city_sym")
                and covers(player.res, cast(ConvertCity, node).cost))
    if t is GainMetropolis:
        return bool(blue_tiles_in_box(state))
    raise TypeError(f"unknown effect node {node!r}")


def slot_usable(state: GameState, seat: int, slot: Slot, depth: int = 0) -> bool:
    parts, _ = slot_parts(state.players[seat], slot)
    return any(usable(state, seat, p, depth) for p in parts)

