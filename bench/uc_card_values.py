"""Value units (VU) of Underwater Cities cards, per spec §3.7.6 rules 3, 4 and 6.

A pure module over the JSON records of the engine's ``content/cards.json`` (§3.7.1, effects in the §3.7.2 vocabulary):
no engine import, no I/O.  ``card_value(record)`` is the card's net VU in the unit its budget uses
(instant: one play; action: one use; production: one Production phase; permanent: expected total over the
rest of the game; end-scoring: expected points).  ``card_budget(record)`` is the target of §3.7.6 rule 4
(era cards) or rule 6 (Special cards), ``within_budget(record)`` applies the tolerance.

Rule 3 fixes the VU of resources, rights and actions.  Counted effects (``per``, production, end scoring)
and the expected firing of permanents need a picture of a typical game; those assumptions are the named
constants below, and nothing else in the module is tuned.  ``card_text(record)`` renders the player-facing
text of an effect exactly, so the texts of authored cards can be checked against their effects.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

Record = Mapping[str, Any]
Node = Mapping[str, Any]

# --------------------------------------------------------------------------------------------------
# Rule 3: fixed values
# --------------------------------------------------------------------------------------------------
RESOURCE_VU: dict[str, float] = {
    "credit": 1.0, "kelp": 1.0, "steelplast": 1.0, "science": 1.0, "biomatter": 2.0,
    "points": 1.0, "cards": 1.0,
}
FED_STEP_VU = 1.0
BUILD_RIGHT_VU: dict[str, float] = {
    "tunnel": 1.0, "farm": 0.5, "desal": 0.5, "lab": 0.5, "city_nonsym": 2.0, "city_sym": 2.0,
}
EXPANSION_BUILD_RIGHT_VU = 1.0
UPGRADE_RIGHT_VU = 0.5
USE_ACTION_VU = 2.5
RESTORE_ACTION_VU = 1.5
TAKE_SPECIAL_VU = 1.5
PERFORM_SLOT_VU = {"available": 3.0, "occupied_other": 3.5, "available_or_occupied_other": 3.5}
LATE_CONDITION_FACTOR = 0.75
TOLERANCE = 0.5

# usual costs (§3.3), used for "cost saved"
USUAL_BUILD_COST: dict[str, dict[str, int]] = {
    "city_nonsym": {"steelplast": 2, "kelp": 1, "credit": 1},
    "city_sym": {"steelplast": 1, "kelp": 1, "biomatter": 1, "credit": 2},
    "farm": {"kelp": 1},
    "desal": {"credit": 1},
    "lab": {"steelplast": 1},
    "tunnel": {"steelplast": 1, "credit": 1},
}
USUAL_UPGRADE_COST: dict[str, int] = {"science": 1}

# --------------------------------------------------------------------------------------------------
# Assumptions about a typical 3-4 player game (not fixed by the spec; stated here, used everywhere)
# --------------------------------------------------------------------------------------------------
# Typical counts of one player's *connected* things.  Keys are quantity keys (see ``quantity_key``).
_COUNTS_KEYS = ("cities", "sym", "farm", "desal", "lab", "farm_up", "desal_up", "lab_up", "tunnels",
                "tunnels_up", "tunnels_adj", "tunnels_adj_up", "metros", "complete", "sets", "specials")


def _counts(*values: float) -> dict[str, float]:
    return dict(zip(_COUNTS_KEYS, values, strict=True))


#: While a card of era k is played (middle of the era): evaluates ``per`` and ``if`` in instant/action effects.
PLAY_STATE: dict[int, dict[str, float]] = {
    #          cit sym farm des lab f↑ d↑ l↑ tun t↑ adj a↑ met cmp set spc
    1: _counts(2, 0, 1, 1, 1, 0, 0, 0, 3, 1, 3, 1, 0, 0, 0, 0),
    2: _counts(4, 1, 3, 3, 3, 1, 1, 1, 6, 2, 6, 2, 1, 1, 1, 1),
    3: _counts(6, 2, 5, 5, 5, 3, 3, 3, 9, 4, 8, 4, 2, 2, 2, 2),
}
#: The network in the Production phases a production card of era k takes part in (average over them).
PRODUCTION_STATE: dict[int, dict[str, float]] = {
    1: _counts(4, 1, 3, 3, 3, 2, 2, 2, 6, 2, 6, 2, 1, 1, 1, 1),
    2: _counts(5, 2, 5, 5, 5, 3, 3, 3, 8, 3, 7, 3, 1, 2, 1, 1),
    3: _counts(6, 2, 6, 6, 6, 3, 3, 3, 10, 4, 9, 4, 2, 2, 2, 2),
}
#: The network at final scoring (end-scoring cards of every era).
END_STATE: dict[str, float] = PRODUCTION_STATE[3]

#: Own turns left after a permanent card of era k is claimed (30 turns a game; claimed mid-era).
REMAINING_TURNS: dict[int, float] = {1: 24.0, 2: 14.0, 3: 5.0}
#: Production phases a production card of era k takes part in (used only for reporting).
REMAINING_PRODUCTIONS: dict[int, int] = {1: 3, 2: 2, 3: 1}
#: Era assumed for Special cards (they can be taken at any time).
SPECIAL_CARD_ERA = 2

#: Pieces a player builds per own turn, by kind (≈ 11 tunnels, 6 of each building, 6 cities a game).
BUILD_RATE: dict[str, float] = {
    "tunnel": 0.37, "farm": 0.19, "desal": 0.19, "lab": 0.19, "city_nonsym": 0.11, "city_sym": 0.08,
}
#: Upgrades a player makes per own turn, by kind.
UPGRADE_RATE: dict[str, float] = {"tunnel": 0.15, "farm": 0.13, "desal": 0.13, "lab": 0.13}
#: Share of the pieces of one kind at a connected city that are its n-th of that kind.
NTH_SHARE: dict[int, float] = {1: 0.5, 2: 0.35, 3: 0.1, 4: 0.05}
#: Per own turn: chance of playing on a coloured slot of another colour than the card.
MISMATCH_RATE = 0.375
#: Per own turn: chance of entering Federation space n (the marker resets below space 4 every round).
FED_ENTER_RATE: dict[int, float] = {4: 0.25, 3: 0.2, 2: 0.15, 1: 0.1}
#: Per own turn: chance of completing a ``fed`` node or ``fed_card`` bonus.
FED_ADVANCE_RATE = 0.35
#: Per own turn: chance of building a 2nd tunnel in that turn.
TUNNELS_THIS_TURN_RATE: dict[int, float] = {2: 0.15, 3: 0.05}
#: Per own turn: chance that the slot's own gain parts give that resource.
SLOT_GAVE_RATE: dict[str, float] = {"steelplast": 0.3, "kelp": 0.3, "science": 0.2, "credit": 0.4, "biomatter": 0.0}
#: Per own turn: metropolis connections (≈ 2 a game).
METROPOLIS_CONNECTED_RATE = 0.07
#: Per own turn: uses of one given slot effect by its owner (with a card that rewards it).
SLOT_USED_RATE = 0.12
#: Share of own turns in which a once-per-turn ability is worth using.
ABILITY_USE_RATE = 0.5
#: Value of keeping one more card, per own turn left (hand limit +1).
HAND_LIMIT_VU_PER_TURN = 0.2
#: Flexibility of a like-for-like exchange (the net VU of swapping equal values is 0).
EXCHANGE_FLEX_VU = 0.5
#: ``structure_production``: the best upgraded structure's output (desal 3 VU, lab/farm/tunnel 2 VU).
STRUCTURE_PRODUCTION_VU = 2.5
#: ``convert_city``: a symbiotic city's usual cost exceeds a nonsymbiotic one's by 2 VU (the cost saved).
CONVERT_CITY_VU = 2.0
#: ``gain_metropolis``: mean value of the 11 blue tiles (instant + 2 productions of their output) ≈ 3.95.
GAIN_METROPOLIS_VU = 4.0
#: ``lab_alt_output``: one lab's 1 science becomes 1 steelplast + 1 kelp: +1 VU per Production.
LAB_ALT_OUTPUT_VU = 1.0
#: ``biomatter_bonus``: chance that the network's own output contains biomatter (an upgraded desal), by era.
NETWORK_BIOMATTER_CHANCE: dict[int, float] = {1: 0.4, 2: 0.7, 3: 0.85}
#: End-scoring ``buy``: VU of a resource left at the end = 1/4 point (plain conversion, §3.3).
END_CONVERSION_VU = 0.25

# --------------------------------------------------------------------------------------------------
# Rule 4 and rule 6 budgets
# --------------------------------------------------------------------------------------------------
BUDGETS: dict[str, dict[int, dict[str, float]]] = {
    "instant": {1: {"yellow": 2, "red": 3, "green": 4}, 2: {"yellow": 3, "red": 4, "green": 5},
                3: {"yellow": 4, "red": 5, "green": 6}},
    "action": {1: {"yellow": 2, "red": 2.5, "green": 3}, 2: {"yellow": 2.5, "red": 3, "green": 3.5},
               3: {"yellow": 3, "red": 3.5, "green": 4}},
    "production": {1: {"yellow": 1, "red": 1.5, "green": 2}, 2: {"yellow": 2, "red": 2.5, "green": 3},
                   3: {"yellow": 3, "red": 4, "green": 5}},
    "permanent": {1: {"yellow": 5, "red": 7, "green": 9}, 2: {"yellow": 4, "red": 6, "green": 8},
                  3: {"yellow": 3, "red": 4, "green": 6}},
    "end_scoring": {1: {"yellow": 3, "red": 4, "green": 6}, 2: {"yellow": 4, "red": 6, "green": 8},
                    3: {"yellow": 6, "red": 8, "green": 10}},
}
SPECIAL_ONE_TWO_BONUS = 2.0            # one-/two-credit Special: effect VU = cost + 2 (± TOLERANCE)
SPECIAL_THREE_NET_RANGE = (6.0, 12.0)  # three-credit Special: expected net VU (effect − cost)

ERA_OF_DECK = {"era1": 1, "era2": 2, "era3": 3, "special": SPECIAL_CARD_ERA, "start": 1}

# --------------------------------------------------------------------------------------------------
# Quantities
# --------------------------------------------------------------------------------------------------


def quantity_key(q: Node) -> str:
    """Key into the count tables for a §3.7.2 quantity object."""
    name = q["q"]
    if name == "connected_cities":
        return "cities"
    if name == "connected_symbiotic_cities":
        return "sym"
    if name == "connected_buildings":
        return q["kind"] + ("_up" if q.get("upgraded") else "")
    if name == "tunnels":
        base = "tunnels_adj" if q.get("adjacent_to_city") else "tunnels"
        return base + ("_up" if q.get("upgraded") else "")
    if name == "connected_metropolises":
        return "metros"
    if name == "complete_cities":
        return "complete"
    if name == "upgraded_sets":
        return "sets"
    if name == "specials_paid":
        return "specials"
    raise ValueError(f"unknown quantity {name!r}")


def res_vu(bag: Mapping[str, int] | None) -> float:
    if not bag:
        return 0.0
    return sum(RESOURCE_VU[k] * v for k, v in bag.items())


def _after_discount(cost: Mapping[str, int], discount: Mapping[str, int] | None) -> dict[str, int]:
    discount = discount or {}
    return {k: max(0, v - discount.get(k, 0)) for k, v in cost.items()}


# --------------------------------------------------------------------------------------------------
# Effects
# --------------------------------------------------------------------------------------------------


def _build_piece_vu(kind: str, node: Node) -> float:
    usual = USUAL_BUILD_COST[kind]
    cost = node.get("cost", "usual")
    if cost == "free":
        paid = 0.0
    else:
        base = usual if cost == "usual" else cost
        paid = res_vu(_after_discount(base, node.get("discount")))
    right = EXPANSION_BUILD_RIGHT_VU if node.get("site") == "expansion" else BUILD_RIGHT_VU[kind]
    return right + res_vu(usual) - paid


def _upgrade_piece_vu(cost: Any) -> float:
    usual = res_vu(USUAL_UPGRADE_COST)
    if cost == "free":
        paid = 0.0
    elif cost == "usual":
        paid = usual
    elif isinstance(cost, Mapping) and "one_of" in cost:
        paid = min(res_vu(b) for b in cost["one_of"])
    else:
        paid = res_vu(cost)
    return UPGRADE_RIGHT_VU + usual - paid


def condition_met(cond: Node, era: int) -> bool:
    """Whether a §3.7.2 condition usually holds while a card of ``era`` is played."""
    if "federation_space" in cond:
        return True
    return PLAY_STATE[era][quantity_key(cond["q"])] >= cond["min"]


def per_times(node: Node, counts: Mapping[str, float]) -> int:
    times = math.floor(counts[quantity_key(node["q"])] / node["div"])
    if node.get("max") is not None:
        times = min(times, node["max"])
    return max(0, times)


def effect_vu(node: Node, era: int, counts: Mapping[str, float] | None = None) -> float:
    """VU of one resolution of an effect node.  ``counts`` = the typical quantities to evaluate ``per``
    with (default: ``PLAY_STATE[era]``)."""
    counts = PLAY_STATE[era] if counts is None else counts
    op = node["op"]
    if op == "gain":
        return sum(RESOURCE_VU[k] * v for k, v in node.items() if k != "op")
    if op == "gain_distinct":
        return 1.0 * node["n"]
    if op == "fed":
        return FED_STEP_VU * node["steps"]
    if op == "all":
        return sum(effect_vu(p, era, counts) for p in node["parts"])
    if op == "choice":
        return max(effect_vu(o, era, counts) for o in node["options"])
    if op == "build":
        return node["n"] * max(_build_piece_vu(k, node) for k in node["kinds"])
    if op == "build_upgrade":
        return max(BUILD_RIGHT_VU[k] for k in node["kinds"]) + UPGRADE_RIGHT_VU
    if op == "upgrade":
        return node["n"] * _upgrade_piece_vu(node.get("cost", "usual"))
    if op == "use_action":
        return USE_ACTION_VU * node["n"]
    if op == "restore_action":
        return RESTORE_ACTION_VU * node["n"]
    if op == "take_special":
        return TAKE_SPECIAL_VU
    if op == "perform_slot":
        return PERFORM_SLOT_VU[node["scope"]]
    if op == "pay":
        net = effect_vu(node["then"], era, counts) - res_vu(node["cost"])
        return max(0.0, net * node.get("max_times", 1))
    if op == "exchange":
        return abs(res_vu(node["a"]) - res_vu(node["b"])) + EXCHANGE_FLEX_VU
    if op == "if":
        value = effect_vu(node["then"], era, counts)
        return value if condition_met(node["cond"], era) else value * LATE_CONDITION_FACTOR
    if op == "per":
        return per_times(node, counts) * effect_vu(node["then"], era, counts)
    if op == "structure_production":
        return STRUCTURE_PRODUCTION_VU
    if op == "convert_city":
        return CONVERT_CITY_VU - res_vu(node["cost"])
    if op == "gain_metropolis":
        return GAIN_METROPOLIS_VU
    raise ValueError(f"unknown effect op {op!r}")


def event_rate(ev: Node) -> float:
    """Expected firings per own turn of a §3.7.2 event."""
    kind = ev["ev"]
    if kind == "slot_mismatch":
        return MISMATCH_RATE
    if kind == "fed_enter":
        return FED_ENTER_RATE[ev["space"]]
    if kind == "fed_advance":
        return FED_ADVANCE_RATE
    if kind == "built":
        rate = sum(BUILD_RATE[k] for k in ev["kinds"])
        nth = ev.get("nth_at_connected_city")
        return rate * NTH_SHARE.get(nth, 0.0) if nth is not None else rate
    if kind == "tunnels_this_turn":
        return TUNNELS_THIS_TURN_RATE[ev["n"]]
    if kind == "upgraded":
        rate = sum(UPGRADE_RATE[k] for k in ev["kinds"])
        return rate * NTH_SHARE.get(ev["nth_upgraded_at_connected_city"], 0.0)
    if kind == "slot_gave":
        return SLOT_GAVE_RATE[ev["res"]]
    if kind == "metropolis_connected":
        return METROPOLIS_CONNECTED_RATE
    if kind == "slot_used":
        return SLOT_USED_RATE
    raise ValueError(f"unknown event {kind!r}")


def permanent_vu(perm: Node, era: int) -> float:
    turns = REMAINING_TURNS[era]
    kind = perm["kind"]
    if kind == "trigger":
        rate = min(1.0, event_rate(perm["on"]))
        return turns * rate * effect_vu(perm["effect"], era)
    if kind == "discount":
        if perm["target"] == "build":
            total = 0.0
            for k in perm["kinds"]:
                saved = res_vu(USUAL_BUILD_COST[k]) - res_vu(_after_discount(USUAL_BUILD_COST[k], perm["amount"]))
                total += BUILD_RATE[k] * saved
            return turns * total
        saved = res_vu(USUAL_UPGRADE_COST) - res_vu(_after_discount(USUAL_UPGRADE_COST, perm["amount"]))
        return turns * saved * sum(UPGRADE_RATE[k] for k in perm["kinds"])
    if kind == "hand_limit":
        return turns * HAND_LIMIT_VU_PER_TURN * perm["plus"]
    if kind == "ability":
        return turns * ABILITY_USE_RATE * effect_vu(perm["effect"], era)
    raise ValueError(f"unknown permanent kind {kind!r}")


def production_vu(prod: Node, era: int) -> float:
    kind = prod["kind"]
    if kind == "produce":
        return effect_vu(prod["effect"], era, PRODUCTION_STATE[era])
    if prod["modifier"] == "lab_alt_output":
        return LAB_ALT_OUTPUT_VU
    if prod["modifier"] == "biomatter_bonus":
        return prod["amount"] * RESOURCE_VU["biomatter"] * NETWORK_BIOMATTER_CHANCE[era]
    raise ValueError(f"unknown production modifier {prod['modifier']!r}")


def end_scoring_vu(es: Node) -> float:
    kind = es["kind"]
    if kind == "per":
        times = math.floor(END_STATE[quantity_key(es["q"])] / es["div"])
        if es.get("max") is not None:
            times = min(times, es["max"])
        return times * es["points"]
    if kind == "table":
        value = END_STATE[quantity_key(es["q"])]
        reached = [p for n, p in es["steps"] if value >= n]
        return float(max(reached)) if reached else 0.0
    if kind == "buy":
        # points above the plain 4-for-1 conversion of what is paid; the owner saves up for every purchase
        return es["max_times"] * (es["points"] - res_vu(es["cost"]) * END_CONVERSION_VU)
    raise ValueError(f"unknown end-scoring kind {kind!r}")


def card_era(record: Record) -> int:
    return ERA_OF_DECK[record["deck"]]


def card_value(record: Record) -> float:
    """Net VU of a card's effect (before any Special-card cost), in its type's budget unit."""
    era = card_era(record)
    t = record["type"]
    if t in ("instant", "action"):
        return effect_vu(record["effect"], era)
    if t == "permanent":
        return permanent_vu(record["permanent"], era)
    if t == "production":
        return production_vu(record["production"], era)
    if t == "end_scoring":
        return end_scoring_vu(record["end_scoring"])
    raise ValueError(f"unknown card type {t!r}")


def card_budget(record: Record) -> tuple[float, float] | None:
    """(low, high) allowed value of ``card_value`` under §3.7.6 rules 4 and 6, or None (PA)."""
    deck = record["deck"]
    if deck == "start":
        return None
    if deck == "special":
        if record["tier"] == "one_two":
            target = record["cost"] + SPECIAL_ONE_TWO_BONUS
            return (target - TOLERANCE, target + TOLERANCE)
        low, high = SPECIAL_THREE_NET_RANGE
        return (low + record["cost"], high + record["cost"])
    target = BUDGETS[record["type"]][card_era(record)][record["colour"]]
    return (target - TOLERANCE, target + TOLERANCE)


def within_budget(record: Record) -> bool:
    b = card_budget(record)
    if b is None:
        return True
    v = card_value(record)
    return b[0] - 1e-9 <= v <= b[1] + 1e-9


# --------------------------------------------------------------------------------------------------
# Player-facing text (exact rendering of an effect)
# --------------------------------------------------------------------------------------------------
_RES_WORDS = {
    "credit": ("credit", "credits"), "kelp": ("kelp", "kelp"), "steelplast": ("steelplast", "steelplast"),
    "science": ("science", "science"), "biomatter": ("biomatter", "biomatter"),
    "points": ("point", "points"), "cards": ("card", "cards"),
}
_KIND_WORDS = {
    "tunnel": ("tunnel", "tunnels"), "farm": ("farm", "farms"),
    "desal": ("desalination plant", "desalination plants"), "lab": ("laboratory", "laboratories"),
    "city_nonsym": ("nonsymbiotic city", "nonsymbiotic cities"),
    "city_sym": ("symbiotic city", "symbiotic cities"),
}
_ALIAS_WORDS = [
    (("tunnel", "farm", "desal", "lab"), ("structure", "structures")),
    (("farm", "desal", "lab"), ("building", "buildings")),
    (("city_nonsym", "city_sym"), ("city", "cities")),
]
SLOT_NAMES = {
    "A2": "Gain 2 science, or upgrade up to 3 structures", "A5": "Gain 1 science, 1 steelplast, 1 kelp",
    "A6": "Build 2 tunnels", "A9": "Build 2 farms", "A11": "Gain 2 steelplast and 1 kelp",
    "A12": "Build 2 laboratories", "A13": "Advance 2 on the Federation track",
    "A15": "Build 2 desalination plants", "A16": "Build 2 farms or 2 laboratories",
}


def _join(items: list[str], last: str = "and") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {last} " + items[-1]


def res_text(bag: Mapping[str, int]) -> str:
    return _join([f"{v} {_RES_WORDS[k][0 if v == 1 else 1]}" for k, v in bag.items() if k != "op" and v])


def kinds_text(kinds: list[str], n: int) -> str:
    plural = n != 1
    for members, words in _ALIAS_WORDS:
        if sorted(kinds) == sorted(members):
            return words[plural]
    return _join([_KIND_WORDS[k][plural] for k in kinds], "or")


def _quantity_words(q: Node) -> tuple[str, str]:
    key = quantity_key(q)
    up = key.endswith("_up")
    base = key[:-3] if up else key
    u = "upgraded " if up else ""
    return {
        "cities": ("connected city", "connected cities"),
        "sym": ("connected symbiotic city", "connected symbiotic cities"),
        "farm": (f"connected {u}farm", f"connected {u}farms"),
        "desal": (f"connected {u}desalination plant", f"connected {u}desalination plants"),
        "lab": (f"connected {u}laboratory", f"connected {u}laboratories"),
        "tunnels": (f"{u}tunnel", f"{u}tunnels"),
        "tunnels_adj": (f"{u}tunnel adjacent to a city", f"{u}tunnels adjacent to a city"),
        "metros": ("connected metropolis", "connected metropolises"),
        "complete": ("connected city with all 3 building types", "connected cities with all 3 building types"),
        "sets": ("set of 4 different upgraded structures", "sets of 4 different upgraded structures"),
        "specials": ("Special card you paid for", "Special cards you paid for"),
    }[base]


def quantity_text(q: Node) -> str:
    return _quantity_words(q)[0]


def quantity_plural(q: Node) -> str:
    return _quantity_words(q)[1]


def _per_text(q: Node, div: int) -> str:
    return f"per {quantity_text(q)}" if div == 1 else f"per {div} {quantity_plural(q)}"


def _cost_clause(node: Node, kinds_phrase: str) -> str:
    cost = node.get("cost", "usual")
    if cost == "free":
        s = " for free"
    elif cost == "usual":
        s = " (usual cost)"
    else:
        s = f" for {res_text(cost)}"
    if node.get("discount"):
        s += f", with {res_text(node['discount'])} less to pay"
    return s


def effect_text(node: Node) -> str:
    """One or more sentences, each ending with a period."""
    op = node["op"]
    if op == "gain":
        return f"Gain {res_text(node)}."
    if op == "gain_distinct":
        return f"Gain {node['n']} different resources (credit, kelp, steelplast or science)."
    if op == "fed":
        return f"Advance {node['steps']} on the Federation track."
    if op == "all":
        return " ".join(effect_text(p) for p in node["parts"])
    if op == "choice":
        opts = [_lc(effect_text(o)).rstrip(".") for o in node["options"]]
        return "Either " + ", or ".join(opts) + "."
    if op == "build":
        n = node["n"]
        what = kinds_text(node["kinds"], n)
        count = f"up to {n}" if n > 1 else "1"
        site = " on an expansion site" if node.get("site") == "expansion" else ""
        return f"Build {count} {what}{site}{_cost_clause(node, what)}."
    if op == "build_upgrade":
        return f"Build 1 {kinds_text(node['kinds'], 1)} (usual cost) and upgrade it for 1 science."
    if op == "upgrade":
        n = node["n"]
        what = kinds_text(node["kinds"], n)
        count = f"up to {n}" if n > 1 else "1"
        cost = node.get("cost", "usual")
        each = " each" if n > 1 else ""
        if cost == "free":
            c = " for free"
        elif cost == "usual":
            c = f", paying 1 science{each}"
        elif isinstance(cost, Mapping) and "one_of" in cost:
            c = f", paying {res_text(cost['one_of'][0])} or {res_text(cost['one_of'][1])}{each}"
        else:
            c = f", paying {res_text(cost)}{each}"
        return f"Upgrade {count} {what}{c}."
    if op == "use_action":
        n = node["n"]
        return "Use 1 of your action cards." if n == 1 else f"Use up to {n} of your action cards."
    if op == "restore_action":
        n = node["n"]
        return ("Turn 1 of your used action cards upright." if n == 1
                else f"Turn up to {n} of your used action cards upright.")
    if op == "take_special":
        return "Take 1 Special card."
    if op == "perform_slot":
        scope = {
            "available": "an available slot",
            "occupied_other": "a slot occupied by another player",
            "available_or_occupied_other": "a slot, available or occupied by another player",
        }[node["scope"]]
        tail = " (coloured slots only)" if node.get("colored_only") else (
            " (the always-available slot included)" if node["scope"] != "occupied_other" else "")
        return f"Perform the action of {scope}{tail}."
    if op == "pay":
        m = node.get("max_times", 1)
        times = f" (up to {m} times)" if m > 1 else ""
        return f"Pay {res_text(node['cost'])}{times} to: {_lc(effect_text(node['then']))}"
    if op == "exchange":
        a, b = res_text(node["a"]), res_text(node["b"])
        return f"Exchange {a} for {b}, or {b} for {a}."
    if op == "if":
        cond = node["cond"]
        if "federation_space" in cond:
            c = f"If your marker is on space {cond['federation_space']} of the Federation track"
        else:
            n = cond["min"]
            c = f"If you have at least {n} {quantity_text(cond['q']) if n == 1 else quantity_plural(cond['q'])}"
        return f"{c}: {_lc(effect_text(node['then']))}"
    if op == "per":
        mx = f" (max {node['max']})" if node.get("max") is not None else ""
        return f"Gain {res_text(node['then'])} {_per_text(node['q'], node['div'])}{mx}."
    if op == "structure_production":
        return "Choose 1 upgraded structure adjacent to a connected city: gain what it produces."
    if op == "convert_city":
        return f"Pay {res_text(node['cost'])} to replace 1 of your nonsymbiotic cities with a symbiotic city."
    if op == "gain_metropolis":
        return "Take 1 random unused blue metropolis tile: it counts as connected; resolve its instant effect now."
    raise ValueError(f"unknown effect op {op!r}")


def _lc(s: str) -> str:
    return s[:1].lower() + s[1:]


def event_text(ev: Node) -> str:
    kind = ev["ev"]
    if kind == "slot_mismatch":
        return "you place an action tile on a coloured slot that does not match the colour of the card you played"
    if kind == "fed_enter":
        return f"you move onto space {ev['space']} of the Federation track"
    if kind == "fed_advance":
        return "you advance on the Federation track"
    if kind == "built":
        nth = ev.get("nth_at_connected_city")
        what = kinds_text(ev["kinds"], 1)
        if nth is None:
            return f"you build a {what}"
        return f"you build the {_ordinal(nth)} {what} at a connected city"
    if kind == "tunnels_this_turn":
        return f"you build your {_ordinal(ev['n'])} tunnel in the same turn"
    if kind == "upgraded":
        return (f"you upgrade the {_ordinal(ev['nth_upgraded_at_connected_city'])} "
                f"{kinds_text(ev['kinds'], 1)} at a connected city")
    if kind == "slot_gave":
        return f"an action slot gives you {ev['res']}"
    if kind == "metropolis_connected":
        return "one of your metropolises becomes connected, or you gain one"
    if kind == "slot_used":
        return f'you use the "{SLOT_NAMES[ev["slot_effect"]]}" slot'
    raise ValueError(kind)


def _ordinal(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth"}[n]


def card_text(record: Record) -> str:
    """The exact player-facing rendering of a card's effect (used for the authored cards)."""
    t = record["type"]
    if t in ("instant", "action"):
        return effect_text(record["effect"])
    if t == "permanent":
        p = record["permanent"]
        if p["kind"] == "trigger":
            head = "Once per turn, whenever" if p.get("once_per_turn") else "Whenever"
            body = _lc(effect_text(p["effect"]))
            if p["on"]["ev"] == "slot_used":
                body = "you may also " + body[:1].lower() + body[1:]
            return f"{head} {event_text(p['on'])}, {body}"
        if p["kind"] == "discount":
            what = kinds_text(p["kinds"], 2)
            if p["target"] == "build":
                return f"Your {what} cost {res_text(p['amount'])} less."
            return f"Upgrading your {what} costs {res_text(p['amount'])} less."
        if p["kind"] == "hand_limit":
            return f"Your hand limit is increased by {p['plus']}."
        if p["kind"] == "ability":
            return f"Once per turn: {_lc(effect_text(p['effect']))}"
    if t == "production":
        p = record["production"]
        if p["kind"] == "produce":
            return f"Production: {_lc(effect_text(p['effect']))}"
        if p["modifier"] == "lab_alt_output":
            return ("Production (optional): once, one of your producing laboratories yields 1 steelplast and "
                    "1 kelp instead of 1 science.")
        return f"Production: if your network produced at least 1 biomatter, gain {p['amount']} more biomatter."
    if t == "end_scoring":
        e = record["end_scoring"]
        if e["kind"] == "per":
            mx = f" (max {e['max']})" if e.get("max") is not None else ""
            pts = f"{e['points']} point{'s' if e['points'] != 1 else ''}"
            return f"End of game: {pts} {_per_text(e['q'], e['div'])}{mx}."
        if e["kind"] == "table":
            steps = e["steps"]
            parts = [f"{n}{'+' if i == len(steps) - 1 else ''} → {p}" for i, (n, p) in enumerate(steps)]
            return f"End of game, {quantity_plural(e['q'])}: {', '.join(parts)} points."
        if e["kind"] == "buy":
            m = e["max_times"]
            times = f"up to {m} times" if m > 1 else "once"
            pts = f"{e['points']} point{'s' if e['points'] != 1 else ''}"
            return f"End of game, {times}: pay {res_text(e['cost'])} for {pts}."
    raise ValueError(f"cannot render card {record.get('number')}")
