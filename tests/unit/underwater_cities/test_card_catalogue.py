"""Design rules of the Underwater Cities card catalogue (spec §3.7) as tests.

The catalogue ``content/cards.json`` is read directly (no engine import), and the value units come from
``bench/uc_card_values.py`` (no engine import either), so these tests run whatever state the engine package
is in.

- counts and colour/type mix per era (§3.7.3), Special tiers and costs, unique numbers, the PA;
- the record schema (§3.7.1) and the §3.7.2 vocabulary (every node, quantity, condition, event), the limits
  of §3.7.6 rules 2 and 7;
- every known (§3.7.4) and proposed (§3.7.5) card exactly as the spec gives it: the spec's shorthand is
  copied below and parsed into the JSON vocabulary, then compared with the record;
- value units (§3.7.6 rules 3, 4, 6) within tolerance for every authored card; the spec's own cards are
  exempt, their values are logged by ``test_report_spec_card_values`` (run with ``-s`` to see them);
- colour flavour statistics (§3.7.6 rule 5), texts present, authored texts equal to their rendering.
"""

from __future__ import annotations

import collections
import json
import re
from pathlib import Path
from typing import Any

import pytest

from bench import uc_card_values as cv

ROOT = Path(__file__).resolve().parents[3]
PKG = ROOT / "shared" / "benthic" / "rules" / "underwater_cities"
CARDS_PATH = PKG / "content" / "cards.json"
# §3.7.4/§3.7.5 of the rules text (outside the repository), the number, name and DSL of each card: copied into
# the repository, where its header says from where.
SPEC_CARDS_COPY = Path(__file__).with_name("spec_cards.tsv")


DOC = json.loads(CARDS_PATH.read_text(encoding="utf-8"))
CARDS: list[dict[str, Any]] = DOC["cards"]
BY_NUMBER = {c["number"]: c for c in CARDS if c["number"] is not None}
PA = [c for c in CARDS if c["id"] == "PA"]
AUTHORED_NOTE = "authored within the design rules of §3.7.6"
AUTHORED = [c for c in CARDS if c.get("note") == AUTHORED_NOTE]
ERA_DECKS = ("era1", "era2", "era3")
COLOURS = ("green", "red", "yellow")
TYPES = ("instant", "permanent", "action", "production", "end_scoring")
NUMBER_RANGES = {"era1": range(1, 67), "era2": range(67, 124), "era3": range(124, 181), "special": range(181, 206)}
# §3.7.3: per colour (green = red = yellow), instant / permanent / action / production / end-scoring
MIX = {
    "era1": (22, {"instant": 8, "permanent": 4, "action": 4, "production": 4, "end_scoring": 2}),
    "era2": (19, {"instant": 7, "permanent": 3, "action": 3, "production": 3, "end_scoring": 3}),
    "era3": (19, {"instant": 8, "permanent": 2, "action": 2, "production": 2, "end_scoring": 5}),
}


# ---------------------------------------------------------------------------------------------------------------
# The spec's shorthand (§3.7.2 left column) → JSON vocabulary
# ---------------------------------------------------------------------------------------------------------------
ALIASES = {"building": ["farm", "desal", "lab"], "structure": ["tunnel", "farm", "desal", "lab"],
           "city": ["city_nonsym", "city_sym"]}
QUANTITIES = {
    "conn_cities": {"q": "connected_cities"},
    "conn_sym_cities": {"q": "connected_symbiotic_cities"},
    "conn_metros": {"q": "connected_metropolises"},
    "complete_cities": {"q": "complete_cities"},
    "upgraded_sets": {"q": "upgraded_sets"},
    "specials_paid": {"q": "specials_paid"},
}


