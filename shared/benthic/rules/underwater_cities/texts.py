"""English for the effect vocabulary of spec §3.7.2: every card, slot, metropolis tile, contract and site text
of the catalogue is written from the same data the engine executes, so a text never says more or less
than the rules engine does.  Fragments are lower case; callers make sentences of them."""

from __future__ import annotations

from collections.abc import Sequence

from benthic.rules.presentation import count, join_and, join_or, sentence

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
_PLURAL = {"credit": "credits", "point": "points", "card": "cards"}  # kelp, steelplast, science, biomatter: mass

KIND_NAMES: dict[str, tuple[str, str]] = {
    "tunnel": ("tunnel", "tunnels"),
    "farm": ("farm", "farms"),
    "desal": ("desalination plant", "desalination plants"),
    "lab": ("laboratory", "laboratories"),
    "city_nonsym": ("nonsymbiotic city", "nonsymbiotic cities"),
    "city_sym": ("symbiotic city", "symbiotic cities"),
    "city": ("city", "cities"),
    "building": ("building", "buildings"),
    "structure": ("structure", "structures"),
}

BONUS_TEXTS = {
    "fed_card": "advance 1 on the Federation track and draw 1 card",
    "steelplast": "gain 1 steelplast",
    "credit": "gain 1 credit",
    "kelp": "gain 1 kelp",
    "science": "gain 1 science",
    "biomatter": "gain 1 biomatter",
}

ORDINALS = {1: "1st", 2: "2nd", 3: "3rd"}


def ordinal(n: int) -> str:
    return ORDINALS.get(n, f"{n}th")


def amount(n: int, what: str) -> str:
    return count(n, what, _PLURAL.get(what, what))


def res_items(res: Res | Gain | UpgradeCost) -> list[str]:
    return [amount(getattr(res, r), r) for r in RESOURCE_ORDER if getattr(res, r)]


def res_text(res: Res | UpgradeCost, nothing: str = "nothing") -> str:
    """A bag of resources: "2 steelplast + 1 kelp + 1 credit" (a cost or a payment)."""
    return " + ".join(res_items(res)) or nothing


def kind_group(kinds: Sequence[str]) -> str:
    """The name of a kinds list: an alias when it is exactly one (`city`, `building`, `structure`)."""
    group = set(kinds)
    for alias, members in (("city", CITY_KINDS), ("building", BUILDING_KINDS), ("structure", STRUCTURE_KINDS)):
        if group == set(members):
            return alias
    return ""


def kinds_text(kinds: Sequence[str], n: int) -> str:
    """"1 farm", "2 farms", "1 farm or desalination plant", "up to 3 structures" is the caller's."""
    alias = kind_group(kinds)
    if alias:
        singular, plural = KIND_NAMES[alias]
        return f"{n} {singular if n == 1 else plural}"
    names = [KIND_NAMES[k][0 if n == 1 else 1] for k in kinds]
    return f"{n} {join_or(names)}"


def kind_name(kind: str, plural: bool = False) -> str:
    return KIND_NAMES[kind][1 if plural else 0]


def _up_to(n: int) -> str:
    return "up to " if n > 1 else ""


# --- quantities and conditions ------------------------------------------------------------------------------

def quantity_text(q: Quantity, plural: bool = True) -> str:
    """What a quantity counts, as a noun phrase: "connected cities", "upgraded farms at connected cities"."""
    upgraded = "upgraded " if q.upgraded else ""
    if q.q == "connected_cities":
        return "connected cities" if plural else "connected city"
    if q.q == "connected_symbiotic_cities":
        return "connected symbiotic cities" if plural else "connected symbiotic city"
    if q.q == "connected_buildings":
        assert q.kind is not None
        return f"{upgraded}{kind_name(q.kind, plural)} at connected cities"
    if q.q == "tunnels":
        where = " next to a city" if q.adjacent_to_city else ""
        return f"{upgraded}{kind_name('tunnel', plural)}{where}"
    if q.q == "connected_metropolises":
        return "connected metropolises" if plural else "connected metropolis"
    if q.q == "complete_cities":
        return ("complete cities" if plural else "complete city") + \
            " (connected, with a farm, a desalination plant and a laboratory)"
    if q.q == "upgraded_sets":
        return ("upgraded sets" if plural else "upgraded set") + \
            " (an upgraded tunnel next to a city, farm, desalination plant and laboratory at connected cities)"
    if q.q == "specials_paid":
        return "Special cards you paid for and still hold" if plural else "Special card you paid for"
    raise ValueError(f"unknown quantity {q.q}")


def per_text(q: Quantity, div: int) -> str:
    return f"per {quantity_text(q, plural=False)}" if div == 1 else f"per {div} {quantity_text(q)}"


