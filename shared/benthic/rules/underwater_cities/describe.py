"""``describe``: a legal command of Underwater Cities as a person reads it ("Build a farm at C24 (site 1) for
1 kelp"), with the catalogue ids it concerns (cards, slots, sites of the acting seat's own board).

Only what the acting seat may see is used: its own hand, resources and board, and the public state (a card
drawn by ``draw3`` is named only to the seat that drew it, which is the only seat that has such commands).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from benthic.rules.presentation import MAX_LABEL, Description, join_and

from . import commands as cmd
from .board import bag_name, bio_payment, build_cost, geometry, scaled, upgrade_bags
from .content import content
from .effects import (
    Build,
    BuildUpgrade,
    BuyScore,
    Choice,
    Effect,
    Exchange,
    GainDistinct,
    Pay,
    Res,
    Upgrade,
    UpgradeCost,
)
from .prompts import prompt_of
from .state import GameState
from .texts import BONUS_TEXTS, amount, effect_text, kind_name, res_text
from .usability import side_slots
from .views import special_top_visible


@cache
def _card_names() -> dict[str, str]:
    """Card id -> the name a label uses: the card's name, with its number when two cards share the name."""
    cards = content().cards
    shared = Counter(c.name for c in cards.values())
    return {cid: f"{c.name} (#{c.number})" if shared[c.name] > 1 else c.name for cid, c in cards.items()}


def card_name(card_id: str) -> str:
    return _card_names()[card_id]


def _fit(label: str, *extras: str) -> str:
    """``label`` plus as many of ``extras`` as fit in MAX_LABEL characters (in order)."""
    for extra in extras:
        if extra and len(label) + len(extra) <= MAX_LABEL:
            label += extra
    return label