class Shorthand:
    """Recursive-descent parser of the shorthand used in the spec's card tables."""

    def __init__(self, text: str) -> None:
        self.s = text
        self.i = 0

    # -- low level
    def ws(self) -> None:
        while self.i < len(self.s) and self.s[self.i] == " ":
            self.i += 1

    def peek(self, lit: str) -> bool:
        self.ws()
        return self.s.startswith(lit, self.i)

    def eat(self, lit: str) -> None:
        self.ws()
        if not self.s.startswith(lit, self.i):
            raise ValueError(f"expected {lit!r} at {self.i} in {self.s!r}")
        self.i += len(lit)

    def opt(self, lit: str) -> bool:
        if self.peek(lit):
            self.i += len(lit)
            return True
        return False

    def name(self) -> str:
        self.ws()
        m = re.compile(r"[A-Za-z_][A-Za-z_0-9]*").match(self.s, self.i)
        if not m:
            raise ValueError(f"name expected at {self.i} in {self.s!r}")
        self.i = m.end()
        return m.group(0)

    def int(self) -> int:
        self.ws()
        m = re.compile(r"\d+").match(self.s, self.i)
        if not m:
            raise ValueError(f"number expected at {self.i} in {self.s!r}")
        self.i = m.end()
        return int(m.group(0))

    def done(self) -> None:
        self.ws()
        if self.i != len(self.s):
            raise ValueError(f"trailing text {self.s[self.i:]!r}")

    # -- pieces
    def bag(self) -> dict[str, int]:
        self.eat("{")
        out: dict[str, int] = {}
        while not self.opt("}"):
            key = self.name()
            self.eat(":")
            out[key] = self.int()
            self.opt(",")
        return out

    def kinds(self) -> list[str]:
        out: list[str] = []
        while True:
            for k in ALIASES.get(n := self.name(), [n]):
                if k not in out:
                    out.append(k)
            if not self.opt("|"):
                return out

    def quantity(self) -> dict[str, Any]:
        n = self.name()
        up = True if self.opt("↑") else None
        if n in QUANTITIES:
            return dict(QUANTITIES[n])
        if n in ("conn_farms", "conn_desals", "conn_labs"):
            return {"q": "connected_buildings", "kind": n[5:-1], "upgraded": up}
        if n == "tunnels":
            return {"q": "tunnels", "upgraded": up}
        if n == "tunnels_adj":
            return {"q": "tunnels", "adjacent_to_city": True, "upgraded": up}
        raise ValueError(f"unknown quantity {n}")

    # -- effects
    def effect(self) -> dict[str, Any]:
        n = self.name()
        if n in ("all", "choice"):
            self.eat("[")
            sep = ";" if n == "all" else "/"
            items = [self.effect()]
            while self.opt(sep):
                items.append(self.effect())
            self.eat("]")
            return {"op": "all", "parts": items} if n == "all" else {"op": "choice", "options": items}
        if n == "gain":
            return {"op": "gain", **self.bag()}
        if n == "gain_distinct":
            self.eat("(")
            k = self.int()
            self.eat(")")
            return {"op": "gain_distinct", "n": k, "from": ["credit", "kelp", "steelplast", "science"]}
        if n == "fed":
            self.eat("(")
            k = self.int()
            self.eat(")")
            return {"op": "fed", "steps": k}
        if n in ("use_action", "restore_action"):
            self.eat("(")
            k = self.int()
            self.eat(")")
            return {"op": n, "n": k}
        if n in ("take_special", "structure_production", "gain_metropolis"):
            return {"op": n}
        if n == "build":
            self.eat("(")
            node: dict[str, Any] = {"op": "build", "kinds": self.kinds(), "n": 1, "cost": "usual",
                                    "discount": None, "site": "regular"}
            self.eat("×")
            node["n"] = self.int()
            while self.opt(","):
                key = self.name()
                self.eat("=")
                if key == "cost":
                    node["cost"] = "free" if self.opt("free") else self.bag()
                elif key == "discount":
                    node["discount"] = self.bag()
                elif key == "site":
                    node["site"] = self.name()
            self.eat(")")
            return node
        if n == "build_upgrade":
            self.eat("(")
            ks = self.kinds()
            self.eat(")")
            return {"op": "build_upgrade", "kinds": ks}
        if n == "upgrade":
            self.eat("(")
            node = {"op": "upgrade", "kinds": self.kinds(), "n": 1, "cost": "usual"}
            self.eat("×")
            node["n"] = self.int()
            if self.opt(","):
                self.eat("cost")
                self.eat("=")
                if self.opt("free"):
                    node["cost"] = "free"
                else:
                    first = self.bag()
                    node["cost"] = {"one_of": [first, self.bag()]} if self.opt("/") else first
            self.eat(")")
            return node
        if n == "perform_slot":
            self.eat("(")
            scope = self.name()
            colored = self.opt(",") and self.name() == "colored_only"
            self.eat(")")
            return {"op": "perform_slot", "scope": scope, "colored_only": bool(colored)}
        if n == "pay":
            cost = self.bag()
            times = self.int() if self.opt("×") else 1
            self.eat("→")
            return {"op": "pay", "cost": cost, "max_times": times, "then": self.effect()}
        if n == "exchange":
            a = self.bag()
            self.eat("↔")
            return {"op": "exchange", "a": a, "b": self.bag()}
        if n == "if":
            self.eat("(")
            if self.opt("fed_space"):
                self.eat("=")
                cond: dict[str, Any] = {"federation_space": self.int()}
            else:
                q = self.quantity()
                self.eat("≥")
                cond = {"q": q, "min": self.int()}
            self.eat(")")
            self.eat("→")
            return {"op": "if", "cond": cond, "then": self.effect()}
        if n == "per":
            q, div, mx = self.per_head()
            self.eat("→")
            return {"op": "per", "q": q, "div": div, "max": mx, "then": self.effect()}
        if n == "convert_city":
            self.eat("(")
            self.eat("cost")
            self.eat("=")
            cost = self.bag()
            self.eat(")")
            return {"op": "convert_city", "cost": cost}
        raise ValueError(f"unknown node {n} in {self.s!r}")

    def per_head(self) -> tuple[dict[str, Any], int, int | None]:
        self.eat("(")
        q = self.quantity()
        self.eat("÷")
        div = self.int()
        mx = None
        if self.opt(","):
            self.eat("max")
            mx = self.int()
        self.eat(")")
        return q, div, mx

    def event(self) -> dict[str, Any]:
        n = self.name()
        if n in ("slot_mismatch", "fed_advance", "metropolis_connected"):
            return {"ev": n}
        self.eat("(")
        if n == "fed_enter":
            ev = {"ev": n, "space": self.int()}
        elif n == "tunnels_this_turn":
            ev = {"ev": n, "n": self.int()}
        elif n == "slot_gave":
            ev = {"ev": n, "res": self.name()}
        elif n == "slot_used":
            ev = {"ev": n, "slot_effect": self.name()}
        elif n == "built":
            ev = {"ev": n, "kinds": self.kinds(), "nth_at_connected_city": None}
            if self.opt(","):
                self.eat("nth_at_conn_city")
                self.eat("=")
                ev["nth_at_connected_city"] = self.int()
        elif n == "upgraded":
            ev = {"ev": n, "kinds": self.kinds()}
            self.eat(",")
            self.eat("nth_upgraded_at_conn_city")
            self.eat("=")
            ev["nth_upgraded_at_connected_city"] = self.int()
        else:
            raise ValueError(f"unknown event {n}")
        self.eat(")")
        return ev

    # -- whole card bodies
    def permanent(self) -> dict[str, Any]:
        n = self.name()
        if n == "on":
            self.eat("(")
            ev = self.event()
            once = self.opt(",") and self.name() == "once_per_turn"
            self.eat(")")
            self.eat("→")
            return {"kind": "trigger", "on": ev, "effect": self.effect(), "once_per_turn": bool(once)}
        if n == "discount":
            self.eat("(")
            target = self.name()
            ks = self.kinds()
            self.eat(":")
            amount = self.bag()
            self.eat(")")
            return {"kind": "discount", "target": target, "kinds": ks, "amount": amount}
        if n == "hand_limit":
            self.eat("(")
            self.eat("+")
            k = self.int()
            self.eat(")")
            return {"kind": "hand_limit", "plus": k}
        if n == "ability":
            self.eat("(")
            self.eat("once_per_turn")
            self.eat(")")
            self.eat(":")
            return {"kind": "ability", "once_per_turn": True, "effect": self.effect()}
        raise ValueError(n)

    def production(self) -> dict[str, Any]:
        n = self.name()
        self.eat(":")
        if n == "produce":
            return {"kind": "produce", "effect": self.effect()}
        m = self.name()
        if m == "lab_alt_output":
            return {"kind": "modifier", "modifier": m, "optional": True}
        self.eat("(")
        self.eat("+")
        k = self.int()
        self.eat(")")
        return {"kind": "modifier", "modifier": m, "amount": k}

    def end_scoring(self) -> dict[str, Any]:
        n = self.name()
        if n == "per":
            q, div, mx = self.per_head()
            self.eat("×")
            return {"kind": "per", "q": q, "div": div, "points": self.int(), "max": mx}
        if n == "table":
            self.eat("(")
            q = self.quantity()
            self.eat(":")
            steps = []
            while not self.opt(")"):
                a = self.int()
                self.eat("→")
                steps.append([a, self.int()])
                self.opt(",")
            return {"kind": "table", "q": q, "steps": steps}
        if n == "buy":
            cost = self.bag()
            self.eat("→")
            pts = self.int()
            self.eat("×")
            return {"kind": "buy", "cost": cost, "points": pts, "max_times": self.int()}
        raise ValueError(n)


def parse_body(card_type: str, text: str) -> dict[str, Any]:
    p = Shorthand(text)
    body = {"permanent": p.permanent, "production": p.production, "end_scoring": p.end_scoring}.get(
        card_type, p.effect)()
    p.done()
    return body


def body_of(card: dict[str, Any]) -> dict[str, Any]:
    t = card["type"]
    return card["effect"] if t in ("instant", "action") else card[t]



