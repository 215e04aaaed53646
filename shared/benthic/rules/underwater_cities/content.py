"""Loading and validation of a content pack (spec §3; ``benthic.rules.packs``, by default the built-in one in
``content/``): rule tables, main board, player boards, metropolis tiles, cards and government contracts.
Everything is decoded into msgspec Structs (so an effect node outside the §3.7.2 vocabulary fails at load),
checked against the spec's counts and load-time checks, and indexed once per pack for the engine.
``content()`` is the live object: the content of the pack of the game at hand."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

import msgspec

from benthic.rules.packs import PackSet

from .effects import (
    ALL_KINDS,
    BUILDING_KINDS,
    KIND_ALIASES,
    RESOURCES,
    STRUCTURE_KINDS,
    Ability,
    Build,
    BuildUpgrade,
    BuyScore,
    Condition,
    Discount,
    Effect,
    EndScoring,
    Gain,
    Modifier,
    OnSlotUsed,
    Per,
    Permanent,
    Produce,
    Production,
    Quantity,
    Res,
    Trigger,
    Upgrade,
    walk,
)

CONTENT_DIR = Path(__file__).parent / "content"

Colour = Literal["green", "red", "yellow"]
Provenance = Literal["confirmed", "inferred", "proposed"]
BonusCode = Literal["steelplast", "credit", "kelp", "science", "biomatter", "fed_card"]


class ContentError(ValueError):
    """A content file breaks the schema or a load-time check of the spec."""


# --- info.json ----------------------------------------------------------------------------------------------

class Yield(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """What something produces: resources and points."""

    credit: int = 0
    kelp: int = 0
    steelplast: int = 0
    science: int = 0
    biomatter: int = 0
    points: int = 0


class ProductionRow(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    plain: Yield
    upgraded: Yield
    pair_bonus: Yield | None


class ProductionTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    farm: ProductionRow
    desal: ProductionRow
    lab: ProductionRow
    tunnel: ProductionRow
    symbiotic_city_points: int
    city_prod6_points: int
    tunnel_triple_factor: int
    tunnel_pair_credits: int
    metro_plus2_points: int

    def row(self, kind: str) -> ProductionRow:
        return getattr(self, kind)  # type: ignore[no-any-return]


class FederationStart(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    space: int
    extra: Res
    position: int = 0


class FederationTable(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    spaces: tuple[int, ...]
    enter_bonus: dict[str, Yield]
    overflow_points: int
    start_positions: tuple[FederationStart, ...]
    compensate_last: dict[str, tuple[FederationStart, ...]]


class Feeding(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    kelp_per_city: int
    unfed_city_penalty: int


class Conversion(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    biomatter_to_credits: int
    resources_per_point: int


class Supply(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    tunnels: int
    white_domes: int
    purple_domes: dict[str, int | None]
    three_credit_row: int
    hand_limit: int
    action_card_limit: int
    opening_hand: int
    opening_keep: int
    era_draw: int


class UsualCosts(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    city_nonsym: Res
    city_sym: Res
    farm: Res
    desal: Res
    lab: Res
    tunnel: Res
    upgrade: Res
    clone: Res

    def of(self, kind: str) -> Res:
        return getattr(self, kind)  # type: ignore[no-any-return]


class Surcharges(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    city_prod6: Res
    city_points6: Res
    tunnel_triple: Res
    metro_plus2: Res


class Info(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    data_version: str
    provenance: Provenance
    usual_costs: UsualCosts
    production: ProductionTable
    federation: FederationTable
    starting_resources: Res
    era_track: tuple[str, ...]
    feeding: Feeding
    network_scoring: tuple[int, int, int, int]
    resource_conversion: Conversion
    supply: Supply
    surcharges: Surcharges
    city_points6_points: int
    final_scoring_order: tuple[str, ...]
    note: str = ""


# --- main_board.json ----------------------------------------------------------------------------------------

class SlotEffect(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    text: str
    effect: Effect
    provenance: Provenance


class SlotRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    colour: Colour | None
    ordinal: int | None
    clockwise: int | None
    effect: str


class BoardSide(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    slots: tuple[SlotRecord, ...]
    special_row_size: int
    contract_spaces: int
    cloning_tile: bool
    provenance: Provenance


class MainBoard(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    data_version: str
    slot_effects: dict[str, SlotEffect]
    sides: dict[Literal["side_34", "side_2"], BoardSide]
    note: str = ""


# --- player_boards.json -------------------------------------------------------------------------------------

class CitySite(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    start: bool
    bonus: BonusCode | None
    special: Literal["city_prod6", "city_points6"] | None


class MetropolisSpace(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: Literal["MB", "M1", "M2"]
    kind: Literal["brown", "blue"]


class TunnelSite(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    a: str
    b: str
    bonus: BonusCode | None
    special: Literal["tunnel_triple", "metro_plus2"] | None
    pair_group: str | None


class BuildingSite(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    city: str
    expansion: bool
    bonus: BonusCode | None
    multiplier: Literal[1, 2]


class PlayerBoardRecord(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: int
    side: Literal["basic", "advanced"]
    physical: int
    provenance: Provenance
    city_sites: tuple[CitySite, ...]
    metropolis_spaces: tuple[MetropolisSpace, ...]
    tunnel_sites: tuple[TunnelSite, ...]
    building_sites: tuple[BuildingSite, ...]


class PlayerBoardsFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    data_version: str
    boards: tuple[PlayerBoardRecord, ...]
    note: str = ""


# --- metropolises.json, contracts.json, cards.json ----------------------------------------------------------

class MetropolisTile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    colour: Literal["brown", "blue"]
    instant: Effect | None
    production: Gain | None
    end_scoring: EndScoring | None
    solo_excluded: bool
    provenance: Provenance
    note: str = ""


class MetropolisFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    data_version: str
    tiles: tuple[MetropolisTile, ...]
    note: str = ""


class Contract(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    name: str
    requires: tuple[Condition, ...]
    reward: Gain
    provenance: Provenance


class ContractFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    data_version: str
    contracts: tuple[Contract, ...]
    note: str = ""


class Card(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    number: int | None
    name: str
    deck: Literal["era1", "era2", "era3", "special", "start"]
    tier: Literal["three", "one_two"] | None
    cost: int | None
    colour: Colour | None
    type: Literal["instant", "permanent", "action", "production", "end_scoring"]
    effect: Effect | None
    permanent: Permanent | None
    production: Production | None
    end_scoring: EndScoring | None
    text: str
    provenance: Provenance
    note: str = ""

    @property
    def is_special(self) -> bool:
        return self.deck == "special"

    @property
    def era(self) -> int:
        return {"era1": 1, "era2": 2, "era3": 3}.get(self.deck, 0)


class CardFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    data_version: str
    cards: tuple[Card, ...]
    schema: str = ""
    format_notes: tuple[str, ...] = ()


# --- indexes ------------------------------------------------------------------------------------------------

class Slot(msgspec.Struct, frozen=True):
    """One action slot of the chosen main-board side, with its effect resolved."""

    id: str
    colour: Colour | None
    ordinal: int | None
    clockwise: int | None
    code: str  # slot effect code A1..A21 / AA
    effect: Effect


class TunnelInfo(msgspec.Struct, frozen=True):
    id: str
    city: str  # the city end (for a metropolis tunnel) or the first city end
    other: str  # the second city end, or the metropolis space id
    metropolis: str | None
    bonus: str | None
    special: str | None
    pair_group: str | None


class Geometry:
    """The graph of one player-board side, indexed for the engine (never serialized)."""

    __slots__ = (
        "id", "side", "physical", "cities", "start", "city_bonus", "city_special", "tunnels",
        "city_links", "tunnels_at_city", "metro_tunnels", "buildings", "city_buildings", "city_regular",
        "city_expansion", "pair_groups", "site_kind",
    )

    def __init__(self, record: PlayerBoardRecord) -> None:
        self.id = record.id
        self.side = record.side
        self.physical = record.physical
        self.cities: tuple[str, ...] = tuple(c.id for c in record.city_sites)
        self.start: str = next(c.id for c in record.city_sites if c.start)
        self.city_bonus = {c.id: c.bonus for c in record.city_sites}
        self.city_special = {c.id: c.special for c in record.city_sites}
        metros = {m.id for m in record.metropolis_spaces}
        self.tunnels: dict[str, TunnelInfo] = {}
        links: dict[str, list[tuple[str, str]]] = {c: [] for c in self.cities}
        at_city: dict[str, list[str]] = {c: [] for c in self.cities}
        metro_tunnels: dict[str, list[str]] = {m: [] for m in metros}
        groups: dict[str, list[str]] = {}
        for t in record.tunnel_sites:
            metro = t.b if t.b in metros else None
            self.tunnels[t.id] = TunnelInfo(t.id, t.a, t.b, metro, t.bonus, t.special, t.pair_group)
            at_city[t.a].append(t.id)
            if metro is None:
                at_city[t.b].append(t.id)
                links[t.a].append((t.id, t.b))
                links[t.b].append((t.id, t.a))
            else:
                metro_tunnels[metro].append(t.id)
            if t.pair_group:
                groups.setdefault(t.pair_group, []).append(t.id)
        self.city_links = {c: tuple(v) for c, v in links.items()}
        self.tunnels_at_city = {c: tuple(v) for c, v in at_city.items()}
        self.metro_tunnels = {m: tuple(v) for m, v in metro_tunnels.items()}
        self.pair_groups = {g: tuple(v) for g, v in groups.items()}
        self.buildings = {b.id: b for b in record.building_sites}
        self.city_buildings = {c: tuple(b.id for b in record.building_sites if b.city == c) for c in self.cities}
        self.city_regular = {
            c: tuple(b.id for b in record.building_sites if b.city == c and not b.expansion) for c in self.cities
        }
        self.city_expansion = {c: next(b.id for b in record.building_sites if b.city == c and b.expansion)
                               for c in self.cities}
        self.site_kind = {**{c: "city" for c in self.cities}, **{t: "tunnel" for t in self.tunnels},
                          **{b: "building" for b in self.buildings}}


class Content:
    """Everything loaded from ``content/``, validated and indexed."""

    def __init__(self, info: Info, main_board: MainBoard, boards: PlayerBoardsFile, metropolises: MetropolisFile,
                 contracts: ContractFile, cards: CardFile) -> None:
        self.info = info
        self.main_board = main_board
        self.boards = {b.id: Geometry(b) for b in boards.boards}
        self.board_records = {b.id: b for b in boards.boards}
        self.metropolises = {t.id: t for t in metropolises.tiles}
        self.contracts = {c.id: c for c in contracts.contracts}
        self.contract_order = tuple(c.id for c in contracts.contracts)
        self.cards = {c.id: c for c in cards.cards}
        self.cards_version = cards.data_version
        self.slot_effects = {code: s.effect for code, s in main_board.slot_effects.items()}
        self.sides: dict[str, dict[str, Slot]] = {
            name: {s.id: Slot(s.id, s.colour, s.ordinal, s.clockwise, s.effect, self.slot_effects[s.effect])
                   for s in side.slots}
            for name, side in main_board.sides.items()
        }
        self.era_decks: dict[int, tuple[str, ...]] = {
            era: tuple(sorted((c.id for c in cards.cards if c.era == era), key=lambda i: self.cards[i].number or 0))
            for era in (1, 2, 3)
        }
        self.specials_three = tuple(c.id for c in cards.cards if c.tier == "three")
        self.specials_one_two = tuple(c.id for c in cards.cards if c.tier == "one_two")
        self.version = "|".join(
            (info.data_version, main_board.data_version, boards.data_version, metropolises.data_version,
             contracts.data_version, cards.data_version)
        )


# --- loading ------------------------------------------------------------------------------------------------

def _expand_aliases(raw: Any) -> Any:
    """Replace the kind aliases of §3.7.2 (`building`, `structure`, `city`) in every ``kinds`` list."""
    if isinstance(raw, dict):
        out = {}
        for key, value in raw.items():
            if key == "kinds" and isinstance(value, list):
                kinds: list[Any] = []
                for kind in value:
                    for k in KIND_ALIASES.get(kind, (kind,)) if isinstance(kind, str) else (kind,):
                        if k not in kinds:
                            kinds.append(k)
                out[key] = kinds
            else:
                out[key] = _expand_aliases(value)
        return out
    if isinstance(raw, list):
        return [_expand_aliases(v) for v in raw]
    return raw


def _load(directory: Path, name: str, typ: type) -> Any:
    path = directory / name
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return msgspec.convert(_expand_aliases(raw), typ)
    except (OSError, ValueError, msgspec.ValidationError) as exc:
        raise ContentError(f"{name}: {exc}") from None


def _card_nodes(card: Card) -> Iterator[Any]:
    """Every effect node of a card (effect, trigger/ability effects, production effect)."""
    roots: list[Any] = []
    if card.effect is not None:
        roots.append(card.effect)
    if isinstance(card.permanent, (Trigger, Ability)):
        roots.append(card.permanent.effect)
    if isinstance(card.production, Produce):
        roots.append(card.production.effect)
    for root in roots:
        yield from walk(root)


def _check_quantity(where: str, q: Quantity) -> None:
    if (q.q == "connected_buildings") != (q.kind is not None):
        raise ContentError(f"{where}: `kind` belongs to connected_buildings only: {q}")
    if q.upgraded is not None and q.q not in ("connected_buildings", "tunnels"):
        raise ContentError(f"{where}: `upgraded` belongs to buildings and tunnels only: {q}")
    if q.adjacent_to_city is not None and q.q != "tunnels":
        raise ContentError(f"{where}: `adjacent_to_city` belongs to tunnels only: {q}")


def _check_effect(where: str, node: Effect) -> None:
    """Semantic checks the types cannot express."""
    for sub in walk(node):
        if isinstance(sub, Per):
            _check_quantity(where, sub.q)
        if isinstance(sub, (Build, BuildUpgrade, Upgrade)):
            if not sub.kinds or len(set(sub.kinds)) != len(sub.kinds):
                raise ContentError(f"{where}: empty or repeated kinds in {sub}")
        if isinstance(sub, (Upgrade, BuildUpgrade)) and not set(sub.kinds) <= set(STRUCTURE_KINDS):
            raise ContentError(f"{where}: only structures are upgraded (§6.5): {sub}")
        if isinstance(sub, Upgrade) and not isinstance(sub.cost, str) and sub.cost.one_of is not None:
            if len(sub.cost.one_of) < 2 or sub.cost.bags() != sub.cost.one_of or any(
                    getattr(sub.cost, r) for r in RESOURCES):
                raise ContentError(f"{where}: one_of needs 2 bags and nothing else: {sub.cost}")
        if isinstance(sub, Build) and sub.site == "expansion" and not set(sub.kinds) <= set(BUILDING_KINDS):
            raise ContentError(f"{where}: expansion sites take buildings only: {sub}")
        cond = getattr(sub, "cond", None)
        if isinstance(cond, Condition) and (cond.q is None) == (cond.federation_space is None):
            raise ContentError(f"{where}: a condition is either q/min or federation_space: {cond}")
        if isinstance(cond, Condition) and cond.q is not None:
            if cond.min is None:
                raise ContentError(f"{where}: condition q needs min: {cond}")
            _check_quantity(where, cond.q)


def _validate_boards(boards: PlayerBoardsFile) -> None:
    ids = sorted(b.id for b in boards.boards)
    if ids != list(range(1, 9)):
        raise ContentError(f"player_boards.json: boards 1..8 expected, got {ids}")
    for b in boards.boards:
        where = f"player_boards.json board {b.id}"
        expected_side = "basic" if b.id <= 4 else "advanced"
        if b.side != expected_side or b.physical != (b.id if b.id <= 4 else b.id - 4):
            raise ContentError(f"{where}: side/physical mismatch")
        starts = [c.id for c in b.city_sites if c.start]
        if len(starts) != 1:
            raise ContentError(f"{where}: exactly one start site expected, got {starts}")
        cities = {c.id for c in b.city_sites}
        metros = {m.id: m.kind for m in b.metropolis_spaces}
        if sorted(metros.items()) != [("M1", "blue"), ("M2", "blue"), ("MB", "brown")]:
            raise ContentError(f"{where}: metropolis spaces MB (brown), M1, M2 (blue) expected")
        metro_count: Counter[str] = Counter()
        adjacency: dict[str, set[str]] = {c: set() for c in cities}
        for t in b.tunnel_sites:
            if t.a not in cities or (t.b not in cities and t.b not in metros):
                raise ContentError(f"{where}: tunnel {t.id} joins unknown sites")
            if t.b in metros:
                metro_count[t.b] += 1
            else:
                adjacency[t.a].add(t.b)
                adjacency[t.b].add(t.a)
            if t.special == "metro_plus2" and t.b not in metros:
                raise ContentError(f"{where}: metro_plus2 on a city-city tunnel {t.id}")
        if metro_count != Counter({"MB": 2, "M1": 1, "M2": 1}):
            raise ContentError(f"{where}: MB needs 2 tunnel sites, M1 and M2 one each, got {dict(metro_count)}")
        seen, stack = {starts[0]}, [starts[0]]
        while stack:
            for nxt in adjacency[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        if seen != cities:
            raise ContentError(f"{where}: city sites unreachable from the start: {sorted(cities - seen)}")
        regular: Counter[str] = Counter()
        expansion: Counter[str] = Counter()
        for s in b.building_sites:
            if s.city not in cities:
                raise ContentError(f"{where}: building site {s.id} of unknown city")
            (expansion if s.expansion else regular)[s.city] += 1
            if s.expansion and (s.bonus or s.multiplier != 1):
                raise ContentError(f"{where}: expansion site {s.id} carries a bonus or multiplier")
        if any(expansion[c] != 1 for c in cities):
            raise ContentError(f"{where}: every city site needs exactly one expansion site")
        sites: list[CitySite | TunnelSite] = [*b.city_sites, *b.tunnel_sites]
        if b.side == "basic":
            if any(regular[c] != 3 for c in cities):
                raise ContentError(f"{where}: basic boards have 3 regular building sites per city")
            specials = [x for x in sites if x.special] + [s for s in b.building_sites if s.multiplier != 1]
            if specials or any(t.pair_group for t in b.tunnel_sites):
                raise ContentError(f"{where}: basic boards have no surcharges or multipliers")
        elif sum(regular.values()) != 33:
            raise ContentError(f"{where}: advanced boards have 33 regular building sites")
        all_ids = [c.id for c in b.city_sites] + [t.id for t in b.tunnel_sites] + [s.id for s in b.building_sites]
        if len(all_ids) != len(set(all_ids)):
            raise ContentError(f"{where}: duplicate site ids")
        for site in sites:
            if site.bonus and site.special:
                raise ContentError(f"{where}: {site.id} has both a bonus and a special kind")


def _validate_main_board(board: MainBoard) -> None:
    expected = {"AA", *(f"A{i}" for i in range(1, 22))}
    if set(board.slot_effects) != expected:
        raise ContentError(f"main_board.json: slot effects AA, A1..A21 expected, got {sorted(board.slot_effects)}")
    used: set[str] = set()
    for name, side in board.sides.items():
        colours = Counter(s.colour for s in side.slots)
        if colours != Counter({"green": 5, "red": 5, "yellow": 5, None: 1}):
            raise ContentError(f"main_board.json {name}: 5 slots per colour plus AA expected, got {colours}")
        ids = [s.id for s in side.slots]
        if len(ids) != len(set(ids)):
            raise ContentError(f"main_board.json {name}: duplicate slot ids")
        clockwise = sorted(s.clockwise for s in side.slots if s.clockwise is not None)
        if clockwise != list(range(1, 16)):
            raise ContentError(f"main_board.json {name}: clockwise indices 1..15 expected")
        for s in side.slots:
            if s.effect not in board.slot_effects:
                raise ContentError(f"main_board.json {name}: unknown slot effect {s.effect}")
            if (s.id == "AA") != (s.colour is None) or (s.colour and s.id != f"{s.colour[0].upper()}{s.ordinal}"):
                raise ContentError(f"main_board.json {name}: slot {s.id} id/colour/ordinal mismatch")
            used.add(s.effect)
    if used != expected:
        raise ContentError(f"main_board.json: effects on no side: {sorted(expected - used)}")
    for code, effect in board.slot_effects.items():
        _check_effect(f"main_board.json {code}", effect.effect)


def _validate_metropolises(tiles: MetropolisFile) -> None:
    colours = Counter(t.colour for t in tiles.tiles)
    if colours != Counter({"brown": 5, "blue": 11}) or len({t.id for t in tiles.tiles}) != 16:
        raise ContentError(f"metropolises.json: 5 brown + 11 blue distinct tiles expected, got {colours}")
    for t in tiles.tiles:
        if t.colour == "brown" and (t.instant or t.production or t.end_scoring is None):
            raise ContentError(f"metropolises.json {t.id}: brown tiles score at the end only")
        if t.colour == "blue" and (t.instant is None or t.end_scoring is not None):
            raise ContentError(f"metropolises.json {t.id}: blue tiles have an instant effect")
        if t.end_scoring is not None and not isinstance(t.end_scoring, BuyScore):
            _check_quantity(f"metropolises.json {t.id}", t.end_scoring.q)
        if t.instant is not None:
            _check_effect(f"metropolises.json {t.id}", t.instant)
    if sum(t.solo_excluded for t in tiles.tiles) != 1:
        raise ContentError("metropolises.json: exactly one tile is removed in solo")


def _validate_contracts(contracts: ContractFile) -> None:
    if len(contracts.contracts) != 8 or len({c.id for c in contracts.contracts}) != 8:
        raise ContentError("contracts.json: 8 distinct contracts expected")
    for c in contracts.contracts:
        for cond in c.requires:
            if cond.q is not None:
                _check_quantity(f"contracts.json {c.id}", cond.q)
            if cond.q is None or cond.min is None or cond.federation_space is not None:
                raise ContentError(f"contracts.json {c.id}: contracts require board quantities (§6.15)")


def _validate_cards(cards: CardFile, slot_codes: set[str]) -> None:
    ids = [c.id for c in cards.cards]
    if len(ids) != len(set(ids)):
        raise ContentError("cards.json: duplicate card ids")
    numbers = [c.number for c in cards.cards if c.number is not None]
    if len(numbers) != len(set(numbers)):
        raise ContentError("cards.json: duplicate card numbers")
    ranges = {"era1": (1, 66), "era2": (67, 123), "era3": (124, 180), "special": (181, 205)}
    for c in cards.cards:
        where = f"cards.json {c.id}"
        if c.deck == "start":
            if c.id != "PA" or c.number is not None or c.type != "action":
                raise ContentError(f"{where}: only the Personal Assistant (id PA, action) is a start card")
        else:
            low, high = ranges[c.deck]
            if c.number is None or not low <= c.number <= high:
                raise ContentError(f"{where}: number {c.number} outside {c.deck} range {low}..{high}")
            if c.colour is None:
                raise ContentError(f"{where}: era and Special cards have a colour")
        if (c.deck == "special") != (c.tier is not None) or (c.deck == "special") != (c.cost is not None):
            raise ContentError(f"{where}: tier and cost are for Special cards only")
        if c.tier == "three" and c.cost != 3 or c.tier == "one_two" and c.cost not in (1, 2):
            raise ContentError(f"{where}: tier {c.tier} with cost {c.cost}")
        fields = {"instant": c.effect, "action": c.effect, "permanent": c.permanent,
                  "production": c.production, "end_scoring": c.end_scoring}
        present = {name for name, value in (("effect", c.effect), ("permanent", c.permanent),
                                            ("production", c.production), ("end_scoring", c.end_scoring))
                   if value is not None}
        expected = {"instant": {"effect"}, "action": {"effect"}, "permanent": {"permanent"},
                    "production": {"production"}, "end_scoring": {"end_scoring"}}[c.type]
        if present != expected or fields[c.type] is None:
            raise ContentError(f"{where}: a {c.type} card needs exactly {sorted(expected)}, has {sorted(present)}")
        for node in _card_nodes(c):
            _check_effect(where, node)
        if isinstance(c.permanent, Trigger) and isinstance(c.permanent.on, OnSlotUsed):
            if c.permanent.on.slot_effect not in slot_codes:
                raise ContentError(f"{where}: slot_used names unknown slot effect {c.permanent.on.slot_effect}")
        if c.end_scoring is not None and not isinstance(c.end_scoring, BuyScore):
            _check_quantity(where, c.end_scoring.q)
        if isinstance(c.permanent, Ability) and not c.permanent.once_per_turn:
            raise ContentError(f"{where}: abilities are once per turn (an unbounded ability never ends a turn)")
        if isinstance(c.permanent, Discount) and not set(c.permanent.kinds) <= set(ALL_KINDS):
            raise ContentError(f"{where}: discount on unknown kinds")
        if isinstance(c.production, Modifier):
            if c.production.modifier == "biomatter_bonus" and c.production.amount < 1:
                raise ContentError(f"{where}: biomatter_bonus needs an amount")
    if "PA" not in ids:
        raise ContentError("cards.json: the Personal Assistant (PA) is missing")


# Exact counts of §3.7.3: per era, per colour, and per type.
ERA_MIX = {
    "era1": {"total": 66, "per_colour": 22,
             "types": {"instant": 8, "permanent": 4, "action": 4, "production": 4, "end_scoring": 2}},
    "era2": {"total": 57, "per_colour": 19,
             "types": {"instant": 7, "permanent": 3, "action": 3, "production": 3, "end_scoring": 3}},
    "era3": {"total": 57, "per_colour": 19,
             "types": {"instant": 8, "permanent": 2, "action": 2, "production": 2, "end_scoring": 5}},
}


def check_card_counts(cards: CardFile | tuple[Card, ...]) -> None:
    """The exact counts and mix of spec §3.7.3; raises ContentError on the first mismatch."""
    records = cards.cards if isinstance(cards, CardFile) else cards
    for deck, mix in ERA_MIX.items():
        in_deck = [c for c in records if c.deck == deck]
        if len(in_deck) != mix["total"]:
            raise ContentError(f"cards.json: {deck} has {len(in_deck)} cards, {mix['total']} expected (§3.7.3)")
        for colour in ("green", "red", "yellow"):
            of_colour = [c for c in in_deck if c.colour == colour]
            if len(of_colour) != mix["per_colour"]:
                raise ContentError(f"cards.json: {deck} {colour} has {len(of_colour)}, {mix['per_colour']} expected")
            types = Counter(c.type for c in of_colour)
            if dict(types) != mix["types"]:
                raise ContentError(f"cards.json: {deck} {colour} type mix {dict(types)} != {mix['types']}")
    three = [c for c in records if c.tier == "three"]
    one_two = [c for c in records if c.tier == "one_two"]
    if Counter(c.colour for c in three) != Counter({"green": 4, "red": 3, "yellow": 3}):
        raise ContentError("cards.json: 10 three-credit Specials (4 green, 3 red, 3 yellow) expected")
    if Counter(c.colour for c in one_two) != Counter({"green": 5, "red": 5, "yellow": 5}):
        raise ContentError("cards.json: 15 one-/two-credit Specials (5 per colour) expected")
    if Counter(c.cost for c in one_two) != Counter({1: 8, 2: 7}):
        raise ContentError("cards.json: one-/two-credit Specials: 8 cost 1, 7 cost 2 expected")
    if sorted(c.number for c in three + one_two if c.number is not None) != list(range(181, 206)):
        raise ContentError("cards.json: Special numbers 181..205 expected")
    if sum(c.deck == "start" for c in records) != 1:
        raise ContentError("cards.json: exactly one Personal Assistant record expected")


def load_content(directory: Path = CONTENT_DIR) -> Content:
    """The validated content of the pack in ``directory``."""
    info = _load(directory, "info.json", Info)
    main_board = _load(directory, "main_board.json", MainBoard)
    _validate_main_board(main_board)
    boards = _load(directory, "player_boards.json", PlayerBoardsFile)
    _validate_boards(boards)
    metropolises = _load(directory, "metropolises.json", MetropolisFile)
    _validate_metropolises(metropolises)
    contracts = _load(directory, "contracts.json", ContractFile)
    _validate_contracts(contracts)
    cards = _load(directory, "cards.json", CardFile)
    _validate_cards(cards, set(main_board.slot_effects))
    check_card_counts(cards)
    if len(info.federation.start_positions) != 4 or info.era_track.count("P1") != 1:
        raise ContentError("info.json: 4 Federation start rows and an era track with P1..P3 expected")
    return Content(info, main_board, boards, metropolises, contracts, cards)


FILES: dict[str, type] = {
    "info.json": Info,
    "main_board.json": MainBoard,
    "player_boards.json": PlayerBoardsFile,
    "metropolises.json": MetropolisFile,
    "contracts.json": ContractFile,
    "cards.json": CardFile,
}


def _accept_kind_aliases(schema: dict[str, Any]) -> dict[str, Any]:
    """The raw files may name kinds by the aliases of §3.7.2 (`building`, `structure`, `city`)."""
    def walk(node: Any) -> None:
        if isinstance(node, dict):
            kinds = node.get("properties", {}).get("kinds")
            items = kinds.get("items") if isinstance(kinds, dict) else None
            if isinstance(items, dict) and isinstance(items.get("enum"), list):
                items["enum"] = [*items["enum"], *(a for a in KIND_ALIASES if a not in items["enum"])]
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    return schema


PACKS: PackSet[Content] = PackSet("underwater_cities", CONTENT_DIR, load_content, FILES, _accept_kind_aliases)


def content() -> Content:
    """The content of the pack in use (the game at hand's; the built-in pack between engine calls)."""
    return PACKS.live


def gain_of(res: Res) -> Gain:
    return Gain(credit=res.credit, kelp=res.kelp, steelplast=res.steelplast, science=res.science,
                biomatter=res.biomatter)