def _clip(label: str) -> str:
    """At most MAX_LABEL characters, cut at a word with an ellipsis."""
    if len(label) <= MAX_LABEL:
        return label
    return label[:MAX_LABEL - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _short(node: Effect) -> str:
    return effect_text(node)


def site_name(state: GameState, seat: int, site: str) -> str:
    """How a label names a site of the seat's board: "C24", "C24 (site 1)", "the expansion site of C24",
    "tunnel site C13–C14"."""
    geom = geometry(state.players[seat])
    building = geom.buildings.get(site)
    if building is not None:
        if building.expansion:
            return f"the expansion site of {building.city}"
        return f"{building.city} (site {site.rsplit(':', 1)[1]})"
    tunnel = geom.tunnels.get(site)
    if tunnel is not None:
        return f"tunnel site {tunnel.city}–{tunnel.other}"
    return site


def _site_bonus(state: GameState, seat: int, site: str) -> str:
    geom = geometry(state.players[seat])
    bonus: str | None = geom.city_bonus.get(site)
    if bonus is None and site in geom.tunnels:
        bonus = geom.tunnels[site].bonus
    if bonus is None and site in geom.buildings:
        bonus = geom.buildings[site].bonus
    return f"; bonus: {BONUS_TEXTS[bonus]}" if bonus else ""


def _active_node(state: GameState) -> Effect:
    active = state.frames[-1].active
    assert active is not None
    return active.node


class _Describer:
    """Describes the commands of one seat in one state (what several commands share is computed once)."""

    def __init__(self, state: GameState, seat: int | None) -> None:
        self.state = state
        found = prompt_of(state)
        self.prompt = found[0] if found is not None else ""
        if seat is None:
            if found is None or len(found[1]) != 1:
                raise ValueError("describe needs the seat when zero or several seats are prompted")
            seat = found[1][0]
        self.seat = seat
        self.player = state.players[seat]

    # --- cards and slots -----------------------------------------------------------------------------------
    def slot_text(self, slot_id: str) -> str:
        slot = side_slots(self.state).get(slot_id)
        return _short(slot.effect) if slot is not None else ""

    def play(self, c: cmd.PlayCard | cmd.PlayCardClone) -> Description:
        clone = isinstance(c, cmd.PlayCardClone)
        slot = side_slots(self.state)[c.slot_id]
        how = f" using the cloning tile for {res_text(content().info.usual_costs.clone)}" if clone else ""
        if not c.card_id:
            label = f"Place your action tile on {c.slot_id}{how} (no card left to play)"
            return Description(_fit(label, f": {self.slot_text(c.slot_id)}"), [c.slot_id])
        card = content().cards[c.card_id]
        match = "; colours match" if slot.colour is not None and card.colour == slot.colour else ""
        label = _fit(f"Play {card_name(c.card_id)} on {c.slot_id}{how}", match, f" ({self.slot_text(c.slot_id)})")
        return Description(label, [c.card_id, c.slot_id])

    def use_ability(self, c: cmd.UseAbility) -> Description:
        perm = content().cards[c.card_id].permanent
        effect = getattr(perm, "effect", None)
        extra = f": {_short(effect)}" if effect is not None else ""
        return Description(_fit(f"Use the ability of {card_name(c.card_id)}", extra), [c.card_id])

    def turn_card(self) -> tuple[str, str]:
        turn = self.state.turn
        assert turn is not None
        return turn.card_id, turn.slot_id

    def choose_order(self, c: cmd.ChooseOrder) -> Description:
        card_id, slot_id = self.turn_card()
        card = card_name(card_id) if card_id else "the card"
        if c.first == "card":
            return Description(f"Resolve {card} first, then the action of {slot_id}", [card_id, slot_id])
        return Description(f"Resolve the action of {slot_id} first, then {card}", [slot_id, card_id])

    def pay_special(self, c: cmd.PaySpecial | cmd.DeclineSpecial) -> Description:
        card_id, _ = self.turn_card()
        if isinstance(c, cmd.DeclineSpecial):
            return Description(f"Do not pay for {card_name(card_id)} (it is discarded)", [card_id])
        cost = content().cards[card_id].cost or 0
        return Description(f"Pay {amount(cost, 'credit')} to use {card_name(card_id)}", [card_id])

    def action_limit(self, c: cmd.DiscardActionCard | cmd.DeclineClaim) -> Description:
        card_id, _ = self.turn_card()
        if isinstance(c, cmd.DeclineClaim):
            return Description(f"Do not claim {card_name(card_id)} (it is discarded)", [card_id])
        return Description(f"Discard your action card {card_name(c.card_id)} to claim {card_name(card_id)}",
                           [c.card_id, card_id])

    def use_discarded(self, c: cmd.UseDiscardedAction) -> Description:
        turn = self.state.turn
        assert turn is not None
        card_id = turn.discarded_action
        if c.use:
            effect = content().cards[card_id].effect
            extra = f": {_short(effect)}" if effect is not None else ""
            return Description(_fit(f"Use {card_name(card_id)} one last time", extra), [card_id])
        return Description(f"Let {card_name(card_id)} go without using it", [card_id])

    # --- effects -------------------------------------------------------------------------------------------
    def source(self) -> tuple[str, list[str]]:
        """The current effect's source as words and highlights: "Small Grant", "the action of G3"."""
        top = self.state.frames[-1]
        if top.card_id and top.card_id in content().cards:
            return card_name(top.card_id), [top.card_id]
        if top.slot_id:
            return f"the action of {top.slot_id}", [top.slot_id]
        return "this effect", []

    def start_part(self, c: cmd.StartPart) -> Description:
        top = self.state.frames[-1]
        text = _short(top.parts[c.part])
        same = sum(1 for p in top.parts if _short(p) == text) > 1
        label = f"Start part {c.part + 1}: {text}" if same else f"Start: {text}"
        _, highlights = self.source()
        return Description(_clip(label), highlights)

    def end_effect(self) -> Description:
        name, highlights = self.source()
        return Description(f"End {name} now (skip its remaining parts)", highlights)

    def done(self) -> Description:
        node = _active_node(self.state)
        active = self.state.frames[-1].active
        assert active is not None
        started = isinstance(node, (Build, BuildUpgrade, Upgrade)) and active.remaining < getattr(node, "n", 1)
        texts = {
            "choose_option": "Take none of the options",
            "build": "Stop building" if started else "Build nothing",
            "upgrade": "Stop upgrading" if started else "Upgrade nothing",
            "choose_action_card": "Use no more action cards",
            "restore_action_card": "Restore no more action cards",
            "take_special": "Take no Special card",
            "gain_distinct": "Take none of these resources",
            "pay": "Do not pay",
            "exchange": "Do not exchange",
            "choose_slot": "Perform no slot",
            "choose_structure": "Choose no structure",
            "choose_city": "Convert no city",
        }
        _, highlights = self.source()
        return Description(texts.get(self.prompt, "Done"), highlights)

    def choose_option(self, c: cmd.ChooseOption) -> Description:
        node = _active_node(self.state)
        assert isinstance(node, Choice)
        text = _short(node.options[c.option])
        same = sum(1 for o in node.options if _short(o) == text) > 1
        label = f"Choose option {c.option + 1}: {text}" if same else f"Choose: {text}"
        _, highlights = self.source()
        return Description(_clip(label), highlights)

    def build(self, c: cmd.Build) -> Description:
        node = _active_node(self.state)
        geom = geometry(self.player)
        if isinstance(node, BuildUpgrade):
            cost = build_cost(self.player, geom, c.kind, c.site, "usual", None)
        else:
            assert isinstance(node, Build)
            cost = build_cost(self.player, geom, c.kind, c.site, node.cost, node.discount)
        paid = bio_payment(cost, self.player.res, c.bio_for_kelp, c.bio_for_steelplast)
        price = f"for {res_text(paid)}" if isinstance(paid, Res) and res_text(paid, "") else "for free"
        then = " and upgrade it" if isinstance(node, BuildUpgrade) else ""
        where = site_name(self.state, self.seat, c.site)
        at = "on" if c.site in geom.tunnels else "at"
        label = f"Build a {kind_name(c.kind)} {at} {where} {price}{then}"
        return Description(_fit(label, _site_bonus(self.state, self.seat, c.site)), [c.site])

    def upgrade(self, c: cmd.Upgrade) -> Description:
        node = _active_node(self.state)
        assert isinstance(node, Upgrade)
        piece = self.player.pieces[c.site]
        bags = upgrade_bags(self.player, piece.kind, node.cost)
        bag = bags[0]
        if isinstance(node.cost, UpgradeCost) and node.cost.one_of is not None and c.pay is not None:
            names = [bag_name(b) for b in node.cost.one_of]
            if c.pay in names:
                bag = bags[names.index(c.pay)]
        price = f"for {res_text(bag)}" if res_text(bag, "") else "for free"
        where = site_name(self.state, self.seat, c.site)
        return Description(f"Upgrade the {kind_name(piece.kind)} {'on' if piece.kind == 'tunnel' else 'at'} "
                           f"{where} {price}", [c.site])

    def use_action_card(self, c: cmd.UseActionCard) -> Description:
        effect = content().cards[c.card_id].effect
        extra = f": {_short(effect)}" if effect is not None else ""
        return Description(_fit(f"Use your action card {card_name(c.card_id)}", extra), [c.card_id])

    def restore_action_card(self, c: cmd.RestoreActionCard) -> Description:
        return Description(f"Turn your action card {card_name(c.card_id)} upright again", [c.card_id])

    def take_special(self, c: cmd.TakeSpecial) -> Description:
        state = self.state
        if c.source == "row" and c.row_index is not None:
            card_id = state.special_row[c.row_index - 1]
            return Description(f"Take the Special card {card_name(card_id)} from the row (position {c.row_index})",
                               [card_id, f"special_row:{c.row_index}"])
        if c.source == "deck_top":
            if special_top_visible(state):
                top = state.special_deck[0]
                return Description(f"Take the Special card {card_name(top)} from the top of the deck",
                                   [top, "special_deck"])
            return Description("Take the top card of the Special deck", ["special_deck"])
        return Description("Draw 3 Special cards from the deck, keep 1 and put 2 under the deck", ["special_deck"])

    def keep_special(self, c: cmd.KeepSpecial) -> Description:
        under = " then ".join(card_name(x) for x in c.bottom)
        label = f"Keep {card_name(c.keep)}; put {under} under the Special deck" if under else \
            f"Keep {card_name(c.keep)}"
        return Description(label, [c.keep])

    def gain_distinct(self, c: cmd.GainDistinct) -> Description:
        node = _active_node(self.state)
        assert isinstance(node, GainDistinct)
        return Description("Gain " + join_and(amount(1, t) for t in c.types), self.source()[1])

    def pay(self, c: cmd.Pay) -> Description:
        node = _active_node(self.state)
        assert isinstance(node, Pay)
        then = _short(node.then)
        if c.times == 1:
            label = f"Pay {res_text(node.cost)} to {then}"
        else:
            label = f"Pay {res_text(scaled(node.cost, c.times))} to {then}, {c.times} times"
        if len(label) > MAX_LABEL:
            label = f"Pay {res_text(scaled(node.cost, c.times))} ({c.times}×)"
        return Description(label, self.source()[1])

    def exchange(self, c: cmd.Exchange) -> Description:
        node = _active_node(self.state)
        assert isinstance(node, Exchange)
        give, get = (node.a, node.b) if c.direction == "a_to_b" else (node.b, node.a)
        return Description(f"Exchange {res_text(give)} for {res_text(get)}", self.source()[1])

    def perform_slot(self, c: cmd.PerformSlot) -> Description:
        return Description(_fit(f"Perform the action of {c.slot_id}", f": {self.slot_text(c.slot_id)}"),
                           [c.slot_id])

    def choose_structure(self, c: cmd.ChooseStructure) -> Description:
        piece = self.player.pieces[c.site]
        at = "on" if piece.kind == "tunnel" else "at"
        return Description(f"Gain the production of the upgraded {kind_name(piece.kind)} {at} "
                           f"{site_name(self.state, self.seat, c.site)}", [c.site])

    def convert_city(self, c: cmd.ConvertCity) -> Description:
        node = _active_node(self.state)
        cost = getattr(node, "cost", Res())
        price = f" for {res_text(cost)}" if res_text(cost, "") else ""
        return Description(f"Convert the city at {c.site} into a symbiotic city{price}", [c.site])

    # --- simultaneous prompts ------------------------------------------------------------------------------
    def cards_list(self, ids: Sequence[str]) -> str:
        return join_and(card_name(c) for c in ids)

    def keep_cards(self, c: cmd.KeepCards) -> Description:
        return Description(_fit(f"Keep {self.cards_list(c.card_ids)}") if c.card_ids else "Keep no card",
                           list(c.card_ids))

    def discard_cards(self, c: cmd.DiscardCards) -> Description:
        return Description(f"Discard {self.cards_list(c.card_ids)}", list(c.card_ids))

    def production_options(self, c: cmd.SetProductionOptions) -> Description:
        if not c.use_card_ids:
            return Description("Use no optional production card this Production", [])
        return Description(f"Use {self.cards_list(c.use_card_ids)} this Production", list(c.use_card_ids))

    def buy_points(self, c: cmd.BuyPoints) -> Description:
        scoring = content().cards[c.card_id].end_scoring
        assert isinstance(scoring, BuyScore)
        times = f" ({c.times} times)" if c.times > 1 else ""
        return Description(f"With {card_name(c.card_id)}, pay {res_text(scaled(scoring.cost, c.times))} for "
                           f"{amount(scoring.points * c.times, 'point')}{times}", [c.card_id])

    # --- dispatch ------------------------------------------------------------------------------------------
    def describe(self, c: Any) -> Description:
        if isinstance(c, (cmd.PlayCard, cmd.PlayCardClone)):
            return self.play(c)
        handler = _HANDLERS.get(type(c))
        if handler is None:
            raise TypeError(f"not an Underwater Cities command: {c!r}")
        return handler(self, c)


_HANDLERS: dict[type, Callable[[_Describer, Any], Description]] = {
    cmd.KeepCards: _Describer.keep_cards,
    cmd.DiscardCards: _Describer.discard_cards,
    cmd.UseAbility: _Describer.use_ability,
    cmd.ChooseOrder: _Describer.choose_order,
    cmd.PaySpecial: _Describer.pay_special,
    cmd.DeclineSpecial: _Describer.pay_special,
    cmd.DiscardActionCard: _Describer.action_limit,
    cmd.DeclineClaim: _Describer.action_limit,
    cmd.UseDiscardedAction: _Describer.use_discarded,
    cmd.StartPart: _Describer.start_part,
    cmd.EndEffect: lambda d, c: d.end_effect(),
    cmd.Done: lambda d, c: d.done(),
    cmd.ChooseOption: _Describer.choose_option,
    cmd.Build: _Describer.build,
    cmd.Upgrade: _Describer.upgrade,
    cmd.UseActionCard: _Describer.use_action_card,
    cmd.RestoreActionCard: _Describer.restore_action_card,
    cmd.TakeSpecial: _Describer.take_special,
    cmd.KeepSpecial: _Describer.keep_special,
    cmd.GainDistinct: _Describer.gain_distinct,
    cmd.Pay: _Describer.pay,
    cmd.Exchange: _Describer.exchange,
    cmd.PerformSlot: _Describer.perform_slot,
    cmd.ChooseStructure: _Describer.choose_structure,
    cmd.ConvertCity: _Describer.convert_city,
    cmd.EndTurn: lambda d, c: Description("End your turn", []),
    cmd.SetProductionOptions: _Describer.production_options,
    cmd.BuyPoints: _Describer.buy_points,
    cmd.DoneBuying: lambda d, c: Description("Buy no more points", []),
}


def describe(state: GameState, command: Any, seat: int | None = None) -> Description:
    return _Describer(state, seat).describe(command)


def describe_all(state: GameState, commands: Sequence[Any], seat: int | None = None) -> list[Description]:
    describer = _Describer(state, seat)
    return [describer.describe(c) for c in commands]
