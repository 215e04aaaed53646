"""The effect vocabulary of spec §3.7.2 as Messages (English templates, translated by ``benthic.i18n``): every
card, slot, metropolis tile, contract and site text of the catalogue is written from the same data the engine
executes, so a text never says more or less than the rules engine does.  Fragments are lower case; callers
make sentences of them (``as_sentence``)."""

from __future__ import annotations

from collections.abc import Sequence

from benthic.rules.presentation import N_, Message, as_sentence, counted, join_messages, joined, msg

from .effects import (
    BUILDING_KINDS,
    CITY_KINDS,
    STRUCTURE_KINDS,
    Ability,
    All,
    Build,
    BuildUpgrade,
    BuyScore,
    Choice,
    Condition,
    ConvertCity,
    Discount,
    Effect,
    EndScoring,
    Exchange,
    Fed,
    Gain,
    GainDistinct,
    GainMetropolis,
    HandLimit,
    If,
    Modifier,
    OnBuilt,
    OnFedAdvance,
    OnFedEnter,
    OnMetropolisConnected,
    OnSlotGave,
    OnSlotMismatch,
    OnSlotUsed,
    OnTunnelsThisTurn,
    OnUpgraded,
    Pay,
    Per,
    PerformSlot,
    Permanent,
    PerScore,
    Produce,
    Production,
    Quantity,
    Res,
    RestoreAction,
    StructureProduction,
    TableScore,
    TakeSpecial,
    TriggerEvent,
    Upgrade,
    UpgradeCost,
    UseAction,
)

RESOURCE_ORDER = ("credit", "kelp", "steelplast", "science", "biomatter")
RESOURCE_WORDS = {"credit": N_("credit"), "kelp": N_("kelp"), "steelplast": N_("steelplast"),
                  "science": N_("science"), "biomatter": N_("biomatter")}

KIND_NAMES: dict[str, tuple[str, str]] = {
    "tunnel": (N_("tunnel"), N_("tunnels")),
    "farm": (N_("farm"), N_("farms")),
    "desal": (N_("desalination plant"), N_("desalination plants")),
    "lab": (N_("laboratory"), N_("laboratories")),
    "city_nonsym": (N_("nonsymbiotic city"), N_("nonsymbiotic cities")),
    "city_sym": (N_("symbiotic city"), N_("symbiotic cities")),
    "city": (N_("city"), N_("cities")),
    "building": (N_("building"), N_("buildings")),
    "structure": (N_("structure"), N_("structures")),
}

BONUS_TEXTS = {
    "fed_card": N_("advance 1 on the Federation track and draw 1 card"),
    "steelplast": N_("gain 1 steelplast"),
    "credit": N_("gain 1 credit"),
    "kelp": N_("gain 1 kelp"),
    "science": N_("gain 1 science"),
    "biomatter": N_("gain 1 biomatter"),
}

ORDINALS = {1: N_("1st"), 2: N_("2nd"), 3: N_("3rd")}


def ordinal(n: int) -> Message:
    return Message(ORDINALS[n]) if n in ORDINALS else msg("{n}th", n=n)


def amount(n: int, what: str) -> Message:
    if what == "credit":
        return counted(n, "{n} credit", "{n} credits")
    if what == "point":
        return counted(n, "{n} point", "{n} points")
    if what == "card":
        return counted(n, "{n} card", "{n} cards")
    return {"kelp": msg("{n} kelp", n=n), "steelplast": msg("{n} steelplast", n=n),
            "science": msg("{n} science", n=n), "biomatter": msg("{n} biomatter", n=n)}[what]


def res_items(res: Res | Gain | UpgradeCost) -> list[Message]:
    return [amount(getattr(res, r), r) for r in RESOURCE_ORDER if getattr(res, r)]


def res_text(res: Res | UpgradeCost, nothing: Message | None = None) -> Message:
    """A bag of resources: "2 steelplast + 1 kelp + 1 credit" (a cost or a payment)."""
    out = joined(res_items(res), N_("{a} + {b}"), nothing or msg("nothing"))
    assert isinstance(out, Message)
    return out


def kind_group(kinds: Sequence[str]) -> str:
    """The name of a kinds list: an alias when it is exactly one (`city`, `building`, `structure`)."""
    group = set(kinds)
    for alias, members in (("city", CITY_KINDS), ("building", BUILDING_KINDS), ("structure", STRUCTURE_KINDS)):
        if group == set(members):
            return alias
    return ""


def kinds_text(kinds: Sequence[str], n: int) -> Message:
    """"1 farm", "2 farms", "1 farm or desalination plant", "up to 3 structures" is the caller's."""
    alias = kind_group(kinds)
    names = [kind_name(alias, n != 1)] if alias else [kind_name(k, n != 1) for k in kinds]
    return msg("{n} {kinds}", n=n, kinds=join_messages(names, "or"))