# Cards the spec fixes (§3.7.4 known, §3.7.5 proposed, all Specials), shorthand copied verbatim from the spec.
# (number, name, deck, colour, type, shorthand, text (§3.7.5 era cards), tier, cost)
SPEC_CARDS = [
    ('PA', 'Personal Assistant', 'start', None, 'action', 'choice[gain{steelplast:1} / gain{credit:1}]', None, None, None),
    (3, 'Extraordinary Mission', 'era1', 'green', 'instant', 'pay{credit:1} → perform_slot(available)', None, None, None),
    (7, 'Technology Negotiation', 'era1', 'yellow', 'instant', 'upgrade(desal×1, cost={science:1}/{steelplast:1})', None, None, None),
    (11, 'Smuggling', 'era1', 'red', 'permanent', 'ability(once_per_turn): exchange{credit:1}↔{steelplast:1}', None, None, None),
    (14, 'Black Ops Team', 'era1', 'green', 'permanent', 'on(slot_mismatch) → gain{steelplast:1}', None, None, None),
    (19, 'Build a Structure', 'era1', 'red', 'action', 'all[build(structure×1) ; fed(1)]', None, None, None),
    (22, 'Demonstration', 'era1', 'green', 'instant', 'use_action(1)', None, None, None),
    (28, 'Seafood Collection', 'era1', 'red', 'instant', 'per(tunnels↑ ÷ 1) → gain{kelp:1}', None, None, None),
    (34, 'Build Farm or Desalination Plant', 'era1', 'yellow', 'action', 'all[build(farm|desal×1) ; gain{cards:1}]', None, None, None),
    (35, 'Embassy', 'era1', 'yellow', 'permanent', 'on(fed_enter(3)) → gain{credit:1}', None, None, None),
    (37, 'Biomech Construction Crew', 'era1', 'yellow', 'permanent', 'on(built(lab, nth_at_conn_city=2)) → gain{credit:1}', None, None, None),
    (41, 'Sea Vent Factory', 'era1', 'green', 'production', 'produce: gain{biomatter:1}', None, None, None),
    (46, 'Autonomous Systems', 'era1', 'yellow', 'production', 'modifier: lab_alt_output', None, None, None),
    (52, 'Undersea Server Farm', 'era1', 'yellow', 'permanent', 'hand_limit(+1)', None, None, None),
    (5, 'Aquaculture Census', 'era1', 'yellow', 'end_scoring', 'per(conn_farms ÷ 3) × 1', None, None, None),
    (9, 'Hydroponic Research', 'era1', 'yellow', 'production', 'produce: per(conn_labs ÷ 3) → gain{kelp:1}', None, None, None),
    (16, 'Steelplast Quota', 'era1', 'red', 'permanent', 'on(slot_gave(steelplast)) → gain{points:1}', None, None, None),
    (25, 'Tunnel Boring Crew', 'era1', 'red', 'permanent', 'on(tunnels_this_turn(2)) → gain{credit:1, points:1}', None, None, None),
    (30, 'Farm Modernization', 'era1', 'red', 'instant', 'upgrade(farm×2, cost={credit:1}/{science:1})', None, None, None),
    (44, 'Survey Team', 'era1', 'red', 'instant', 'build(building×1, site=expansion)', None, None, None),
    (70, 'Trial Run', 'era2', 'yellow', 'instant', 'if(conn_labs↑ ≥ 2) → gain{science:1, steelplast:1, cards:1}', None, None, None),
    (75, 'Industrial Espionage', 'era2', 'green', 'instant', 'perform_slot(occupied_other)', None, None, None),
    (80, 'Harvest Cooperative', 'era2', 'yellow', 'permanent', 'on(upgraded(farm, nth_upgraded_at_conn_city=2)) → gain{points:2}', None, None, None),
    (86, 'Filtration Recycling', 'era2', 'red', 'instant', 'per(conn_desals ÷ 2) → gain{steelplast:1}', None, None, None),
    (89, 'Symbiosis Retrofit', 'era2', 'green', 'instant', 'all[convert_city(cost={credit:1}) ; gain{points:1}]', None, None, None),
    (92, 'Trial Run', 'era2', 'red', 'instant', 'structure_production', None, None, None),
    (98, 'Committee Seat', 'era2', 'yellow', 'instant', 'if(fed_space = 3) → gain{credit:2, cards:1}', None, None, None),
    (105, 'Bioreactor Cascade', 'era2', 'red', 'production', 'modifier: biomatter_bonus(+1)', None, None, None),
    (124, 'Demonstration', 'era3', 'green', 'instant', 'pay{credit:1} → use_action(2)', None, None, None),
    (131, 'Replication Systems Test', 'era3', 'red', 'instant', 'all[restore_action(1) ; use_action(1)]', None, None, None),
    (146, 'Construction Windfall', 'era3', 'yellow', 'instant', 'if(conn_cities ≥ 5) → build(desal×1, cost=free)', None, None, None),
    (1, 'Emergency Construction', 'era1', 'green', 'instant', 'all[build(city×1) ; gain{cards:1, credit:1}]', 'Build 1 city (usual cost). Gain 1 card and 1 credit.', None, None),
    (2, 'Supply Drop', 'era1', 'green', 'instant', 'gain{steelplast:2, credit:1, kelp:1}', 'Gain 2 steelplast, 1 credit, 1 kelp.', None, None),
    (4, 'Prefab Tunnels', 'era1', 'green', 'permanent', 'discount(build tunnel: {credit:1})', 'Your tunnels cost 1 credit less.', None, None),
    (6, 'Engineering Corps', 'era1', 'green', 'action', 'all[build(structure×2) ; gain{credit:1}]', 'Build up to 2 structures (usual cost). Gain 1 credit.', None, None),
    (8, 'City Planners', 'era1', 'green', 'end_scoring', 'per(conn_cities ÷ 1) × 1', '1 point per connected city.', None, None),
    (10, 'Tunnel Survey', 'era1', 'red', 'instant', 'build(tunnel×1, cost=free)', 'Build 1 tunnel for free.', None, None),
    (12, 'Dock Workers', 'era1', 'red', 'action', 'gain{steelplast:1, kelp:1, cards:1}', 'Gain 1 steelplast, 1 kelp, 1 card.', None, None),
    (13, 'Kelp Nursery', 'era1', 'red', 'production', 'produce: per(conn_farms ÷ 2) → gain{kelp:1}', '1 kelp per 2 connected farms.', None, None),
    (15, 'Transit Awards', 'era1', 'red', 'end_scoring', 'per(tunnels_adj ÷ 2) × 1', '1 point per 2 tunnels adjacent to a city.', None, None),
    (17, 'Small Grant', 'era1', 'yellow', 'instant', 'gain{credit:2}', 'Gain 2 credits.', None, None),
    (18, 'Kelp Harvest', 'era1', 'yellow', 'instant', 'gain{kelp:1, cards:1}', 'Gain 1 kelp and 1 card.', None, None),
    (20, 'Office Clerk', 'era1', 'yellow', 'action', 'gain{credit:1, cards:1}', 'Gain 1 credit and 1 card.', None, None),
    (21, 'Desal Contract', 'era1', 'yellow', 'production', 'produce: gain{credit:1}', 'Produce 1 credit. (Used in the rulebook production example, §8.2.3.)', None, None),
    (23, 'Supply Contracts', 'era1', 'yellow', 'end_scoring', 'buy{kelp:1, steelplast:1} → 1 ×5', 'At the end, up to 5 times: pay 1 kelp + 1 steelplast for 1 point. (Final-scoring example, §8.2.1.)', None, None),
    (67, 'Rapid Expansion', 'era2', 'green', 'instant', 'all[build(city×1) ; build(tunnel×1) ; gain{credit:2}]', 'Build 1 city and 1 tunnel (usual cost). Gain 2 credits.', None, None),
    (68, 'Research Breakthrough', 'era2', 'green', 'instant', 'upgrade(structure×3, cost=free)', 'Upgrade up to 3 structures for free.', None, None),
    (69, 'Symbiotic Engineering', 'era2', 'green', 'permanent', 'discount(build city_sym: {credit:1, kelp:1})', 'Your symbiotic cities cost 1 credit and 1 kelp less.', None, None),
    (71, 'Construction Syndicate', 'era2', 'green', 'action', 'all[build(city×1) ; gain{credit:1}]', 'Build 1 city (usual cost). Gain 1 credit.', None, None),
    (72, 'Desalination Consortium', 'era2', 'green', 'production', 'produce: per(conn_desals↑ ÷ 1, max 4) → gain{credit:1}', '1 credit per connected upgraded desal (max 4).', None, None),
    (73, 'Grand Network', 'era2', 'green', 'end_scoring', 'table(complete_cities: 1→3, 2→6, 3→10)', 'Connected cities with all 3 building types: 1 → 3, 2 → 6, 3+ → 10 points.', None, None),
    (74, 'Tunnel Upgrade Program', 'era2', 'red', 'instant', 'all[upgrade(tunnel×2, cost=free) ; gain{cards:1}]', 'Upgrade up to 2 tunnels for free. Gain 1 card.', None, None),
    (76, 'Tunnel Engineering Corps', 'era2', 'red', 'permanent', 'on(slot_used(A6)) → build(tunnel×1)', 'Whenever you use the "Build 2 tunnels" slot, you may build 1 more tunnel (usual cost).', None, None),
    (77, 'Federal Liaison', 'era2', 'red', 'action', 'all[fed(1) ; gain{credit:1, cards:1}]', 'Advance 1 on the Federation track. Gain 1 credit and 1 card.', None, None),
    (78, 'Trade Hub', 'era2', 'red', 'production', 'produce: gain{credit:2}', 'Produce 2 credits.', None, None),
    (79, 'Research Export', 'era2', 'red', 'end_scoring', 'buy{science:2} → 3 ×3', 'At the end, up to 3 times: pay 2 science for 3 points. (Final-scoring example, §8.2.1.)', None, None),
    (81, 'Science Fair', 'era2', 'yellow', 'instant', 'gain{science:2, cards:1}', 'Gain 2 science and 1 card.', None, None),
    (82, 'Lab Logistics', 'era2', 'yellow', 'permanent', 'discount(build lab: {steelplast:1})', 'Your labs cost 1 steelplast less.', None, None),
    (83, 'Requisition', 'era2', 'yellow', 'action', 'gain_distinct(2)', 'Gain 2 different resources (credit/kelp/steelplast/science).', None, None),
    (84, 'Kelp Processing', 'era2', 'yellow', 'production', 'produce: gain{kelp:2}', 'Produce 2 kelp.', None, None),
    (85, 'Desalination Awards', 'era2', 'yellow', 'end_scoring', 'per(conn_desals ÷ 1) × 1', '1 point per connected desal.', None, None),
    (125, 'Metropolitan Boom', 'era3', 'green', 'instant', 'all[build(city×2) ; gain{points:2}]', 'Build up to 2 cities (usual cost). Gain 2 points.', None, None),
    (126, 'Master Plan', 'era3', 'green', 'instant', 'all[build(building×3, cost=free) ; gain{points:1}]', 'Build up to 3 buildings for free. Gain 1 point.', None, None),
    (127, 'City Council', 'era3', 'green', 'permanent', 'on(built(city)) → gain{points:2}', 'Whenever you build a city, gain 2 points.', None, None),
    (128, 'Urban Developers', 'era3', 'green', 'action', 'all[build(city_nonsym×1, cost={steelplast:1, kelp:1}) ; gain{points:1}]', 'Build 1 nonsymbiotic city for 1 steelplast + 1 kelp. Gain 1 point.', None, None),
    (129, 'Symbiotic Bloom', 'era3', 'green', 'production', 'produce: per(conn_sym_cities ÷ 1) → gain{points:2}', '2 points per connected symbiotic city.', None, None),
    (130, 'National Legacy', 'era3', 'green', 'end_scoring', 'per(complete_cities ÷ 1) × 3', '3 points per connected city with all 3 building types.', None, None),
    (132, 'Network Overhaul', 'era3', 'red', 'instant', 'all[upgrade(structure×2, cost=free) ; gain{points:2}]', 'Upgrade up to 2 structures for free. Gain 2 points.', None, None),
    (133, 'Export Office', 'era3', 'red', 'permanent', 'ability(once_per_turn): pay{credit:2} → gain{points:1}', 'Once per turn: pay 2 credits for 1 point.', None, None),
    (134, 'Emergency Tunnels', 'era3', 'red', 'action', 'all[build(tunnel×2) ; gain{credit:1}]', 'Build up to 2 tunnels (usual cost). Gain 1 credit.', None, None),
    (135, 'Tunnel Tolls', 'era3', 'red', 'production', 'produce: per(tunnels_adj ÷ 2) → gain{credit:1}', '1 credit per 2 tunnels adjacent to a city.', None, None),
    (136, 'Infrastructure Awards', 'era3', 'red', 'end_scoring', 'table(tunnels: 6→3, 9→6, 12→9)', 'Tunnels built: 6 → 3, 9 → 6, 12+ → 9 points.', None, None),
    (137, 'Late Shipment', 'era3', 'yellow', 'instant', 'gain{credit:2, steelplast:1, kelp:1}', 'Gain 2 credits, 1 steelplast, 1 kelp.', None, None),
    (138, 'Public Relations', 'era3', 'yellow', 'permanent', 'on(fed_enter(1)) → gain{points:2}', 'Whenever you move onto Federation space 1, gain 2 points.', None, None),
    (139, 'Supply Officer', 'era3', 'yellow', 'action', 'gain{kelp:2, credit:1}', 'Gain 2 kelp and 1 credit.', None, None),
    (140, 'Credit Line', 'era3', 'yellow', 'production', 'produce: gain{credit:3}', 'Produce 3 credits.', None, None),
    (141, 'Farm Exports', 'era3', 'yellow', 'end_scoring', 'buy{kelp:2} → 2 ×4', 'At the end, up to 4 times: pay 2 kelp for 2 points.', None, None),
    (181, 'Corporate Expansion', 'special', 'red', 'permanent', 'on(metropolis_connected) → gain{credit:2, points:2}', None, 'three', 3),
    (182, 'Coastal Charter', 'special', 'green', 'instant', 'gain_metropolis', None, 'three', 3),
    (183, 'Federal Priority', 'special', 'yellow', 'permanent', 'on(fed_advance, once_per_turn) → fed(1)', None, 'three', 3),
    (184, 'Aquaculture Prize', 'special', 'green', 'end_scoring', 'per(conn_farms↑ ÷ 2) × 3', None, 'three', 3),
    (185, 'Trade Surplus', 'special', 'red', 'end_scoring', 'buy{credit:15} → 13 ×1', None, 'three', 3),
    (186, 'Symbiosis Award', 'special', 'yellow', 'end_scoring', 'per(conn_sym_cities ÷ 1) × 2', None, 'three', 3),
    (187, 'Research Prize', 'special', 'green', 'end_scoring', 'per(conn_labs↑ ÷ 1) × 2', None, 'three', 3),
    (188, 'Steelplast Export', 'special', 'red', 'end_scoring', 'buy{steelplast:1} → 1 ×14', None, 'three', 3),
    (189, 'Kelp Export', 'special', 'yellow', 'end_scoring', 'buy{kelp:2} → 3 ×5', None, 'three', 3),
    (190, 'Urban Planning Office', 'special', 'green', 'permanent', 'on(built(city)) → gain{points:2, cards:1}', None, 'three', 3),
    (191, 'Build Expansion', 'special', 'yellow', 'instant', 'build(building×1, site=expansion)', None, 'one_two', 1),
    (192, 'Secret Mission', 'special', 'green', 'instant', 'perform_slot(available_or_occupied_other, colored_only)', None, 'one_two', 1),
    (193, 'Rapid Deployment', 'special', 'red', 'instant', 'all[build(tunnel×1, cost={steelplast:1}) ; gain{cards:1}]', None, 'one_two', 1),
    (194, 'Kelp Futures', 'special', 'yellow', 'instant', 'gain{kelp:3}', None, 'one_two', 1),
    (195, 'Material Cache', 'special', 'red', 'instant', 'gain{steelplast:2, science:1}', None, 'one_two', 1),
    (196, 'Liaison Office', 'special', 'green', 'instant', 'all[fed(2) ; gain{cards:1}]', None, 'one_two', 1),
    (197, 'Bio Harvest', 'special', 'green', 'instant', 'gain{biomatter:2}', None, 'one_two', 2),
    (198, 'Field Engineers', 'special', 'red', 'action', 'all[build(building×1) ; gain{credit:1}]', None, 'one_two', 2),
    (199, 'Quartermaster', 'special', 'yellow', 'action', 'gain_distinct(2)', None, 'one_two', 2),
    (200, 'Tunnel Authority', 'special', 'green', 'permanent', 'discount(build tunnel: {credit:1})', None, 'one_two', 2),
    (201, 'Upgrade Specialists', 'special', 'yellow', 'instant', 'upgrade(structure×2, cost=free)', None, 'one_two', 1),
    (202, 'Prefab Domes', 'special', 'red', 'instant', 'build(city_nonsym×1, cost={steelplast:1, kelp:1})', None, 'one_two', 2),
    (203, 'Hydroponics Grant', 'special', 'green', 'production', 'produce: gain{kelp:1, credit:1}', None, 'one_two', 2),
    (204, 'Archivist', 'special', 'yellow', 'permanent', 'hand_limit(+1)', None, 'one_two', 1),
    (205, 'Deep-Sea Logistics', 'special', 'red', 'action', 'all[build(tunnel×1) ; gain{kelp:1}]', None, 'one_two', 2),
]