def condition_text(cond: Condition) -> str:
    if cond.federation_space is not None:
        return f"your Federation marker is on space {cond.federation_space}"
    assert cond.q is not None and cond.min is not None
    return f"you have at least {cond.min} {quantity_text(cond.q, plural=cond.min != 1)}"


# --- effect nodes -------------------------------------------------------------------------------------------

def gain_text(node: Gain) -> str:
    items = res_items(node)
    if node.points:
        items.append(amount(node.points, "point"))
    parts = []
    if items:
        parts.append("gain " + join_and(items))
    if node.cards:
        parts.append("draw " + amount(node.cards, "card"))
    return "; ".join(parts) or "gain nothing"


def _build_cost(node: Build) -> str:
    if node.cost == "free":
        text = " for free"
    elif isinstance(node.cost, Res):
        text = f" for {res_text(node.cost)} (instead of the usual cost)"
    else:
        text = " at usual cost"
    if node.discount is not None:
        text += f" minus {res_text(node.discount)}"
    return text


def _upgrade_cost(cost: object, n: int) -> str:
    each = " each" if n > 1 else ""
    if cost == "free":
        return " for free"
    if isinstance(cost, UpgradeCost):
        if cost.one_of is not None:
            return ", paying " + join_or(res_text(b) for b in cost.one_of) + each
        return f", paying {res_text(cost)}{each}"
    return f", paying 1 science{each}"


def effect_text(node: Effect) -> str:
    """One effect node in English (lower case, no final full stop)."""
    if isinstance(node, Gain):
        return gain_text(node)
    if isinstance(node, GainDistinct):
        return f"gain 1 each of {node.n} different resources ({join_or(node.from_)})"
    if isinstance(node, Fed):
        return f"advance {node.steps} on the Federation track"
    if isinstance(node, All):
        return "; ".join(effect_text(p) for p in node.parts)
    if isinstance(node, Choice):
        return "either " + ", or ".join(effect_text(o) for o in node.options)
    if isinstance(node, Build):
        site = " on an expansion site" if node.site == "expansion" else ""
        return f"build {_up_to(node.n)}{kinds_text(node.kinds, node.n)}{site}{_build_cost(node)}"
    if isinstance(node, BuildUpgrade):
        return f"build {kinds_text(node.kinds, 1)} at usual cost and upgrade it for 1 science (both or neither)"
    if isinstance(node, Upgrade):
        return f"upgrade {_up_to(node.n)}{kinds_text(node.kinds, node.n)}{_upgrade_cost(node.cost, node.n)}"
    if isinstance(node, UseAction):
        return f"use {_up_to(node.n)}{count(node.n, 'of your unused action cards', 'of your unused action cards')}"
    if isinstance(node, RestoreAction):
        return f"turn {_up_to(node.n)}{count(node.n, 'used action card')} upright"
    if isinstance(node, TakeSpecial):
        return "take 1 Special card"
    if isinstance(node, PerformSlot):
        kind = "coloured slot" if node.colored_only else "slot"
        where = {"available": f"an available {kind}",
                 "occupied_other": f"a {kind} occupied by another player's tile",
                 "available_or_occupied_other": f"an available {kind} or one occupied by another player's tile"}
        return f"perform the action of {where[node.scope]}, without placing a tile"
    if isinstance(node, Pay):
        times = f" up to {node.max_times} times" if node.max_times > 1 else ""
        each = " each time" if node.max_times > 1 else ""
        return f"you may pay {res_text(node.cost)}{times} to {effect_text(node.then)}{each}"
    if isinstance(node, Exchange):
        return f"exchange {res_text(node.a)} for {res_text(node.b)}, or {res_text(node.b)} for {res_text(node.a)}"
    if isinstance(node, If):
        return f"if {condition_text(node.cond)}: {effect_text(node.then)}"
    if isinstance(node, Per):
        cap = f" (at most {node.max} times)" if node.max is not None else ""
        return f"{effect_text(node.then)} {per_text(node.q, node.div)}{cap}"
    if isinstance(node, StructureProduction):
        return "choose 1 of your upgraded structures next to a connected city and gain what it produces"
    if isinstance(node, ConvertCity):
        return f"replace 1 of your nonsymbiotic cities by a symbiotic city, paying {res_text(node.cost)}"
    if isinstance(node, GainMetropolis):
        return "take a random unused blue metropolis tile (it counts as connected) and resolve its instant effect"
    raise TypeError(f"unknown effect node {node!r}")


# --- permanents, production, end scoring --------------------------------------------------------------------