def kind_word(kind: str, plural: bool = False) -> str:
    """The English name of a kind (a msgid)."""
    return KIND_NAMES[kind][1 if plural else 0]


def kind_name(kind: str, plural: bool = False) -> Message:
    return Message(kind_word(kind, plural))


def _kinds_or(kinds: Sequence[str], plural: bool = False) -> Message | str:
    return join_messages([kind_name(k, plural) for k in kinds], "or")


# --- quantities and conditions ------------------------------------------------------------------------------

def quantity_text(q: Quantity, plural: bool = True) -> Message:
    """What a quantity counts, as a noun phrase: "connected cities", "upgraded farms at connected cities"."""
    if q.q == "connected_cities":
        return msg("connected cities") if plural else msg("connected city")
    if q.q == "connected_symbiotic_cities":
        return msg("connected symbiotic cities") if plural else msg("connected symbiotic city")
    if q.q == "connected_buildings":
        assert q.kind is not None
        if q.upgraded:
            return msg("upgraded {kind} at connected cities", kind=kind_name(q.kind, plural))
        return msg("{kind} at connected cities", kind=kind_name(q.kind, plural))
    if q.q == "tunnels":
        tunnel = kind_name("tunnel", plural)
        if q.adjacent_to_city:
            return (msg("upgraded {tunnel} next to a city", tunnel=tunnel) if q.upgraded
                    else msg("{tunnel} next to a city", tunnel=tunnel))
        return msg("upgraded {tunnel}", tunnel=tunnel) if q.upgraded else tunnel
    if q.q == "connected_metropolises":
        return msg("connected metropolises") if plural else msg("connected metropolis")
    if q.q == "complete_cities":
        return (msg("complete cities (connected, with a farm, a desalination plant and a laboratory)") if plural
                else msg("complete city (connected, with a farm, a desalination plant and a laboratory)"))
    if q.q == "upgraded_sets":
        return (msg("upgraded sets (an upgraded tunnel next to a city, farm, desalination plant and laboratory at "
                    "connected cities)") if plural else
                msg("upgraded set (an upgraded tunnel next to a city, farm, desalination plant and laboratory at "
                    "connected cities)"))
    if q.q == "specials_paid":
        return msg("Special cards you paid for and still hold") if plural else msg("Special card you paid for")
    raise ValueError(f"unknown quantity {q.q}")


def per_text(q: Quantity, div: int) -> Message:
    if div == 1:
        return msg("per {what}", what=quantity_text(q, plural=False))
    return msg("per {n} {what}", n=div, what=quantity_text(q))


def condition_text(cond: Condition) -> Message:
    if cond.federation_space is not None:
        return msg("your Federation marker is on space {n}", n=cond.federation_space)
    return msg("you have at least {needs}", needs=needs_text(cond))


def needs_text(cond: Condition) -> Message:
    """What a condition on a quantity asks for: "2 connected cities"."""
    assert cond.q is not None and cond.min is not None
    return msg("{n} {what}", n=cond.min, what=quantity_text(cond.q, plural=cond.min != 1))


# --- effect nodes -------------------------------------------------------------------------------------------

def gain_text(node: Gain) -> Message:
    items = res_items(node)
    if node.points:
        items.append(amount(node.points, "point"))
    parts: list[Message | str] = []
    if items:
        parts.append(msg("gain {items}", items=join_messages(items)))
    if node.cards:
        parts.append(msg("draw {cards}", cards=amount(node.cards, "card")))
    out = joined(parts, N_("{a}; {b}"), msg("gain nothing"))
    assert isinstance(out, Message)
    return out


def _build_cost(node: Build) -> Message:
    if node.cost == "free":
        text = msg(" for free")
    elif isinstance(node.cost, Res):
        text = msg(" for {cost} (instead of the usual cost)", cost=res_text(node.cost))
    else:
        text = msg(" at usual cost")
    if node.discount is not None:
        text = msg("{cost} minus {discount}", cost=text, discount=res_text(node.discount))
    return text


def _upgrade_cost(cost: object, n: int) -> Message:
    if cost == "free":
        return msg(" for free")
    if isinstance(cost, UpgradeCost):
        paid: Message | str = (join_messages([res_text(b) for b in cost.one_of], "or") if cost.one_of is not None
                               else res_text(cost))
    else:
        paid = amount(1, "science")
    return msg(", paying {cost} each", cost=paid) if n > 1 else msg(", paying {cost}", cost=paid)