# ---------------------------------------------------------------------------------------------------------------
# Vocabulary validator (§3.7.2) and walkers
# ---------------------------------------------------------------------------------------------------------------
RES_KEYS = {"credit", "kelp", "steelplast", "science", "biomatter"}
GAIN_KEYS = RES_KEYS | {"points", "cards"}
KINDS = {"tunnel", "farm", "desal", "lab", "city_nonsym", "city_sym"}
STRUCTURES = {"tunnel", "farm", "desal", "lab"}
BUILDINGS = {"farm", "desal", "lab"}
SHARED_SLOT_EFFECTS = {"A2", "A5", "A6", "A9", "A11", "A12", "A13", "A15", "A16"}
QUANTITY_SHAPES = {
    "connected_cities": set(), "connected_symbiotic_cities": set(), "connected_metropolises": set(),
    "complete_cities": set(), "upgraded_sets": set(), "specials_paid": set(),
    "connected_buildings": {"kind", "upgraded"}, "tunnels": {"upgraded", "adjacent_to_city"},
}
# the most a player can ever have (11 city sites with 3-4 regular + 1 expansion sites, 19 tunnel sites,
# 3 board metropolises + gained ones, 25 Special cards): a part whose condition needs more is never usable
MAX_REACHABLE = {"cities": 11, "sym": 11, "farm": 44, "desal": 44, "lab": 44, "farm_up": 44, "desal_up": 44,
                 "lab_up": 44, "tunnels": 19, "tunnels_up": 19, "tunnels_adj": 19, "tunnels_adj_up": 19,
                 "metros": 14, "complete": 11, "sets": 11, "specials": 25}


