"""``legal_commands``: every command ``decide`` accepts now, per prompt (§5.3 "Enumeration").  Build
commands come in their canonical form (biomatter fields omitted = the minimum substitution) plus one
explicit form per larger substitution."""

from __future__ import annotations

from itertools import combinations, permutations
from typing import Any

from . import commands as cmd
from . import discards, flow
from .board import bag_name, covers, scaled, upgrade_bags
from .content import content
from .effects import BuildUpgrade, Res, UpgradeCost
from .prompts import RUNNING, prompt_of
from .resolve import claimable_contracts
from .state import GameState
from .usability import (
    action_cards,
    build_options,
    build_upgrade_options,
    convertible_cities,
    eligible_slots,
    gain_distinct_types,
    hand_limit,
    side_slots,
    slot_usable,
    structure_production_sites,
    supply_has,
    unused_action_cards,
    upgrade_targets,
    usable,
    usable_card_first,
    with_res,
)


def legal_commands(state: GameState, seat: int) -> list[Any]:
    prompt = prompt_of(state)
    if prompt is None:
        return []
    if seat not in prompt[1]:
        return _early_discards(state, seat)
    enumerate_ = ENUMERATORS.get(prompt[0])
    found = enumerate_(state, seat) if enumerate_ is not None else []
    claims = claimable_contracts(state, seat) if prompt[0] != RUNNING else []
    return found + [cmd.ClaimContract(c) for c in claims] if claims else found


def _abilities(state: GameState, seat: int) -> list[Any]:
    return [cmd.UseAbility(c) for c in flow.usable_abilities(state, seat)]


def _keep(state: GameState, seat: int) -> list[Any]:
    player = state.players[seat]
    return [cmd.KeepCards(ids) for ids in combinations(player.hand, hand_limit(player))]


def _discard(state: GameState, seat: int) -> list[Any]:
    player = state.players[seat]
    return [cmd.DiscardCards(ids) for ids in combinations(player.hand, len(player.hand) - hand_limit(player))]


def _early_discards(state: GameState, seat: int) -> list[Any]:
    """§9.1 ``early_discard``, outside any prompt: one card at a time (RULES.md choice 20; ``decide`` also
    takes several at once, up to the excess)."""
    if not discards.early_discard_excess(state, seat):
        return []
    return [cmd.DiscardCards((card_id,)) for card_id in dict.fromkeys(state.players[seat].hand)]


def _choose_play(state: GameState, seat: int) -> list[Any]:
    player = state.players[seat]
    cards = content().cards
    slots = side_slots(state)
    out: list[Any] = []
    free = [s for s in slots.values() if s.colour is None or not state.slots.get(s.id)]
    usable_now = {s.id: slot_usable(state, seat, s) for s in free}
    for card_id in player.hand or ("",):  # "": no card left to play (RULING, see decide._play)
        colour = cards[card_id].colour if card_id else None
        for slot in free:
            ok = usable_now[slot.id] or (slot.colour == colour and slot.colour is not None
                                         and usable_card_first(state, seat, card_id, slot))
            if ok:
                out.append(cmd.PlayCard(card_id, slot.id))
    clone_cost = content().info.usual_costs.clone
    if state.cloning_tile and not state.clone_used and covers(player.res, clone_cost):
        paid = with_res(state, seat, Res(player.res.credit - clone_cost.credit, player.res.kelp,
                                         player.res.steelplast, player.res.science, player.res.biomatter))
        for slot in slots.values():
            tiles = state.slots.get(slot.id, ())
            if slot.colour is None or not tiles or seat in tiles:
                continue
            plain = slot_usable(paid, seat, slot)
            for card_id in player.hand or ("",):
                if plain or (card_id and cards[card_id].colour == slot.colour
                             and usable_card_first(paid, seat, card_id, slot)):
                    out.append(cmd.PlayCardClone(card_id, slot.id))
    return out + _abilities(state, seat)


def _choose_order(state: GameState, seat: int) -> list[Any]:
    return [cmd.ChooseOrder("card"), cmd.ChooseOrder("slot"), *_abilities(state, seat)]


