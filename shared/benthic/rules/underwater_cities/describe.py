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

from benthic.rules.presentation import MAX_LABEL, N_, Description, Message, counted, join_messages, msg

from . import commands as cmd
from .board import bag_name, bio_payment, build_cost, geometry, scaled, upgrade_bags
from .content import Geometry, content
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
from .texts import RESOURCE_ORDER, effect_text, gain_text
from .usability import side_slots
from .views import special_top_visible


@cache
def _card_names() -> dict[str, Message]:
    """Card id -> the name a label uses: the card's name (its catalogue name, a msgid), with its number when two
    cards share the name."""
    cards = content().cards
    shared = Counter(c.name for c in cards.values())
    return {cid: msg("{card} (#{number})", card=Message(c.name), number=c.number) if shared[c.name] > 1
            else Message(c.name) for cid, c in cards.items()}


def card_label(card_id: str) -> Message:
    """The card as a label names it, to translate."""
    return _card_names()[card_id]


def card_name(card_id: str) -> str:
    """The card as a label names it, in English."""
    return _card_names()[card_id].english()


# What labels say, as Messages (each English text a msgid; benthic.i18n translates them).
_AMOUNTS: dict[str, Callable[[int], Message]] = {
    "credit": lambda n: counted(n, "{n} credit", "{n} credits"),
    "kelp": lambda n: msg("{n} kelp", n=n),
    "steelplast": lambda n: msg("{n} steelplast", n=n),
    "science": lambda n: msg("{n} science", n=n),
    "biomatter": lambda n: msg("{n} biomatter", n=n),
    "point": lambda n: counted(n, "{n} point", "{n} points"),
}
_A_KIND = {"tunnel": msg("a tunnel"), "farm": msg("a farm"), "desal": msg("a desalination plant"),
           "lab": msg("a laboratory"), "city_nonsym": msg("a nonsymbiotic city"), "city_sym": msg("a symbiotic city"),
           "city": msg("a city"), "building": msg("a building"), "structure": msg("a structure")}
_THE_KIND = {"tunnel": msg("the tunnel"), "farm": msg("the farm"), "desal": msg("the desalination plant"),
             "lab": msg("the laboratory"), "city_nonsym": msg("the nonsymbiotic city"),
             "city_sym": msg("the symbiotic city"), "city": msg("the city"), "building": msg("the building"),
             "structure": msg("the structure")}
_UPGRADED_KIND = {"tunnel": msg("the upgraded tunnel"), "farm": msg("the upgraded farm"),
                  "desal": msg("the upgraded desalination plant"), "lab": msg("the upgraded laboratory"),
                  "city_nonsym": msg("the upgraded nonsymbiotic city"), "city_sym": msg("the upgraded symbiotic city"),
                  "city": msg("the upgraded city"), "building": msg("the upgraded building"),
                  "structure": msg("the upgraded structure")}
_BONUSES = {
    "fed_card": msg("advance 1 on the Federation track and draw 1 card"),
    "steelplast": msg("gain 1 steelplast"),
    "credit": msg("gain 1 credit"),
    "kelp": msg("gain 1 kelp"),
    "science": msg("gain 1 science"),
    "biomatter": msg("gain 1 biomatter"),
}


def amount(n: int, what: str) -> Message:
    return _AMOUNTS[what](n)


def res_text(res: Any) -> Message | None:
    """A bag of resources, "2 steelplast + 1 kelp" (None when empty)."""
    items = [amount(getattr(res, r), r) for r in RESOURCE_ORDER if getattr(res, r)]
    if not items:
        return None
    joined = items[-1]
    for item in reversed(items[:-1]):
        joined = msg("{a} + {b}", a=item, b=joined)
    return joined


def _price(res: Any) -> Message:
    bag = res_text(res)
    return msg("for {price}", price=bag) if bag is not None else msg("for free")


def _fit(label: Message, *extras: tuple[str, Any]) -> Message:
    """``label`` plus as many of ``extras`` (placeholder, value; "" for none) as fit in MAX_LABEL characters
    in English, in order: the label's key has a placeholder for each extra."""
    params = dict(label.params)
    for name, _ in extras:
        params[name] = ""
    for name, extra in extras:
        if extra:
            trial = Message(label.key, {**params, name: extra})
            if len(trial.english()) <= MAX_LABEL:
                params[name] = extra
    return Message(label.key, params)