def trigger_text(on: TriggerEvent) -> str:
    if isinstance(on, OnSlotMismatch):
        return "whenever you place your action tile on a coloured slot that does not match your card's colour"
    if isinstance(on, OnFedEnter):
        return f"whenever your Federation marker moves onto space {on.space}"
    if isinstance(on, OnFedAdvance):
        return "whenever you advance on the Federation track"
    if isinstance(on, OnBuilt):
        if on.nth_at_connected_city is not None:
            return (f"whenever you build the {ordinal(on.nth_at_connected_city)} "
                    f"{join_or(kind_name(k) for k in on.kinds)} at a connected city")
        alias = kind_group(on.kinds)
        what = KIND_NAMES[alias][0] if alias else join_or(kind_name(k) for k in on.kinds)
        return f"whenever you build a {what}"
    if isinstance(on, OnTunnelsThisTurn):
        return f"when you build your {ordinal(on.n)} tunnel of a turn"
    if isinstance(on, OnUpgraded):
        alias = kind_group(on.kinds)
        what = KIND_NAMES[alias][0] if alias else join_or(kind_name(k) for k in on.kinds)
        if on.nth_upgraded_at_connected_city is not None:
            return (f"whenever an upgrade gives a connected city its {ordinal(on.nth_upgraded_at_connected_city)} "
                    f"upgraded {what}")
        return f"whenever you upgrade a {what}"
    if isinstance(on, OnSlotGave):
        return f"whenever the action of a slot gives you {on.res}"
    if isinstance(on, OnMetropolisConnected):
        return "whenever one of your metropolises becomes connected, or you gain one"
    if isinstance(on, OnSlotUsed):
        return f"whenever you use a slot with action {on.slot_effect}"
    raise TypeError(f"unknown trigger {on!r}")


def permanent_text(perm: Permanent, slot_texts: dict[str, str] | None = None) -> str:
    if isinstance(perm, Ability):
        once = "Once per turn, on your turn" if perm.once_per_turn else "On your turn"
        return sentence(f"{once}, you may {effect_text(perm.effect)}")
    if isinstance(perm, Discount):
        target = "build" if perm.target == "build" else "upgrade"
        alias = kind_group(perm.kinds)
        what = KIND_NAMES[alias][1] if alias else join_or(kind_name(k, plural=True) for k in perm.kinds)
        return sentence(f"your {what} cost {res_text(perm.amount)} less to {target} (never below 0)")
    if isinstance(perm, HandLimit):
        return sentence(f"your hand limit is {perm.plus} higher")
    on = perm.on
    if isinstance(on, OnSlotUsed):
        slot = (slot_texts or {}).get(on.slot_effect, on.slot_effect)
        once = " (once per turn)" if perm.once_per_turn else ""
        return sentence(f"whenever you use the slot \"{slot.rstrip('.')}\", it also offers: "
                        f"{effect_text(perm.effect)}{once}")
    once = " (once per turn)" if perm.once_per_turn else ""
    return sentence(f"on your turn, {trigger_text(on)}: {effect_text(perm.effect)}{once}")


def production_text(prod: Production) -> str:
    if isinstance(prod, Produce):
        return sentence(f"in each Production: {effect_text(prod.effect)}")
    if isinstance(prod, Modifier) and prod.modifier == "lab_alt_output":
        return sentence("in each Production you may choose: if you have a producing laboratory, produce "
                        "1 steelplast and 1 kelp instead of 1 of its science (once)")
    if isinstance(prod, Modifier):
        return sentence(f"in each Production: if your network produces biomatter, gain {prod.amount} "
                        "more biomatter")
    raise TypeError(f"unknown production {prod!r}")


def end_scoring_text(scoring: EndScoring, lead: str = "end of game") -> str:
    """An end-scoring record; ``lead`` says when it scores ("end of game", "if connected at the end")."""
    if isinstance(scoring, PerScore):
        cap = f" (at most {scoring.max} times)" if scoring.max is not None else ""
        return sentence(f"{lead}: {amount(scoring.points, 'point')} {per_text(scoring.q, scoring.div)}{cap}")
    if isinstance(scoring, TableScore):
        steps = ", ".join(f"{n}+ → {amount(p, 'point')}" for n, p in scoring.steps)
        return sentence(f"{lead}, by {quantity_text(scoring.q)}: {steps}")
    if isinstance(scoring, BuyScore):
        times = f", up to {scoring.max_times} times" if scoring.max_times > 1 else ""
        return sentence(f"{lead}: you may pay {res_text(scoring.cost)} for {amount(scoring.points, 'point')}"
                        f"{times}")
    raise TypeError(f"unknown end scoring {scoring!r}")


def effect_sentence(node: Effect) -> str:
    return sentence(effect_text(node))