def effect_text(node: Effect) -> Message:
    """One effect node (lower case, no final full stop)."""
    if isinstance(node, Gain):
        return gain_text(node)
    if isinstance(node, GainDistinct):
        return msg("gain 1 each of {n} different resources ({resources})", n=node.n,
                   resources=join_messages([Message(RESOURCE_WORDS[r]) for r in node.from_], "or"))
    if isinstance(node, Fed):
        return msg("advance {n} on the Federation track", n=node.steps)
    if isinstance(node, All):
        out = joined([effect_text(p) for p in node.parts], N_("{a}; {b}"), "")
        return out if isinstance(out, Message) else msg("nothing")
    if isinstance(node, Choice):
        return msg("either {options}", options=joined([effect_text(o) for o in node.options], N_("{a}, or {b}")))
    if isinstance(node, Build):
        site = msg(" on an expansion site") if node.site == "expansion" else ""
        what = kinds_text(node.kinds, node.n)
        if node.n > 1:
            return msg("build up to {what}{site}{cost}", what=what, site=site, cost=_build_cost(node))
        return msg("build {what}{site}{cost}", what=what, site=site, cost=_build_cost(node))
    if isinstance(node, BuildUpgrade):
        return msg("build {what} at usual cost and upgrade it for 1 science (both or neither)",
                   what=kinds_text(node.kinds, 1))
    if isinstance(node, Upgrade):
        what = kinds_text(node.kinds, node.n)
        if node.n > 1:
            return msg("upgrade up to {what}{cost}", what=what, cost=_upgrade_cost(node.cost, node.n))
        return msg("upgrade {what}{cost}", what=what, cost=_upgrade_cost(node.cost, node.n))
    if isinstance(node, UseAction):
        if node.n > 1:
            return msg("use up to {n} of your unused action cards", n=node.n)
        return msg("use {n} of your unused action cards", n=node.n)
    if isinstance(node, RestoreAction):
        if node.n > 1:
            return msg("turn up to {n} used action cards upright", n=node.n)
        return counted(node.n, "turn {n} used action card upright", "turn {n} used action cards upright")
    if isinstance(node, TakeSpecial):
        return msg("take 1 Special card")
    if isinstance(node, PerformSlot):
        return _perform_slot(node)
    if isinstance(node, Pay):
        if node.max_times > 1:
            return msg("you may pay {cost} up to {n} times to {then} each time", cost=res_text(node.cost),
                       n=node.max_times, then=effect_text(node.then))
        return msg("you may pay {cost} to {then}", cost=res_text(node.cost), then=effect_text(node.then))
    if isinstance(node, Exchange):
        return msg("exchange {a} for {b}, or {b} for {a}", a=res_text(node.a), b=res_text(node.b))
    if isinstance(node, If):
        return msg("if {condition}: {then}", condition=condition_text(node.cond), then=effect_text(node.then))
    if isinstance(node, Per):
        if node.max is not None:
            return msg("{then} {per} (at most {n} times)", then=effect_text(node.then), per=per_text(node.q, node.div),
                       n=node.max)
        return msg("{then} {per}", then=effect_text(node.then), per=per_text(node.q, node.div))
    if isinstance(node, StructureProduction):
        return msg("choose 1 of your upgraded structures next to a connected city and gain what it produces")
    if isinstance(node, ConvertCity):
        return msg("replace 1 of your nonsymbiotic cities by a symbiotic city, paying {cost}", cost=res_text(node.cost))
    if isinstance(node, GainMetropolis):
        return msg("take a random unused blue metropolis tile (it counts as connected) and resolve its instant "
                   "effect")
    raise TypeError(f"unknown effect node {node!r}")


def _perform_slot(node: PerformSlot) -> Message:
    if node.colored_only:
        where = {"available": msg("an available coloured slot"),
                 "occupied_other": msg("a coloured slot occupied by another player's tile"),
                 "available_or_occupied_other": msg("an available coloured slot or one occupied by another "
                                                    "player's tile")}
    else:
        where = {"available": msg("an available slot"),
                 "occupied_other": msg("a slot occupied by another player's tile"),
                 "available_or_occupied_other": msg("an available slot or one occupied by another player's tile")}
    return msg("perform the action of {where}, without placing a tile", where=where[node.scope])


# --- permanents, production, end scoring --------------------------------------------------------------------

def _kind_or_alias(kinds: Sequence[str]) -> Message | str:
    alias = kind_group(kinds)
    return kind_name(alias) if alias else _kinds_or(kinds)