class Invalid(Exception):
    pass


def check(cond: bool, msg: str) -> None:
    if not cond:
        raise Invalid(msg)


def check_keys(node: dict[str, Any], required: set[str], where: str, optional: set[str] = frozenset()) -> None:
    keys = set(node)
    check(required <= keys <= required | optional, f"{where}: keys {sorted(keys)} != {sorted(required)}")


def check_res(bag: Any, where: str) -> None:
    check(isinstance(bag, dict) and bag and set(bag) <= RES_KEYS, f"{where}: bad resource bag {bag!r}")
    check(all(isinstance(v, int) and v > 0 for v in bag.values()), f"{where}: amounts must be > 0")


def check_kinds(kinds: Any, allowed: set[str], where: str) -> None:
    check(isinstance(kinds, list) and kinds and set(kinds) <= allowed and len(set(kinds)) == len(kinds),
          f"{where}: bad kinds {kinds!r}")


def check_pos_int(v: Any, where: str) -> None:
    check(isinstance(v, int) and not isinstance(v, bool) and v >= 1, f"{where}: positive int expected, got {v!r}")


def check_quantity(q: Any, where: str) -> None:
    check(isinstance(q, dict) and q.get("q") in QUANTITY_SHAPES, f"{where}: bad quantity {q!r}")
    extra = set(q) - {"q"}
    shape = QUANTITY_SHAPES[q["q"]]
    if q["q"] == "connected_buildings":
        check(extra == shape and q["kind"] in BUILDINGS and q["upgraded"] in (True, None), f"{where}: {q!r}")
    elif q["q"] == "tunnels":
        check("upgraded" in extra and extra <= shape and q["upgraded"] in (True, None)
              and q.get("adjacent_to_city", True) is True, f"{where}: {q!r}")
    else:
        check(not extra, f"{where}: {q!r}")


def check_effect(node: Any, where: str) -> None:
    check(isinstance(node, dict) and "op" in node, f"{where}: effect node expected")
    op = node["op"]
    w = f"{where}/{op}"
    if op == "gain":
        amounts = {k: v for k, v in node.items() if k != "op"}
        check(amounts and set(amounts) <= GAIN_KEYS, f"{w}: bad keys {sorted(amounts)}")
        check(all(isinstance(v, int) and v > 0 for v in amounts.values()), f"{w}: amounts must be > 0")
    elif op == "gain_distinct":
        check_keys(node, {"op", "n", "from"}, w)
        check(node["from"] == ["credit", "kelp", "steelplast", "science"], f"{w}: from")
        check(1 <= node["n"] <= 4, f"{w}: n")
    elif op == "fed":
        check_keys(node, {"op", "steps"}, w)
        check_pos_int(node["steps"], w)
    elif op in ("all", "choice"):
        key = "parts" if op == "all" else "options"
        check_keys(node, {"op", key}, w)
        check(isinstance(node[key], list) and len(node[key]) >= 2, f"{w}: at least 2 {key}")
        for i, sub in enumerate(node[key]):
            check_effect(sub, f"{w}[{i}]")
    elif op == "build":
        check_keys(node, {"op", "kinds", "n", "cost", "discount", "site"}, w)
        check_kinds(node["kinds"], KINDS, w)
        check_pos_int(node["n"], w)
        if node["cost"] not in ("usual", "free"):
            check_res(node["cost"], w)
        if node["discount"] is not None:
            check_res(node["discount"], w)
        check(node["site"] in ("regular", "expansion"), f"{w}: site")
        if node["site"] == "expansion":
            check(set(node["kinds"]) <= BUILDINGS, f"{w}: only buildings go on expansion sites")
    elif op == "build_upgrade":
        check_keys(node, {"op", "kinds"}, w)
        check_kinds(node["kinds"], STRUCTURES, w)
    elif op == "upgrade":
        check_keys(node, {"op", "kinds", "n", "cost"}, w)
        check_kinds(node["kinds"], STRUCTURES, w)
        check_pos_int(node["n"], w)
        cost = node["cost"]
        if isinstance(cost, dict) and "one_of" in cost:
            check(set(cost) == {"one_of"} and len(cost["one_of"]) == 2, f"{w}: one_of")
            for bag in cost["one_of"]:
                check_res(bag, w)
        elif cost not in ("usual", "free"):
            check_res(cost, w)
    elif op in ("use_action", "restore_action"):
        check_keys(node, {"op", "n"}, w)
        check_pos_int(node["n"], w)
    elif op in ("take_special", "structure_production", "gain_metropolis"):
        check_keys(node, {"op"}, w)
    elif op == "perform_slot":
        check_keys(node, {"op", "scope", "colored_only"}, w)
        check(node["scope"] in ("available", "occupied_other", "available_or_occupied_other"), f"{w}: scope")
        check(isinstance(node["colored_only"], bool), f"{w}: colored_only")
    elif op == "pay":
        check_keys(node, {"op", "cost", "max_times", "then"}, w)
        check_res(node["cost"], w)
        check_pos_int(node["max_times"], w)
        check_effect(node["then"], w)
    elif op == "exchange":
        check_keys(node, {"op", "a", "b"}, w)
        check_res(node["a"], w)
        check_res(node["b"], w)
    elif op == "if":
        check_keys(node, {"op", "cond", "then"}, w)
        check_condition(node["cond"], w)
        check_effect(node["then"], w)
    elif op == "per":
        check_keys(node, {"op", "q", "div", "max", "then"}, w)
        check_quantity(node["q"], w)
        check_pos_int(node["div"], w)
        if node["max"] is not None:
            check_pos_int(node["max"], w)
        check(node["then"].get("op") == "gain", f"{w}: per → gain only")
        check_effect(node["then"], w)
    elif op == "convert_city":
        check_keys(node, {"op", "cost"}, w)
        check_res(node["cost"], w)
    else:
        raise Invalid(f"{w}: unknown op")