def _clip(label: str) -> str:
    """At most MAX_LABEL characters, cut at a word with an ellipsis."""
    if len(label) <= MAX_LABEL:
        return label
    return label[:MAX_LABEL - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _clipped(message: Message, highlights: list[str]) -> Description:
    return Description(_clip(message.english()), highlights, message)


def _short(node: Effect) -> Message:
    return effect_text(node)


def site_name(state: GameState, seat: int, site: str) -> Message | str:
    """How a label names a site of the seat's board: "C24", "C24 (site 1)", "the expansion site of C24",
    "tunnel site C13–C14"."""
    return _named_site(geometry(state.players[seat]), site)


@cache
def site_names() -> dict[str, Message | str]:
    """Every site id of every player board -> its name as a label writes it (a site id names the same place on
    every board): how history sentences name the sites their events carry."""
    return {site: _named_site(geom, site) for geom in content().boards.values()
            for site in (*geom.buildings, *geom.tunnels)}


def _named_site(geom: Geometry, site: str) -> Message | str:
    building = geom.buildings.get(site)
    if building is not None:
        if building.expansion:
            return msg("the expansion site of {city}", city=building.city)
        return msg("{city} (site {n})", city=building.city, n=site.rsplit(":", 1)[1])
    tunnel = geom.tunnels.get(site)
    if tunnel is not None:
        return msg("tunnel site {a}–{b}", a=tunnel.city, b=tunnel.other)
    return site


def _site_bonus(state: GameState, seat: int, site: str) -> Message | str:
    geom = geometry(state.players[seat])
    bonus: str | None = geom.city_bonus.get(site)
    if bonus is None and site in geom.tunnels:
        bonus = geom.tunnels[site].bonus
    if bonus is None and site in geom.buildings:
        bonus = geom.buildings[site].bonus
    return msg("; bonus: {bonus}", bonus=_BONUSES[bonus]) if bonus else ""


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
        self.prompted = found is not None and seat in found[1]

    # --- cards and slots -----------------------------------------------------------------------------------
    def slot_text(self, slot_id: str) -> Message | str:
        slot = side_slots(self.state).get(slot_id)
        return _short(slot.effect) if slot is not None else ""

    def play(self, c: cmd.PlayCard | cmd.PlayCardClone) -> Description:
        clone = isinstance(c, cmd.PlayCardClone)
        slot = side_slots(self.state)[c.slot_id]
        how = (msg(" using the cloning tile for {price}", price=res_text(content().info.usual_costs.clone))
               if clone else "")
        if not c.card_id:
            label = msg("Place your action tile on {slot}{how} (no card left to play){effect}", slot=c.slot_id,
                        how=how)
            return Description.of(_fit(label, ("effect", msg(": {text}", text=self.slot_text(c.slot_id)))),
                                  [c.slot_id])
        card = content().cards[c.card_id]
        match = msg("; colours match") if slot.colour is not None and card.colour == slot.colour else ""
        label = msg("Play {card} on {slot}{how}{match}{effect}", card=card_label(c.card_id), slot=c.slot_id, how=how)
        effect = msg(" ({text})", text=self.slot_text(c.slot_id))
        return Description.of(_fit(label, ("match", match), ("effect", effect)), [c.card_id, c.slot_id])

    def use_ability(self, c: cmd.UseAbility) -> Description:
        perm = content().cards[c.card_id].permanent
        effect = getattr(perm, "effect", None)
        extra = msg(": {text}", text=_short(effect)) if effect is not None else ""
        return Description.of(_fit(msg("Use the ability of {card}{effect}", card=card_label(c.card_id)),
                                   ("effect", extra)), [c.card_id])

    def turn_card(self) -> tuple[str, str]:
        turn = self.state.turn
        assert turn is not None
        return turn.card_id, turn.slot_id

    def choose_order(self, c: cmd.ChooseOrder) -> Description:
        card_id, slot_id = self.turn_card()
        card = card_label(card_id) if card_id else msg("the card")
        if c.first == "card":
            return Description.of(msg("Resolve {card} first, then the action of {slot}", card=card, slot=slot_id),
                                  [card_id, slot_id])
        return Description.of(msg("Resolve the action of {slot} first, then {card}", card=card, slot=slot_id),
                              [slot_id, card_id])

    def pay_special(self, c: cmd.PaySpecial | cmd.DeclineSpecial) -> Description:
        card_id, _ = self.turn_card()
        if isinstance(c, cmd.DeclineSpecial):
            return Description.of(msg("Do not pay for {card} (it is discarded)", card=card_label(card_id)), [card_id])
        cost = content().cards[card_id].cost or 0
        return Description.of(msg("Pay {price} to use {card}", price=amount(cost, "credit"), card=card_label(card_id)),
                              [card_id])

    def action_limit(self, c: cmd.DiscardActionCard | cmd.DeclineClaim) -> Description:
        card_id, _ = self.turn_card()
        if isinstance(c, cmd.DeclineClaim):
            return Description.of(msg("Do not claim {card} (it is discarded)", card=card_label(card_id)), [card_id])
        return Description.of(msg("Discard your action card {action} to claim {card}", action=card_label(c.card_id),
                                  card=card_label(card_id)), [c.card_id, card_id])

    def use_discarded(self, c: cmd.UseDiscardedAction) -> Description:
        turn = self.state.turn
        assert turn is not None
        card_id = turn.discarded_action
        if c.use:
            effect = content().cards[card_id].effect
            extra = msg(": {text}", text=_short(effect)) if effect is not None else ""
            return Description.of(_fit(msg("Use {card} one last time{effect}", card=card_label(card_id)),
                                       ("effect", extra)), [card_id])
        return Description.of(msg("Let {card} go without using it", card=card_label(card_id)), [card_id])

    # --- effects -------------------------------------------------------------------------------------------
    def source(self) -> tuple[Message, list[str]]:
        """The current effect's source as words and highlights: "Small Grant", "the action of G3"."""
        top = self.state.frames[-1]
        if top.card_id and top.card_id in content().cards:
            return card_label(top.card_id), [top.card_id]
        if top.slot_id:
            return msg("the action of {slot}", slot=top.slot_id), [top.slot_id]
        return msg("this effect"), []

    def start_part(self, c: cmd.StartPart) -> Description:
        top = self.state.frames[-1]
        text = _short(top.parts[c.part])
        same = sum(1 for p in top.parts if _short(p) == text) > 1
        label = msg("Start part {n}: {text}", n=c.part + 1, text=text) if same else msg("Start: {text}", text=text)
        _, highlights = self.source()
        return _clipped(label, highlights)

    def end_effect(self) -> Description:
        name, highlights = self.source()
        return Description.of(msg("End {source} now (skip its remaining parts)", source=name), highlights)

    def done(self) -> Description:
        node = _active_node(self.state)
        active = self.state.frames[-1].active
        assert active is not None
        started = isinstance(node, (Build, BuildUpgrade, Upgrade)) and active.remaining < getattr(node, "n", 1)
        texts = {
            "choose_option": msg("Take none of the options"),
            "build": msg("Stop building") if started else msg("Build nothing"),
            "upgrade": msg("Stop upgrading") if started else msg("Upgrade nothing"),
            "choose_action_card": msg("Use no more action cards"),
            "restore_action_card": msg("Restore no more action cards"),
            "take_special": msg("Take no Special card"),
            "gain_distinct": msg("Take none of these resources"),
            "pay": msg("Do not pay"),
            "exchange": msg("Do not exchange"),
            "choose_slot": msg("Perform no slot"),
            "choose_structure": msg("Choose no structure"),
            "choose_city": msg("Convert no city"),
        }
        _, highlights = self.source()
        return Description.of(texts.get(self.prompt) or msg("Done"), highlights)

    def choose_option(self, c: cmd.ChooseOption) -> Description:
        node = _active_node(self.state)
        assert isinstance(node, Choice)
        text = _short(node.options[c.option])
        same = sum(1 for o in node.options if _short(o) == text) > 1
        label = msg("Choose option {n}: {text}", n=c.option + 1, text=text) if same else msg("Choose: {text}",
                                                                                              text=text)
        _, highlights = self.source()
        return _clipped(label, highlights)

    def build(self, c: cmd.Build) -> Description:
        node = _active_node(self.state)
        geom = geometry(self.player)
        if isinstance(node, BuildUpgrade):
            cost = build_cost(self.player, geom, c.kind, c.site, "usual", None)
        else:
            assert isinstance(node, Build)
            cost = build_cost(self.player, geom, c.kind, c.site, node.cost, node.discount)
        paid = bio_payment(cost, self.player.res, c.bio_for_kelp, c.bio_for_steelplast)
        price = _price(paid) if isinstance(paid, Res) else msg("for free")
        then = msg(" and upgrade it") if isinstance(node, BuildUpgrade) else ""
        where = site_name(self.state, self.seat, c.site)
        template = (N_("Build {kind} on {site} {price}{then}{bonus}") if c.site in geom.tunnels
                    else N_("Build {kind} at {site} {price}{then}{bonus}"))
        label = Message(template, {"kind": _A_KIND[c.kind], "site": where, "price": price, "then": then})
        return Description.of(_fit(label, ("bonus", _site_bonus(self.state, self.seat, c.site))), [c.site])

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
        where = site_name(self.state, self.seat, c.site)
        template = (N_("Upgrade {kind} on {site} {price}") if piece.kind == "tunnel"
                    else N_("Upgrade {kind} at {site} {price}"))
        return Description.of(Message(template, {"kind": _THE_KIND[piece.kind], "site": where, "price": _price(bag)}),
                              [c.site])

    def use_action_card(self, c: cmd.UseActionCard) -> Description:
        effect = content().cards[c.card_id].effect
        extra = msg(": {text}", text=_short(effect)) if effect is not None else ""
        return Description.of(_fit(msg("Use your action card {card}{effect}", card=card_label(c.card_id)),
                                   ("effect", extra)), [c.card_id])

    def restore_action_card(self, c: cmd.RestoreActionCard) -> Description:
        return Description.of(msg("Turn your action card {card} upright again", card=card_label(c.card_id)),
                              [c.card_id])

    def take_special(self, c: cmd.TakeSpecial) -> Description:
        state = self.state
        if c.source == "row" and c.row_index is not None:
            card_id = state.special_row[c.row_index - 1]
            return Description.of(msg("Take the Special card {card} from the row (position {n})",
                                      card=card_label(card_id), n=c.row_index), [card_id, f"special_row:{c.row_index}"])
        if c.source == "deck_top":
            if special_top_visible(state):
                top = state.special_deck[0]
                return Description.of(msg("Take the Special card {card} from the top of the deck",
                                          card=card_label(top)), [top, "special_deck"])
            return Description.of(msg("Take the top card of the Special deck"), ["special_deck"])
        return Description.of(msg("Draw 3 Special cards from the deck, keep 1 and put 2 under the deck"),
                              ["special_deck"])

    def keep_special(self, c: cmd.KeepSpecial) -> Description:
        under: Message | str = ""
        for name in reversed([card_label(x) for x in c.bottom]):
            under = msg("{a} then {b}", a=name, b=under) if under else name
        label = (msg("Keep {card}; put {under} under the Special deck", card=card_label(c.keep), under=under)
                 if under else msg("Keep {card}", card=card_label(c.keep)))
        return Description.of(label, [c.keep])

    def gain_distinct(self, c: cmd.GainDistinct) -> Description:
        node = _active_node(self.state)
        assert isinstance(node, GainDistinct)
        return Description.of(msg("Gain {what}", what=join_messages([amount(1, t) for t in c.types])),
                              self.source()[1])

    def pay(self, c: cmd.Pay) -> Description:
        node = _active_node(self.state)
        assert isinstance(node, Pay)
        then = _short(node.then)
        cost = res_text(scaled(node.cost, c.times)) or msg("nothing")
        if c.times == 1:
            label = msg("Pay {price} to {then}", price=cost, then=then)
        else:
            label = msg("Pay {price} to {then}, {times} times", price=cost, then=then, times=c.times)
        if len(label.english()) > MAX_LABEL:
            label = msg("Pay {price} ({times}×)", price=cost, times=c.times)
        return Description.of(label, self.source()[1])

    def exchange(self, c: cmd.Exchange) -> Description:
        node = _active_node(self.state)
        assert isinstance(node, Exchange)
        give, get = (node.a, node.b) if c.direction == "a_to_b" else (node.b, node.a)
        return Description.of(msg("Exchange {give} for {get}", give=res_text(give) or msg("nothing"),
                                  get=res_text(get) or msg("nothing")), self.source()[1])

    def perform_slot(self, c: cmd.PerformSlot) -> Description:
        return Description.of(_fit(msg("Perform the action of {slot}{effect}", slot=c.slot_id),
                                   ("effect", msg(": {text}", text=self.slot_text(c.slot_id)))), [c.slot_id])

    def choose_structure(self, c: cmd.ChooseStructure) -> Description:
        piece = self.player.pieces[c.site]
        template = (N_("Gain the production of {kind} on {site}") if piece.kind == "tunnel"
                    else N_("Gain the production of {kind} at {site}"))
        return Description.of(Message(template, {"kind": _UPGRADED_KIND[piece.kind],
                                                 "site": site_name(self.state, self.seat, c.site)}), [c.site])

    def convert_city(self, c: cmd.ConvertCity) -> Description:
        node = _active_node(self.state)
        cost = getattr(node, "cost", Res())
        bag = res_text(cost)
        price = msg(" for {price}", price=bag) if bag is not None else ""
        return Description.of(msg("Convert the city at {site} into a symbiotic city{price}", site=c.site, price=price),
                              [c.site])

    # --- simultaneous prompts ------------------------------------------------------------------------------
    def cards_list(self, ids: Sequence[str]) -> Message | str:
        return join_messages([card_label(c) for c in ids])

    def keep_cards(self, c: cmd.KeepCards) -> Description:
        return Description.of(msg("Keep {cards}", cards=self.cards_list(c.card_ids)) if c.card_ids
                              else msg("Keep no card"), list(c.card_ids))

    def discard_cards(self, c: cmd.DiscardCards) -> Description:
        if not self.prompted:  # §9.1 early_discard, during another seat's turn
            return Description.of(msg("Discard {cards} now, before your turn (over your hand limit)",
                                      cards=self.cards_list(c.card_ids)), list(c.card_ids))
        return Description.of(msg("Discard {cards}", cards=self.cards_list(c.card_ids)), list(c.card_ids))

    def claim_contract(self, c: cmd.ClaimContract) -> Description:
        contract = content().contracts[c.contract_id]
        return Description.of(msg("Fulfil the contract {contract}: {reward}", contract=Message(contract.name),
                                  reward=gain_text(contract.reward)), [c.contract_id])

    def production_options(self, c: cmd.SetProductionOptions) -> Description:
        if not c.use_card_ids:
            return Description.of(msg("Use no optional production card this Production"))
        return Description.of(msg("Use {cards} this Production", cards=self.cards_list(c.use_card_ids)),
                              list(c.use_card_ids))

    def buy_points(self, c: cmd.BuyPoints) -> Description:
        scoring = content().cards[c.card_id].end_scoring
        assert isinstance(scoring, BuyScore)
        times = msg(" ({n} times)", n=c.times) if c.times > 1 else ""
        return Description.of(msg("With {card}, pay {price} for {points}{times}", card=card_label(c.card_id),
                                  price=res_text(scaled(scoring.cost, c.times)) or msg("nothing"),
                                  points=amount(scoring.points * c.times, "point"), times=times), [c.card_id])

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
    cmd.EndTurn: lambda d, c: Description.of(msg("End your turn")),
    cmd.ClaimContract: _Describer.claim_contract,
    cmd.SetProductionOptions: _Describer.production_options,
    cmd.BuyPoints: _Describer.buy_points,
    cmd.DoneBuying: lambda d, c: Description.of(msg("Buy no more points")),
}


def describe(state: GameState, command: Any, seat: int | None = None) -> Description:
    return _Describer(state, seat).describe(command)


def describe_all(state: GameState, commands: Sequence[Any], seat: int | None = None) -> list[Description]:
    describer = _Describer(state, seat)
    return [describer.describe(c) for c in commands]