def trigger_text(on: TriggerEvent) -> Message:
    if isinstance(on, OnSlotMismatch):
        return msg("whenever you place your action tile on a coloured slot that does not match your card's colour")
    if isinstance(on, OnFedEnter):
        return msg("whenever your Federation marker moves onto space {n}", n=on.space)
    if isinstance(on, OnFedAdvance):
        return msg("whenever you advance on the Federation track")
    if isinstance(on, OnBuilt):
        if on.nth_at_connected_city is not None:
            return msg("whenever you build the {nth} {kinds} at a connected city",
                       nth=ordinal(on.nth_at_connected_city), kinds=_kinds_or(on.kinds))
        return msg("whenever you build a {what}", what=_kind_or_alias(on.kinds))
    if isinstance(on, OnTunnelsThisTurn):
        return msg("when you build your {nth} tunnel of a turn", nth=ordinal(on.n))
    if isinstance(on, OnUpgraded):
        what = _kind_or_alias(on.kinds)
        if on.nth_upgraded_at_connected_city is not None:
            return msg("whenever an upgrade gives a connected city its {nth} upgraded {what}",
                       nth=ordinal(on.nth_upgraded_at_connected_city), what=what)
        return msg("whenever you upgrade a {what}", what=what)
    if isinstance(on, OnSlotGave):
        return msg("whenever the action of a slot gives you {resource}", resource=Message(RESOURCE_WORDS[on.res]))
    if isinstance(on, OnMetropolisConnected):
        return msg("whenever one of your metropolises becomes connected, or you gain one")
    if isinstance(on, OnSlotUsed):
        return msg("whenever you use a slot with action {action}", action=on.slot_effect)
    raise TypeError(f"unknown trigger {on!r}")


def permanent_text(perm: Permanent, slot_texts: dict[str, Message] | None = None) -> Message:
    if isinstance(perm, Ability):
        if perm.once_per_turn:
            return as_sentence(msg("Once per turn, on your turn, you may {effect}", effect=effect_text(perm.effect)))
        return as_sentence(msg("On your turn, you may {effect}", effect=effect_text(perm.effect)))
    if isinstance(perm, Discount):
        alias = kind_group(perm.kinds)
        what = kind_name(alias, plural=True) if alias else _kinds_or(perm.kinds, plural=True)
        if perm.target == "build":
            return as_sentence(msg("your {what} cost {amount} less to build (never below 0)", what=what,
                                   amount=res_text(perm.amount)))
        return as_sentence(msg("your {what} cost {amount} less to upgrade (never below 0)", what=what,
                               amount=res_text(perm.amount)))
    if isinstance(perm, HandLimit):
        return as_sentence(msg("your hand limit is {n} higher", n=perm.plus))
    on = perm.on
    once: Message | str = msg(" (once per turn)") if perm.once_per_turn else ""
    if isinstance(on, OnSlotUsed):
        slot: Message | str = (slot_texts or {}).get(on.slot_effect, on.slot_effect)
        return as_sentence(msg("whenever you use the slot \"{slot}\", it also offers: {effect}{once}", slot=slot,
                               effect=effect_text(perm.effect), once=once))
    return as_sentence(msg("on your turn, {trigger}: {effect}{once}", trigger=trigger_text(on),
                           effect=effect_text(perm.effect), once=once))


def production_text(prod: Production) -> Message:
    if isinstance(prod, Produce):
        return as_sentence(msg("in each Production: {effect}", effect=effect_text(prod.effect)))
    if isinstance(prod, Modifier) and prod.modifier == "lab_alt_output":
        return msg("In each Production you may choose: if you have a producing laboratory, produce 1 steelplast and "
                   "1 kelp instead of 1 of its science (once).")
    if isinstance(prod, Modifier):
        return msg("In each Production: if your network produces biomatter, gain {n} more biomatter.", n=prod.amount)
    raise TypeError(f"unknown production {prod!r}")


def end_scoring_text(scoring: EndScoring, lead: Message | None = None) -> Message:
    """An end-scoring record; ``lead`` says when it scores ("end of game", "if connected at the end")."""
    lead = lead or msg("end of game")
    if isinstance(scoring, PerScore):
        points = amount(scoring.points, "point")
        per = per_text(scoring.q, scoring.div)
        if scoring.max is not None:
            return as_sentence(msg("{lead}: {points} {per} (at most {n} times)", lead=lead, points=points, per=per,
                                   n=scoring.max))
        return as_sentence(msg("{lead}: {points} {per}", lead=lead, points=points, per=per))
    if isinstance(scoring, TableScore):
        steps = joined([msg("{n}+ → {points}", n=n, points=amount(p, "point")) for n, p in scoring.steps],
                       N_("{a}, {b}"))
        return as_sentence(msg("{lead}, by {what}: {steps}", lead=lead, what=quantity_text(scoring.q), steps=steps))
    if isinstance(scoring, BuyScore):
        cost, points = res_text(scoring.cost), amount(scoring.points, "point")
        if scoring.max_times > 1:
            return as_sentence(msg("{lead}: you may pay {cost} for {points}, up to {n} times", lead=lead, cost=cost,
                                   points=points, n=scoring.max_times))
        return as_sentence(msg("{lead}: you may pay {cost} for {points}", lead=lead, cost=cost, points=points))
    raise TypeError(f"unknown end scoring {scoring!r}")


def effect_sentence(node: Effect) -> Message:
    return as_sentence(effect_text(node))
