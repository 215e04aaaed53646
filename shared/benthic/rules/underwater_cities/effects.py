"""The effect vocabulary of spec §3.7.2 as msgspec Structs: effect nodes, quantities, conditions, permanent
abilities, production and end-scoring records.  Content files are decoded straight into these types, so a
node outside the vocabulary fails at load time.  Kind aliases (`building`, `structure`, `city`) are expanded
by the loader before decoding: a node's ``kinds`` is always a tuple of concrete kinds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Literal

import msgspec

NonNeg = Annotated[int, msgspec.Meta(ge=0)]
Positive = Annotated[int, msgspec.Meta(ge=1)]

RESOURCES = ("credit", "kelp", "steelplast", "science", "biomatter")
BUILDING_KINDS = ("farm", "desal", "lab")
STRUCTURE_KINDS = ("tunnel", "farm", "desal", "lab")
CITY_KINDS = ("city_nonsym", "city_sym")
ALL_KINDS = ("tunnel", "farm", "desal", "lab", "city_nonsym", "city_sym")
KIND_ALIASES = {"building": BUILDING_KINDS, "structure": STRUCTURE_KINDS, "city": CITY_KINDS}

Kind = Literal["tunnel", "farm", "desal", "lab", "city_nonsym", "city_sym"]
BuildingKind = Literal["farm", "desal", "lab"]
Resource = Literal["credit", "kelp", "steelplast", "science", "biomatter"]


class Res(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A bag of resources (a cost, a discount, a payment)."""

    credit: NonNeg = 0
    kelp: NonNeg = 0
    steelplast: NonNeg = 0
    science: NonNeg = 0
    biomatter: NonNeg = 0


NO_RES = Res()


class UpgradeCost(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True):
    """A specified upgrade cost: one bag, or `{one_of:[A, B]}` (each upgrade paid with either bag).
    One Struct for both JSON forms, since a msgspec union cannot hold two untagged object types."""

    credit: NonNeg = 0
    kelp: NonNeg = 0
    steelplast: NonNeg = 0
    science: NonNeg = 0
    biomatter: NonNeg = 0
    one_of: tuple[Res, ...] | None = None

    def bags(self) -> tuple[Res, ...]:
        if self.one_of is not None:
            return self.one_of
        return (Res(self.credit, self.kelp, self.steelplast, self.science, self.biomatter),)


# --- quantities and conditions ------------------------------------------------------------------------------

QuantityName = Literal[
    "connected_cities",
    "connected_symbiotic_cities",
    "connected_buildings",
    "tunnels",
    "connected_metropolises",
    "complete_cities",
    "upgraded_sets",
    "specials_paid",
]