def check_condition(cond: Any, where: str) -> None:
    check(isinstance(cond, dict), f"{where}: condition")
    if "federation_space" in cond:
        check(set(cond) == {"federation_space"} and cond["federation_space"] in (1, 2, 3, 4), f"{where}: {cond}")
    else:
        check(set(cond) == {"q", "min"}, f"{where}: {cond}")
        check_quantity(cond["q"], where)
        check_pos_int(cond["min"], where)


def check_event(ev: Any, where: str) -> None:
    check(isinstance(ev, dict) and "ev" in ev, f"{where}: event")
    kind = ev["ev"]
    w = f"{where}/{kind}"
    if kind in ("slot_mismatch", "fed_advance", "metropolis_connected"):
        check_keys(ev, {"ev"}, w)
    elif kind == "fed_enter":
        check_keys(ev, {"ev", "space"}, w)
        check(ev["space"] in (1, 2, 3, 4), w)
    elif kind == "built":
        check_keys(ev, {"ev", "kinds", "nth_at_connected_city"}, w)
        check_kinds(ev["kinds"], KINDS, w)
        if ev["nth_at_connected_city"] is not None:
            check_pos_int(ev["nth_at_connected_city"], w)
            check(set(ev["kinds"]) <= BUILDINGS, f"{w}: nth counts buildings at a city")
    elif kind == "tunnels_this_turn":
        check_keys(ev, {"ev", "n"}, w)
        check(ev["n"] >= 2, w)
    elif kind == "upgraded":
        check_keys(ev, {"ev", "kinds", "nth_upgraded_at_connected_city"}, w)
        check_kinds(ev["kinds"], BUILDINGS, w)
        check_pos_int(ev["nth_upgraded_at_connected_city"], w)
    elif kind == "slot_gave":
        check_keys(ev, {"ev", "res"}, w)
        check(ev["res"] in RES_KEYS, w)
    elif kind == "slot_used":
        check_keys(ev, {"ev", "slot_effect"}, w)
        check(ev["slot_effect"] in SHARED_SLOT_EFFECTS, f"{w}: slot_used may only name {sorted(SHARED_SLOT_EFFECTS)}")
    else:
        raise Invalid(f"{w}: unknown event")


def check_permanent(p: Any, where: str) -> None:
    kind = p.get("kind")
    w = f"{where}/{kind}"
    if kind == "trigger":
        check_keys(p, {"kind", "on", "effect", "once_per_turn"}, w)
        check_event(p["on"], w)
        check_effect(p["effect"], w)
        check(isinstance(p["once_per_turn"], bool), w)
    elif kind == "discount":
        check_keys(p, {"kind", "target", "kinds", "amount"}, w)
        check(p["target"] in ("build", "upgrade"), w)
        check_kinds(p["kinds"], KINDS if p["target"] == "build" else STRUCTURES, w)
        check_res(p["amount"], w)
    elif kind == "hand_limit":
        check_keys(p, {"kind", "plus"}, w)
        check_pos_int(p["plus"], w)
    elif kind == "ability":
        check_keys(p, {"kind", "once_per_turn", "effect"}, w)
        check(p["once_per_turn"] is True, w)
        check_effect(p["effect"], w)
    else:
        raise Invalid(f"{w}: unknown permanent kind")


def check_production(p: Any, where: str) -> None:
    if p.get("kind") == "produce":
        check_keys(p, {"kind", "effect"}, where)
        check(p["effect"].get("op") in ("gain", "per"), f"{where}: produce takes gain / per only")
        check_effect(p["effect"], where)
    elif p.get("kind") == "modifier":
        if p.get("modifier") == "lab_alt_output":
            check_keys(p, {"kind", "modifier", "optional"}, where)
            check(p["optional"] is True, where)
        else:
            check(p.get("modifier") == "biomatter_bonus", f"{where}: unknown modifier")
            check_keys(p, {"kind", "modifier", "amount"}, where)
            check_pos_int(p["amount"], where)
    else:
        raise Invalid(f"{where}: unknown production kind")


def check_end_scoring(e: Any, where: str) -> None:
    kind = e.get("kind")
    if kind == "per":
        check_keys(e, {"kind", "q", "div", "points", "max"}, where)
        check_quantity(e["q"], where)
        check_pos_int(e["div"], where)
        check_pos_int(e["points"], where)
    elif kind == "table":
        check_keys(e, {"kind", "q", "steps"}, where)
        check_quantity(e["q"], where)
        steps = e["steps"]
        check(steps and all(isinstance(s, list) and len(s) == 2 for s in steps), f"{where}: steps")
        check([s[0] for s in steps] == sorted({s[0] for s in steps}), f"{where}: thresholds ascending")
        check([s[1] for s in steps] == sorted({s[1] for s in steps}), f"{where}: points ascending")
    elif kind == "buy":
        check_keys(e, {"kind", "cost", "points", "max_times"}, where)
        check_res(e["cost"], where)
        check("biomatter" not in e["cost"], f"{where}: biomatter cannot be used for purchases (§8.1)")
        check_pos_int(e["points"], where)
        check_pos_int(e["max_times"], where)
    else:
        raise Invalid(f"{where}: unknown end-scoring kind")


def effect_roots(card: dict[str, Any]) -> list[dict[str, Any]]:
    """The effect nodes of a card (instant/action effect, trigger/ability effect, produce effect)."""
    t = card["type"]
    if t in ("instant", "action"):
        return [card["effect"]]
    if t == "permanent" and card["permanent"]["kind"] in ("trigger", "ability"):
        return [card["permanent"]["effect"]]
    if t == "production" and card["production"]["kind"] == "produce":
        return [card["production"]["effect"]]
    return []


def walk(node: dict[str, Any]):
    yield node
    for key in ("parts", "options"):
        for sub in node.get(key, []):
            yield from walk(sub)
    if "then" in node:
        yield from walk(node["then"])


def depth(node: dict[str, Any]) -> int:
    subs = list(node.get("parts", [])) + list(node.get("options", [])) + ([node["then"]] if "then" in node else [])
    return 1 + max((depth(s) for s in subs), default=0)


def all_nodes(card: dict[str, Any]):
    for root in effect_roots(card):
        yield from walk(root)


def possibly_usable(node: dict[str, Any]) -> bool:
    """Whether some reachable state makes the node usable (§3.7.6 rule 2)."""
    op = node["op"]
    if op == "all":
        return any(possibly_usable(p) for p in node["parts"])
    if op == "choice":
        return any(possibly_usable(o) for o in node["options"])
    if op == "if":
        cond = node["cond"]
        ok = "federation_space" in cond or cond["min"] <= MAX_REACHABLE[cv.quantity_key(cond["q"])]
        return ok and possibly_usable(node["then"])
    if op == "per":
        return node["div"] <= MAX_REACHABLE[cv.quantity_key(node["q"])]
    if op == "pay":
        return possibly_usable(node["then"])
    if op == "build" and node["site"] == "expansion":
        return bool(set(node["kinds"]) <= BUILDINGS)
    return True