def _pay_special(state: GameState, seat: int) -> list[Any]:
    assert state.turn is not None
    out: list[Any] = [cmd.DeclineSpecial()]
    if state.players[seat].res.credit >= (content().cards[state.turn.card_id].cost or 0):
        out.append(cmd.PaySpecial())
    return out


def _action_limit(state: GameState, seat: int) -> list[Any]:
    assert state.turn is not None
    out: list[Any] = [cmd.DiscardActionCard(c) for c in action_cards(state.players[seat])]
    if not state.turn.special_paid:
        out.append(cmd.DeclineClaim())
    return out


def _use_discarded(state: GameState, seat: int) -> list[Any]:
    return [cmd.UseDiscardedAction(True), cmd.UseDiscardedAction(False)]


def _resolve_effect(state: GameState, seat: int) -> list[Any]:
    top = state.frames[-1]
    out: list[Any] = [cmd.StartPart(i) for i, part in enumerate(top.parts)
                      if not top.resolved[i] and usable(state, seat, part)]
    return out + [cmd.EndEffect()] + _abilities(state, seat)


def _active_node(state: GameState) -> Any:
    active = state.frames[-1].active
    assert active is not None
    return active.node


def _choose_option(state: GameState, seat: int) -> list[Any]:
    node = _active_node(state)
    return [cmd.ChooseOption(i) for i, o in enumerate(node.options) if usable(state, seat, o)] + [cmd.Done()]


def _build(state: GameState, seat: int) -> list[Any]:
    node = _active_node(state)
    have = state.players[seat].res
    if isinstance(node, BuildUpgrade):
        options = build_upgrade_options(state, seat, node)
    else:
        options = build_options(state, seat, node.kinds, node.cost, node.discount, node.site == "expansion")
    out: list[Any] = []
    for kind, site, cost in options:
        out.append(cmd.Build(kind, site))
        out.extend(cmd.Build(kind, site, bk, bs) for bk, bs in _extra_bio(cost, have))
    return out + [cmd.Done()]


def _extra_bio(cost: Res, have: Res) -> list[tuple[int, int]]:
    """Biomatter substitutions beyond the minimum that are still payable (§6.4.2 step 4)."""
    bk0 = max(0, cost.kelp - have.kelp)
    bs0 = max(0, cost.steelplast - have.steelplast)
    spare = have.biomatter - cost.biomatter - bk0 - bs0
    out = []
    for bk in range(bk0, cost.kelp + 1):
        for bs in range(bs0, cost.steelplast + 1):
            extra = bk - bk0 + bs - bs0
            if 0 < extra <= spare:
                out.append((bk, bs))
    return out


def _upgrade(state: GameState, seat: int) -> list[Any]:
    node = _active_node(state)
    out: list[Any] = []
    one_of = isinstance(node.cost, UpgradeCost) and node.cost.one_of is not None
    names = [bag_name(b) for b in node.cost.one_of] if one_of else []
    player = state.players[seat]
    for site, _ in upgrade_targets(state, seat, node):
        if one_of:
            bags = upgrade_bags(player, player.pieces[site].kind, node.cost)
            out.extend(cmd.Upgrade(site, names[i]) for i, bag in enumerate(bags) if covers(player.res, bag))
        else:
            out.append(cmd.Upgrade(site))
    return out + [cmd.Done()]


def _choose_action_card(state: GameState, seat: int) -> list[Any]:
    return [cmd.UseActionCard(c) for c in unused_action_cards(state.players[seat])] + [cmd.Done()]


def _restore_action_card(state: GameState, seat: int) -> list[Any]:
    player = state.players[seat]
    return [cmd.RestoreActionCard(c) for c in action_cards(player) if c in player.used_actions] + [cmd.Done()]


def _take_special(state: GameState, seat: int) -> list[Any]:
    out: list[Any] = [cmd.TakeSpecial("row", i + 1) for i, c in enumerate(state.special_row) if c]
    if state.special_deck:
        out.append(cmd.TakeSpecial("deck_top"))
    if len(state.special_deck) >= state.rules.draw3_min_deck:
        out.append(cmd.TakeSpecial("draw3"))
    return out + [cmd.Done()]