class Quantity(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    q: QuantityName
    kind: BuildingKind | None = None  # connected_buildings only
    upgraded: bool | None = None  # connected_buildings / tunnels: true = upgraded only
    adjacent_to_city: bool | None = None  # tunnels only


class Condition(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """`Q ≥ n` (``q`` and ``min``) or `fed_space = n` (``federation_space``)."""

    q: Quantity | None = None
    min: NonNeg | None = None
    federation_space: Annotated[int, msgspec.Meta(ge=1, le=4)] | None = None


# --- effect nodes -------------------------------------------------------------------------------------------

class _Node(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="op", omit_defaults=True):
    pass


class Gain(_Node, frozen=True, tag="gain"):
    credit: NonNeg = 0
    kelp: NonNeg = 0
    steelplast: NonNeg = 0
    science: NonNeg = 0
    biomatter: NonNeg = 0
    points: NonNeg = 0
    cards: NonNeg = 0


class GainDistinct(_Node, frozen=True, tag="gain_distinct"):
    n: Positive
    from_: tuple[Resource, ...] = msgspec.field(name="from", default=("credit", "kelp", "steelplast", "science"))


class Fed(_Node, frozen=True, tag="fed"):
    steps: Positive


class All(_Node, frozen=True, tag="all"):
    parts: tuple[Effect, ...]


class Choice(_Node, frozen=True, tag="choice"):
    options: tuple[Effect, ...]


class Build(_Node, frozen=True, tag="build"):
    kinds: tuple[Kind, ...]
    n: Positive = 1
    cost: Literal["usual", "free"] | Res = "usual"
    discount: Res | None = None
    site: Literal["regular", "expansion"] = "regular"


class BuildUpgrade(_Node, frozen=True, tag="build_upgrade"):
    kinds: tuple[Kind, ...]


class Upgrade(_Node, frozen=True, tag="upgrade"):
    kinds: tuple[Kind, ...]
    n: Positive = 1
    cost: Literal["usual", "free"] | UpgradeCost = "usual"


class UseAction(_Node, frozen=True, tag="use_action"):
    n: Positive = 1


class RestoreAction(_Node, frozen=True, tag="restore_action"):
    n: Positive = 1


class TakeSpecial(_Node, frozen=True, tag="take_special"):
    pass


class PerformSlot(_Node, frozen=True, tag="perform_slot"):
    scope: Literal["available", "occupied_other", "available_or_occupied_other"]
    colored_only: bool = False


class Pay(_Node, frozen=True, tag="pay"):
    cost: Res
    then: Effect
    max_times: Positive = 1


class Exchange(_Node, frozen=True, tag="exchange"):
    a: Res
    b: Res


class If(_Node, frozen=True, tag="if"):
    cond: Condition
    then: Effect


class Per(_Node, frozen=True, tag="per"):
    q: Quantity
    div: Positive
    then: Gain
    max: NonNeg | None = None


class StructureProduction(_Node, frozen=True, tag="structure_production"):
    pass


class ConvertCity(_Node, frozen=True, tag="convert_city"):
    cost: Res


class GainMetropolis(_Node, frozen=True, tag="gain_metropolis"):
    pass


Effect = (
    Gain | GainDistinct | Fed | All | Choice | Build | BuildUpgrade | Upgrade | UseAction | RestoreAction
    | TakeSpecial | PerformSlot | Pay | Exchange | If | Per | StructureProduction | ConvertCity | GainMetropolis
)

# Nodes resolved without any decision the moment their part is reached (§5.2 "automatic parts first").
AUTOMATIC_NODES = (Gain, Fed, GainMetropolis)


# --- trigger events of permanent cards ----------------------------------------------------------------------

class _Ev(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="ev", omit_defaults=True):
    pass


class OnSlotMismatch(_Ev, frozen=True, tag="slot_mismatch"):
    pass


class OnFedEnter(_Ev, frozen=True, tag="fed_enter"):
    space: Annotated[int, msgspec.Meta(ge=1, le=4)]


class OnFedAdvance(_Ev, frozen=True, tag="fed_advance"):
    pass


class OnBuilt(_Ev, frozen=True, tag="built"):
    kinds: tuple[Kind, ...]
    nth_at_connected_city: Positive | None = None


class OnTunnelsThisTurn(_Ev, frozen=True, tag="tunnels_this_turn"):
    n: Positive


class OnUpgraded(_Ev, frozen=True, tag="upgraded"):
    kinds: tuple[Kind, ...]
    nth_upgraded_at_connected_city: Positive | None = None


class OnSlotGave(_Ev, frozen=True, tag="slot_gave"):
    res: Resource


class OnMetropolisConnected(_Ev, frozen=True, tag="metropolis_connected"):
    pass


class OnSlotUsed(_Ev, frozen=True, tag="slot_used"):
    slot_effect: str


TriggerEvent = (
    OnSlotMismatch | OnFedEnter | OnFedAdvance | OnBuilt | OnTunnelsThisTurn | OnUpgraded | OnSlotGave
    | OnMetropolisConnected | OnSlotUsed
)


# --- card records: permanent, production, end scoring -------------------------------------------------------

class _Kind(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="kind", omit_defaults=True):
    pass


class Trigger(_Kind, frozen=True, tag="trigger"):
    on: TriggerEvent
    effect: Effect
    once_per_turn: bool = False


class Discount(_Kind, frozen=True, tag="discount"):
    target: Literal["build", "upgrade"]
    kinds: tuple[Kind, ...]
    amount: Res


class HandLimit(_Kind, frozen=True, tag="hand_limit"):
    plus: Positive


class Ability(_Kind, frozen=True, tag="ability"):
    effect: Effect
    once_per_turn: bool = True


Permanent = Trigger | Discount | HandLimit | Ability


class Produce(_Kind, frozen=True, tag="produce"):
    effect: Gain | Per


class Modifier(_Kind, frozen=True, tag="modifier"):
    modifier: Literal["lab_alt_output", "biomatter_bonus"]
    optional: bool = False
    amount: NonNeg = 0


Production = Produce | Modifier


class PerScore(_Kind, frozen=True, tag="per"):
    q: Quantity
    div: Positive
    points: NonNeg
    max: NonNeg | None = None


class TableScore(_Kind, frozen=True, tag="table"):
    q: Quantity
    steps: tuple[tuple[NonNeg, NonNeg], ...]


class BuyScore(_Kind, frozen=True, tag="buy"):
    cost: Res
    points: NonNeg
    max_times: Positive = 1


EndScoring = PerScore | TableScore | BuyScore


def parts_of(node: Effect) -> tuple[tuple[Effect, ...], bool]:
    """A frame's parts for a node: an `all` node's parts (started from resolve_effect), else the node alone."""
    if isinstance(node, All):
        return node.parts, True
    return (node,), False


def walk(node: Effect) -> Iterator[Effect]:
    """Every node of an effect tree, depth first."""
    yield node
    if isinstance(node, All):
        for part in node.parts:
            yield from walk(part)
    elif isinstance(node, Choice):
        for option in node.options:
            yield from walk(option)
    elif isinstance(node, (Pay, If)):
        yield from walk(node.then)
    elif isinstance(node, Per):
        yield node.then