def flavour_tags(card: dict[str, Any]) -> set[str]:
    """§3.7.6 rule 5: green = cities, free builds/upgrades, slot performing; red = tunnels, Federation,
    action-card use; yellow = plain resources, cards, discounts and exchanges."""
    tags: set[str] = set()
    body = body_of(card)
    t = card["type"]
    quantities = []
    for node in all_nodes(card):
        op = node["op"]
        if op in ("build", "build_upgrade", "upgrade"):
            kinds = set(node["kinds"])
            if kinds & {"city_nonsym", "city_sym"}:
                tags.add("green")
            if node.get("cost") == "free":
                tags.add("green")
            if kinds == {"tunnel"}:
                tags.add("red")
        if op in ("perform_slot", "gain_metropolis", "convert_city"):
            tags.add("green")
        if op in ("fed", "use_action", "restore_action"):
            tags.add("red")
        if op in ("gain_distinct", "exchange", "take_special"):
            tags.add("yellow")
        if op == "gain" and "points" not in node:
            tags.add("yellow")
        if op == "per":
            quantities.append(node["q"])
        if op == "if" and "q" in node["cond"]:
            quantities.append(node["cond"]["q"])
        if op == "if" and "federation_space" in node["cond"]:
            tags.add("red")
    if t == "permanent":
        if body["kind"] == "trigger":
            ev = body["on"]
            if ev["ev"] in ("fed_enter", "fed_advance", "tunnels_this_turn", "metropolis_connected"):
                tags.add("red")
            if ev["ev"] == "built" and set(ev["kinds"]) & {"city_nonsym", "city_sym"}:
                tags.add("green")
            if ev["ev"] == "built" and set(ev["kinds"]) == {"tunnel"}:
                tags.add("red")
            if ev["ev"] == "slot_gave":
                tags.add("yellow")
        elif body["kind"] == "discount":
            kinds = set(body["kinds"])
            if body["target"] == "upgrade" or kinds & {"city_nonsym", "city_sym"}:
                tags.add("green")
            elif kinds == {"tunnel"}:
                tags.add("red")
            else:
                tags.add("yellow")
        elif body["kind"] == "hand_limit":
            tags.add("yellow")
    if t == "end_scoring":
        if body["kind"] == "buy":
            tags.add("yellow")
        else:
            quantities.append(body["q"])
    for q in quantities:
        key = cv.quantity_key(q)
        if key in ("cities", "sym", "complete", "sets"):
            tags.add("green")
        elif key.startswith("tunnels") or key == "metros":
            tags.add("red")
        else:
            tags.add("yellow")
    return tags


# ---------------------------------------------------------------------------------------------------------------
# Tests: file layout and counts
# ---------------------------------------------------------------------------------------------------------------
RECORD_FIELDS = {"id", "number", "name", "deck", "tier", "cost", "colour", "type", "effect", "permanent",
                 "production", "end_scoring", "text", "provenance"}


def test_file_layout() -> None:
    assert isinstance(DOC["data_version"], str) and DOC["data_version"]
    assert set(DOC) <= {"data_version", "schema", "format_notes", "cards"}
    for c in CARDS:
        assert RECORD_FIELDS <= set(c) <= RECORD_FIELDS | {"note"}, c.get("id")
        assert c["provenance"] in ("confirmed", "inferred", "proposed")
        if c["number"] is None:
            assert c["id"] == "PA"
        else:
            assert c["id"] == f"c{c['number']:03d}"
    assert len({c["id"] for c in CARDS}) == len(CARDS)


def test_numbers_unique_and_in_range() -> None:
    numbers = [c["number"] for c in CARDS if c["number"] is not None]
    assert len(numbers) == len(set(numbers)) == 205
    assert sorted(numbers) == list(range(1, 206))
    for c in CARDS:
        if c["number"] is not None:
            assert c["number"] in NUMBER_RANGES[c["deck"]], c["id"]


@pytest.mark.parametrize("deck", ERA_DECKS)
def test_era_counts_and_colour_type_mix(deck: str) -> None:
    per_colour, types = MIX[deck]
    cards = [c for c in CARDS if c["deck"] == deck]
    assert len(cards) == 3 * per_colour == len(NUMBER_RANGES[deck])
    for colour in COLOURS:
        mine = [c for c in cards if c["colour"] == colour]
        assert len(mine) == per_colour, colour
        assert dict(collections.Counter(c["type"] for c in mine)) == types, colour
    assert all(c["tier"] is None and c["cost"] is None for c in cards)


def test_special_cards_mix() -> None:
    specials = [c for c in CARDS if c["deck"] == "special"]
    three = [c for c in specials if c["tier"] == "three"]
    one_two = [c for c in specials if c["tier"] == "one_two"]
    assert sorted(c["number"] for c in three) == list(range(181, 191))
    assert sorted(c["number"] for c in one_two) == list(range(191, 206))
    assert collections.Counter(c["colour"] for c in three) == {"green": 4, "red": 3, "yellow": 3}
    assert collections.Counter(c["colour"] for c in one_two) == {"green": 5, "red": 5, "yellow": 5}
    assert all(c["cost"] == 3 for c in three)
    assert collections.Counter(c["cost"] for c in one_two) == {1: 8, 2: 7}


def test_personal_assistant() -> None:
    assert len(PA) == 1
    pa = PA[0]
    assert (pa["deck"], pa["colour"], pa["type"], pa["number"]) == ("start", None, "action", None)
    assert pa["effect"] == parse_body("action", "choice[gain{steelplast:1} / gain{credit:1}]")


def test_type_fields_exclusive() -> None:
    for c in CARDS:
        body_field = "effect" if c["type"] in ("instant", "action") else c["type"]
        for f in ("effect", "permanent", "production", "end_scoring"):
            assert (c[f] is not None) == (f == body_field), (c["id"], f)


# ---------------------------------------------------------------------------------------------------------------
# Tests: vocabulary and the limits of rules 2 and 7
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("card", CARDS, ids=lambda c: c["id"])
def test_vocabulary(card: dict[str, Any]) -> None:
    t = card["type"]
    where = card["id"]
    try:
        if t in ("instant", "action"):
            check_effect(card["effect"], where)
        elif t == "permanent":
            check_permanent(card["permanent"], where)
        elif t == "production":
            check_production(card["production"], where)
        else:
            check_end_scoring(card["end_scoring"], where)
    except Invalid as exc:
        pytest.fail(str(exc))


@pytest.mark.parametrize("card", CARDS, ids=lambda c: c["id"])
def test_structure_limits(card: dict[str, Any]) -> None:
    for root in effect_roots(card):
        assert depth(root) <= 3, "nesting depth ≤ 3"
        for node in walk(root):
            if node["op"] == "all":
                assert len(node["parts"]) <= 3, "at most 3 parts per all"
                ops = {p["op"] for p in node["parts"]}
                fed_if = any(p["op"] == "if" and "federation_space" in p["cond"] for p in node["parts"])
                assert not ("fed" in ops and fed_if), "rule 7: no fed part next to an if(fed_space) part"
            if node["op"] == "choice":
                assert len(node["options"]) <= 3, "at most 3 options per choice"


@pytest.mark.parametrize("card", [c for c in CARDS if c["type"] in ("instant", "action")], ids=lambda c: c["id"])
def test_every_instant_and_action_can_be_usable(card: dict[str, Any]) -> None:
    assert possibly_usable(card["effect"])


def test_uniqueness_limits() -> None:
    def cards_with(op: str) -> list[int | None]:
        return [c["number"] for c in CARDS if any(n["op"] == op for n in all_nodes(c))]

    assert cards_with("convert_city") == [89]
    hand = [c["number"] for c in CARDS if c["type"] == "permanent" and c["permanent"]["kind"] == "hand_limit"]
    assert sorted(hand) == [52, 204]
    assert len(cards_with("restore_action")) <= 4
    assert len(cards_with("perform_slot")) <= 6


def test_no_card_targets_other_players() -> None:
    # the vocabulary has no node that acts on another player; the only scopes that mention other players
    # let the owner *perform* a slot (occupied_other), which affects nobody else (§6.11)
    for c in CARDS:
        for node in all_nodes(c):
            assert node["op"] in {
                "gain", "gain_distinct", "fed", "all", "choice", "build", "build_upgrade", "upgrade",
                "use_action", "restore_action", "take_special", "perform_slot", "pay", "exchange", "if",
                "per", "structure_production", "convert_city", "gain_metropolis"}