def _special_draw3(state: GameState, seat: int) -> list[Any]:
    drawn = state.frames[-1].active.drawn  # type: ignore[union-attr]
    out: list[Any] = []
    for keep in drawn:
        rest = [c for c in drawn if c != keep]
        out.extend(cmd.KeepSpecial(keep, order) for order in permutations(rest))
    return out


def _gain_distinct(state: GameState, seat: int) -> list[Any]:
    node = _active_node(state)
    return [cmd.GainDistinct(t) for t in combinations(gain_distinct_types(state, node), node.n)] + [cmd.Done()]


def _pay(state: GameState, seat: int) -> list[Any]:
    node = _active_node(state)
    have = state.players[seat].res
    c = node.cost
    out: list[Any] = [cmd.Pay(t) for t in range(1, node.max_times + 1)
                      if covers(have, scaled(c, t))]
    return out + [cmd.Done()]


def _exchange(state: GameState, seat: int) -> list[Any]:
    node = _active_node(state)
    have = state.players[seat].res
    out: list[Any] = []
    if covers(have, node.a):
        out.append(cmd.Exchange("a_to_b"))
    if covers(have, node.b):
        out.append(cmd.Exchange("b_to_a"))
    return out + [cmd.Done()]


def _choose_slot(state: GameState, seat: int) -> list[Any]:
    node = _active_node(state)
    return [cmd.PerformSlot(s.id) for s in eligible_slots(state, seat, node) if slot_usable(state, seat, s)] + [
        cmd.Done()]


def _choose_structure(state: GameState, seat: int) -> list[Any]:
    return [cmd.ChooseStructure(s) for s in structure_production_sites(state.players[seat])] + [cmd.Done()]


def _choose_city(state: GameState, seat: int) -> list[Any]:
    node = _active_node(state)
    player = state.players[seat]
    out: list[Any] = []
    if supply_has(state, "city_sym") and covers(player.res, node.cost):
        out = [cmd.ConvertCity(s) for s in convertible_cities(player)]
    return out + [cmd.Done()]


def _end_of_turn(state: GameState, seat: int) -> list[Any]:
    return _abilities(state, seat) + [cmd.EndTurn()]


def _production_options(state: GameState, seat: int) -> list[Any]:
    cards = flow.optional_production_cards(state, seat)
    return [cmd.SetProductionOptions(ids) for n in range(len(cards) + 1) for ids in combinations(cards, n)]


def _final_purchases(state: GameState, seat: int) -> list[Any]:
    out: list[Any] = []
    budget = flow.purchase_budget(state, seat)
    cards = content().cards
    for card_id in flow.buy_cards(state, seat):
        scoring = cards[card_id].end_scoring
        left = scoring.max_times - flow.bought_times(state, seat, card_id)  # type: ignore[union-attr]
        cost = scoring.cost  # type: ignore[union-attr]
        for t in range(1, left + 1):
            if covers(budget, scaled(cost, t)):
                out.append(cmd.BuyPoints(card_id, t))
    return out + [cmd.DoneBuying()]


ENUMERATORS = {
    "keep_cards": _keep,
    "discard_to_limit": _discard,
    "choose_play": _choose_play,
    "choose_order": _choose_order,
    "pay_special": _pay_special,
    "action_limit": _action_limit,
    "use_discarded_action": _use_discarded,
    "resolve_effect": _resolve_effect,
    "choose_option": _choose_option,
    "build": _build,
    "upgrade": _upgrade,
    "choose_action_card": _choose_action_card,
    "restore_action_card": _restore_action_card,
    "take_special": _take_special,
    "special_draw3": _special_draw3,
    "gain_distinct": _gain_distinct,
    "pay": _pay,
    "exchange": _exchange,
    "choose_slot": _choose_slot,
    "choose_structure": _choose_structure,
    "choose_city": _choose_city,
    "end_of_turn": _end_of_turn,
    "production_options": _production_options,
    "final_purchases": _final_purchases,
}