# ---------------------------------------------------------------------------------------------------------------
# Tests: the spec's own cards, exactly
# ---------------------------------------------------------------------------------------------------------------
def test_shorthand_parser_examples() -> None:
    assert parse_body("instant", "all[fed(1) ; gain{cards:2, credit:1}]") == {
        "op": "all", "parts": [{"op": "fed", "steps": 1}, {"op": "gain", "cards": 2, "credit": 1}]}
    assert parse_body("instant", "build(building×1, site=expansion)")["kinds"] == ["farm", "desal", "lab"]
    with pytest.raises(ValueError):
        parse_body("instant", "gain{kelp:1} extra")


@pytest.mark.parametrize("row", SPEC_CARDS, ids=lambda r: str(r[0]))
def test_spec_card_exact(row: tuple) -> None:
    number, name, deck, colour, type_, dsl, text, tier, cost = row
    card = PA[0] if number == "PA" else BY_NUMBER[number]
    assert card["name"] == name
    assert card["deck"] == deck
    assert card["colour"] == colour
    assert card["type"] == type_
    assert body_of(card) == parse_body(type_, dsl), dsl
    assert card["tier"] == tier
    assert card["cost"] == cost
    if text is not None:                       # §3.7.5 era cards give their text
        assert card["text"] == text
        assert card["provenance"] == "proposed"
    assert card.get("note") != AUTHORED_NOTE


def test_spec_table_copied_from_the_spec() -> None:
    """The SPEC_CARDS table above is the spec's §3.7.4/§3.7.5 text: the number, name and DSL of every card in
    spec_cards.tsv (those facts copied from the rules text), the same cards in the same order."""
    copied = [line.split("\t") for line in SPEC_CARDS_COPY.read_text(encoding="utf-8").splitlines()
              if line and not line.startswith("#")]
    assert all(len(fields) == 3 for fields in copied), [f for f in copied if len(f) != 3]
    found = [(number if number == "PA" else int(number), name, dsl) for number, name, dsl in copied]
    assert len(found) == 102, len(found)
    assert [(r[0], r[1], r[5]) for r in SPEC_CARDS] == found


def test_all_other_era_cards_are_authored() -> None:
    spec_numbers = {r[0] for r in SPEC_CARDS}
    for c in CARDS:
        if c["deck"] in ERA_DECKS and c["number"] not in spec_numbers:
            assert c.get("note") == AUTHORED_NOTE and c["provenance"] == "proposed", c["id"]
    assert len(AUTHORED) == 180 - sum(1 for r in SPEC_CARDS if r[2] in ERA_DECKS)


# ---------------------------------------------------------------------------------------------------------------
# Tests: value units (rules 3, 4, 6)
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("card", AUTHORED, ids=lambda c: c["id"])
def test_authored_card_within_budget(card: dict[str, Any]) -> None:
    low, high = cv.card_budget(card)
    assert low - 1e-9 <= cv.card_value(card) <= high + 1e-9, (card["name"], cv.card_value(card), (low, high))


def test_value_units_of_rule_3() -> None:
    v = lambda s, era=1: cv.effect_vu(parse_body("instant", s), era)  # noqa: E731
    assert v("gain{credit:1, kelp:1, steelplast:1, science:1, cards:1, points:1}") == 6
    assert v("gain{biomatter:1}") == 2
    assert v("fed(2)") == 2
    assert v("build(tunnel×1)") == 1
    assert v("build(farm×1)") == 0.5
    assert v("build(building×1, site=expansion)") == 1
    assert v("build(city×1)") == 2
    assert v("build(tunnel×1, cost=free)") == 3            # right 1 + cost saved 2
    assert v("build(city_nonsym×1, cost={steelplast:1, kelp:1})") == 4
    assert v("build(tunnel×1, discount={credit:1})") == 2
    assert v("upgrade(structure×1)") == 0.5
    assert v("upgrade(structure×2, cost=free)") == 3
    assert v("use_action(1)") == 2.5
    assert v("restore_action(1)") == 1.5
    assert v("take_special") == 1.5
    assert v("perform_slot(available)") == 3
    assert v("perform_slot(occupied_other)") == 3.5
    assert v("pay{credit:1} → perform_slot(available)") == 2
    assert v("choice[gain{credit:1} / gain{kelp:2}]") == 2
    assert v("if(conn_cities ≥ 9) → gain{points:4}") == 3    # usually met only late: × 0.75


def test_report_spec_card_values(capsys: pytest.CaptureFixture[str]) -> None:
    """Values of the cards the spec fixes (exempt from the budgets): printed, and summarised."""
    spec_numbers = {r[0] for r in SPEC_CARDS}
    rows, outside = [], []
    for c in CARDS:
        key = "PA" if c["number"] is None else c["number"]
        if key not in spec_numbers:
            continue
        value = cv.card_value(c)
        budget = cv.card_budget(c)
        ok = cv.within_budget(c)
        rows.append(f"{c['id']:5} {c['deck']:7} {str(c['colour']):6} {c['type']:11} VU {value:6.2f}  "
                     f"budget {budget}  {'ok' if ok else 'OUTSIDE'}  {c['name']}")
        if not ok:
            outside.append(c["id"])
    with capsys.disabled():
        print("\n[uc cards] spec-fixed cards (exempt from budgets):")
        print("\n".join(rows))
        print(f"[uc cards] {len(outside)} of {len(rows)} spec-fixed cards are outside their budget: {outside}")
    assert len(rows) == len(SPEC_CARDS)


def test_colour_order_of_authored_values() -> None:
    """Green strongest, yellow weakest: mean authored value per era and type is ordered G ≥ R ≥ Y."""
    for deck in ERA_DECKS:
        for t in TYPES:
            mean = {}
            for colour in COLOURS:
                vals = [cv.card_value(c) for c in AUTHORED if (c["deck"], c["type"], c["colour"]) == (deck, t, colour)]
                if vals:
                    mean[colour] = sum(vals) / len(vals)
            if len(mean) == 3:
                assert mean["green"] + 0.5 >= mean["red"] and mean["red"] + 0.5 >= mean["yellow"], (deck, t, mean)


# ---------------------------------------------------------------------------------------------------------------
# Tests: colour flavour, names and texts
# ---------------------------------------------------------------------------------------------------------------
def test_colour_flavour_statistics(capsys: pytest.CaptureFixture[str]) -> None:
    share = {}
    for colour in COLOURS:
        mine = [c for c in AUTHORED if c["colour"] == colour]
        tags = [flavour_tags(c) for c in mine]
        share[colour] = {tag: sum(tag in t for t in tags) / len(mine) for tag in COLOURS}
    with capsys.disabled():
        print("\n[uc cards] flavour share of authored cards (rows: card colour, cols: flavour):")
        for colour in COLOURS:
            print(f"  {colour:6} " + "  ".join(f"{tag}={share[colour][tag]:.2f}" for tag in COLOURS))
    for colour in COLOURS:
        assert share[colour][colour] >= 0.6, (colour, share[colour])
        for other in COLOURS:
            if other != colour:
                assert share[colour][colour] > share[other][colour], (colour, other, share)


def test_texts_present_and_names_distinct() -> None:
    for c in CARDS:
        assert isinstance(c["text"], str) and c["text"].strip(), c["id"]
        assert isinstance(c["name"], str) and c["name"].strip(), c["id"]
    authored_names = [c["name"] for c in AUTHORED]
    assert len(authored_names) == len(set(authored_names))
    spec_names = {c["name"] for c in CARDS if c.get("note") != AUTHORED_NOTE}
    assert not set(authored_names) & spec_names


@pytest.mark.parametrize("card", AUTHORED, ids=lambda c: c["id"])
def test_authored_text_matches_effect(card: dict[str, Any]) -> None:
    assert card["text"] == cv.card_text(card)


def test_value_module_covers_every_card() -> None:
    for c in CARDS:
        assert isinstance(cv.card_value(c), float | int)
        cv.card_text(c)   # every card can be rendered
