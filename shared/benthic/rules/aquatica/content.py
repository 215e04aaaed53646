"""Loading and validation of a content pack (spec §3; ``benthic.rules.packs``, by default the built-in one in
``content/``): the schemas as msgspec Structs, the load-time checks, and the indexes the engine uses.
Loaded once per pack; ``catalog()`` is the live object, the catalogue of the pack of the game at hand.

The counts checked here are the CONFIRMED component counts of §3.1; everything else (which Location has
which Depths, what a King does...) comes from the data files only, so a licensed data set replaces ours
without code changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

import msgspec

from benthic.rules.aquatica.effects import (
    DEPTH_EFFECT_TYPES,
    Effect,
    Gain,
    LocationType,
    Recruit,
    ReplayFromDiscard,
    contains_conquer,
)
from benthic.rules.packs import PackSet

CONTENT_DIR = Path(__file__).parent / "content"
NonNegative = Annotated[int, msgspec.Meta(ge=0)]
LOCATION_TYPES: tuple[str, ...] = ("shark_bay", "sunken_ships", "ocean_volcanoes", "decayed_civilizations")
MAX_SEATS = 4

# §3.1 component list (CONFIRMED counts).
LOCATION_COUNT = 56
KING_COUNT = 8
STARTING_CARDS_PER_PLAYER = 6
OCEAN_DISTINCT = 9
OCEAN_SUFFIXES = ("P", "A", "O")
TRAINED_PER_PLAYER = 4
WILD_MANTA_COUNT = 31
GOAL_TOKEN_COUNT = 6
MAX_DEPTHS = 4


class ContentError(ValueError):
    """The content files break the schema or a load-time check."""


class _Data(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


class Location(_Data, frozen=True):
    id: str
    name: str
    type: LocationType
    coin_price: NonNegative
    power_price: NonNegative
    depths: tuple[Effect, ...]
    wild_manta: str | None
    prosperity: NonNegative


class LocationData(_Data, frozen=True):
    data_version: str
    locations: tuple[Location, ...]


class CharacterCopy(_Data, frozen=True):
    suffix: Literal["P", "A", "O"]
    mark: Literal["A", "O"] | None


class SetupExchange(_Data, frozen=True):
    type: Literal["exchange_for_wild_manta"]
    kind: str


RuleOption = Literal["healer_replays"]  # the rule flags a card's effects may depend on (spec §11 Q2)


class Character(_Data, frozen=True):
    id: str
    name: str
    category: Literal["starting", "ocean", "king"]
    number: int | None
    effects: tuple[Effect, ...]
    after_play: Literal["discard", "remove_from_game"]
    is_matrona: bool
    setup: SetupExchange | None
    copies: tuple[CharacterCopy, ...]
    effects_if: dict[RuleOption, tuple[Effect, ...]] = {}  # the card's effects while that rule flag is on


class CharacterData(_Data, frozen=True):
    data_version: str
    characters: tuple[Character, ...]


class MantaKind(_Data, frozen=True):
    id: str
    category: Literal["trained", "wild"]
    face: Effect
    count: NonNegative | None = None  # wild only
    short: str | None = None  # trained only: the id suffix, T{seat}-{short}
    name: str | None = None  # what people call the kind (the catalogue's name; derived from its face when absent)


class MantaData(_Data, frozen=True):
    data_version: str
    kinds: tuple[MantaKind, ...]
    trained_per_player: tuple[str, ...]
    ichthyander_count: NonNegative


ConditionKind = Literal[
    "hand_size_at_least", "hand_size_at_most", "discard_size_at_least", "same_type_at_least",
    "board_locations_at_least", "locations_total_at_least", "scored_count_at_least",
    "scored_prosperity_at_least", "scored_distinct_types_at_least", "fully_risen_on_board_at_least",
    "tired_mantas_in_reserve_at_least", "mantas_in_reserve_at_least", "wild_mantas_at_least",
    "conquer_cards_at_least", "recruited_paying_at_least",
]


class Condition(_Data, frozen=True):
    kind: ConditionKind
    n: NonNegative


class Goal(_Data, frozen=True):
    id: str
    text: str
    condition: Condition


class PrintedGoals(_Data, frozen=True):
    first: tuple[str, ...]
    updated: tuple[str, ...]


class GoalToken(_Data, frozen=True):
    id: str
    front: str
    back: str


class GoalData(_Data, frozen=True):
    data_version: str
    goals: tuple[Goal, ...]
    printed: PrintedGoals
    tokens: tuple[GoalToken, ...]


class BoardData(_Data, frozen=True):
    data_version: str
    character_row_costs: tuple[NonNegative, ...]
    bottom_row_size: NonNegative
    top_row_size: NonNegative
    top_row_conquer_discount: NonNegative
    player_board_slots: NonNegative
    goal_tracks: NonNegative
    goal_track_points: tuple[NonNegative, ...]


OceanSet = Literal["P", "A", "O"]  # the copy sets by suffix (§3.4.2)


class Components(_Data, frozen=True):
    """One printing's components (spec §11 Q4): its Ocean Character sets and its goal tokens."""

    ocean_sets: tuple[OceanSet, ...]
    goal_tokens: tuple[str, ...]
    ocean_sets_removed: dict[str, tuple[OceanSet, ...]]  # by player count "1".."4"


class SetupData(_Data, frozen=True):
    data_version: str
    components: dict[Literal["first", "updated"], Components]
    solo_king_offer: NonNegative


class SoloRank(_Data, frozen=True):
    min: NonNegative
    max: NonNegative | None
    title: str


class SoloData(_Data, frozen=True):
    data_version: str
    ranks: dict[Literal["first", "updated"], tuple[SoloRank, ...]]


class PresetFlags(_Data, frozen=True):
    components: Literal["first", "updated"]
    printed_goals: Literal["first", "updated"]
    scout_rule: Literal["first", "updated"]
    matrona_never_discarded: bool
    two_player_matrona_row_discard: bool
    solo_trigger: Literal["matrona", "matrona_or_scout"]
    solo_ranks: Literal["first", "updated"]


class FlagDefaults(_Data, frozen=True):
    mode: Literal["basic", "advanced"]
    variable_goals: bool
    king_draft: bool
    use_kings: bool
    manta_once_per_turn: Literal["resource", "all"]
    grabber_typed_chain: bool
    first_seat: int | None
    max_rounds: Annotated[int, msgspec.Meta(ge=1)]


class Rulesets(_Data, frozen=True):
    data_version: str
    presets: dict[Literal["first", "updated"], PresetFlags]
    default_preset: Literal["first", "updated"]
    defaults: FlagDefaults


def _load(directory: Path, name: str, schema: type) -> Any:
    raw = (directory / name).read_bytes()
    try:
        return msgspec.json.decode(raw, type=schema)
    except msgspec.DecodeError as exc:  # also a ValidationError
        raise ContentError(f"content/{name}: {exc}") from None


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ContentError(message)


class Catalog:
    """Every content table, validated, with the indexes the engine needs (read-only after construction)."""

    def __init__(self, directory: Path = CONTENT_DIR) -> None:
        self.board: BoardData = _load(directory, "board.json", BoardData)
        location_data: LocationData = _load(directory, "locations.json", LocationData)
        character_data: CharacterData = _load(directory, "characters.json", CharacterData)
        manta_data: MantaData = _load(directory, "mantas.json", MantaData)
        self.goal_data: GoalData = _load(directory, "goals.json", GoalData)
        self.setup: SetupData = _load(directory, "setup.json", SetupData)
        self.solo: SoloData = _load(directory, "solo.json", SoloData)
        self.rulesets: Rulesets = _load(directory, "rulesets.json", Rulesets)
        self.data_versions = {
            "board": self.board.data_version, "locations": location_data.data_version,
            "characters": character_data.data_version, "mantas": manta_data.data_version,
            "goals": self.goal_data.data_version, "setup": self.setup.data_version,
            "solo": self.solo.data_version, "rulesets": self.rulesets.data_version,
        }
        self._index_mantas(manta_data)
        self._index_locations(location_data)
        self._index_characters(character_data)
        self._index_goals()
        self._check_board_and_setup()

    # --- Mantas (§3.6) -------------------------------------------------------------------------
    def _index_mantas(self, data: MantaData) -> None:
        self.manta_kinds = {k.id: k for k in data.kinds}
        _check(len(self.manta_kinds) == len(data.kinds), "mantas.json: duplicate kind ids")
        wild = [k for k in data.kinds if k.category == "wild"]
        self.wild_kinds: tuple[str, ...] = tuple(k.id for k in wild)
        self.wild_counts: tuple[int, ...] = tuple(k.count or 0 for k in wild)
        self.wild_index = {kind: i for i, kind in enumerate(self.wild_kinds)}
        _check(sum(self.wild_counts) == WILD_MANTA_COUNT, f"mantas.json: {WILD_MANTA_COUNT} Wild Mantas expected")
        _check(all(k.count is not None and k.short is None for k in wild), "mantas.json: wild kinds need a count")
        _check(len(data.trained_per_player) == TRAINED_PER_PLAYER, "mantas.json: 4 Trained Mantas per player")
        shorts = []
        for kind_id in data.trained_per_player:
            kind = self.manta_kinds.get(kind_id)
            _check(kind is not None and kind.category == "trained" and kind.short is not None and kind.count is None,
                   f"mantas.json: {kind_id} is not a trained kind with a short id")
            shorts.append(kind.short)  # type: ignore[union-attr]
        _check(len(set(shorts)) == len(shorts), "mantas.json: trained short ids must differ")
        self.trained_kinds: tuple[str, ...] = data.trained_per_player
        self.trained_ids: tuple[tuple[str, ...], ...] = tuple(
            tuple(f"T{seat}-{self.manta_kinds[k].short}" for k in data.trained_per_player) for seat in range(MAX_SEATS)
        )
        self.trained_kind_of = {
            mid: kind
            for seat_ids in self.trained_ids
            for mid, kind in zip(seat_ids, data.trained_per_player, strict=True)
        }
        self.trained_owner = {mid: seat for seat, ids in enumerate(self.trained_ids) for mid in ids}
        self.ichthyander_ids: tuple[str, ...] = tuple(f"I-{n}" for n in range(1, data.ichthyander_count + 1))
        _check(data.ichthyander_count == 4, "mantas.json: 4 Ichthyander Mantas")
        for kind in data.kinds:
            _check(not isinstance(kind.face, ReplayFromDiscard), f"mantas.json: {kind.id}: a face cannot replay")
            _check(not isinstance(kind.face, Gain) or kind.face.only_for_type is None or kind.face.resource == "power",
                   f"mantas.json: {kind.id}: only power can be type-specific")

    def face(self, kind: str) -> Effect:
        return self.manta_kinds[kind].face

    # --- Locations (§3.3) ----------------------------------------------------------------------
    def _index_locations(self, data: LocationData) -> None:
        self.locations = {loc.id: loc for loc in data.locations}
        self.location_ids: tuple[str, ...] = tuple(loc.id for loc in data.locations)
        _check(len(data.locations) == LOCATION_COUNT, f"locations.json: {LOCATION_COUNT} Locations expected")
        _check(len(self.locations) == LOCATION_COUNT, "locations.json: duplicate Location ids")
        _check({loc.type for loc in data.locations} == set(LOCATION_TYPES), "locations.json: all 4 types")
        for loc in data.locations:
            _check(len(loc.depths) <= MAX_DEPTHS, f"{loc.id}: at most {MAX_DEPTHS} Depths")
            for depth in loc.depths:
                _check(isinstance(depth, DEPTH_EFFECT_TYPES), f"{loc.id}: {depth} cannot be a Depth")
                _check(not isinstance(depth, Recruit) or depth.free, f"{loc.id}: a Depth recruit is free")
                _check(not isinstance(depth, Gain) or depth.only_for_type is None or depth.resource == "power",
                       f"{loc.id}: only power can be type-specific")
            _check(loc.wild_manta is None or loc.wild_manta in self.wild_index,
                   f"{loc.id}: unknown Wild Manta kind {loc.wild_manta}")

    # --- Characters (§3.4, §3.5) ---------------------------------------------------------------
    def _index_characters(self, data: CharacterData) -> None:
        self.templates = {c.id: c for c in data.characters}
        _check(len(self.templates) == len(data.characters), "characters.json: duplicate ids")
        starting = [c for c in data.characters if c.category == "starting"]
        ocean = [c for c in data.characters if c.category == "ocean"]
        kings = sorted((c for c in data.characters if c.category == "king"), key=lambda c: c.number or 0)
        _check(len(starting) == STARTING_CARDS_PER_PLAYER, "characters.json: 6 starting Characters")
        _check(sum(c.is_matrona for c in starting) == 1 and not any(c.is_matrona for c in ocean + kings),
               "characters.json: exactly one Matrona, a starting card")
        _check(len(ocean) == OCEAN_DISTINCT, "characters.json: 9 Ocean Characters")
        _check(len(kings) == KING_COUNT and [k.number for k in kings] == list(range(1, KING_COUNT + 1)),
               "characters.json: Kings numbered 1-8")
        for c in data.characters:
            _check((c.category == "ocean") == bool(c.copies), f"{c.id}: copies are for Ocean Characters only")
            _check((c.category == "king") == (c.number is not None), f"{c.id}: numbers are for Kings only")
            _check(c.after_play == "discard" or c.category == "king", f"{c.id}: only Kings are one-use")
            if c.setup is not None:
                _check(c.category == "king" and not c.effects and c.setup.kind in self.wild_index,
                       f"{c.id}: a setup exchange is for a King without effects, for a Wild kind")
        for c in data.characters:
            for option, effects in c.effects_if.items():
                _check(bool(effects), f"{c.id}: effects_if {option} names no effect")
            _check(not any(isinstance(e, ReplayFromDiscard) for e in c.effects),
                   f"{c.id}: replay_from_discard is a rule option (effects_if healer_replays), not a printed effect")
        for c in ocean:
            _check(tuple(cp.suffix for cp in c.copies) == OCEAN_SUFFIXES, f"{c.id}: copies P, A, O")
            _check(tuple(cp.mark for cp in c.copies) == (None, "A", "O"), f"{c.id}: marks none, A, O")
        self.card: dict[str, Character] = {}  # instance id -> template
        self.starting_ids: tuple[tuple[str, ...], ...] = tuple(
            tuple(f"S{seat}-{c.id}" for c in starting) for seat in range(MAX_SEATS)
        )
        for seat in range(MAX_SEATS):
            for c, card_id in zip(starting, self.starting_ids[seat], strict=True):
                self.card[card_id] = c
        self.matrona_ids = frozenset(cid for ids in self.starting_ids for cid in ids if self.card[cid].is_matrona)
        self.ocean_ids: tuple[tuple[str, str | None], ...] = tuple(
            (f"OC-{c.id}-{cp.suffix}", cp.mark) for cp_index in range(3) for c in ocean for cp in (c.copies[cp_index],)
        )
        self.ocean_set_of: dict[str, str] = {f"OC-{c.id}-{cp.suffix}": cp.suffix for c in ocean for cp in c.copies}
        for c in ocean:
            for cp in c.copies:
                self.card[f"OC-{c.id}-{cp.suffix}"] = c
        self.king_ids: tuple[str, ...] = tuple(k.id for k in kings)
        for k in kings:
            self.card[k.id] = k
        self.conquer_cards = frozenset(cid for cid, c in self.card.items() if contains_conquer(c.effects))
        self.all_card_ids = frozenset(self.card)

    # --- Goals (§3.8) --------------------------------------------------------------------------
    def _index_goals(self) -> None:
        data = self.goal_data
        self.goals = {g.id: g for g in data.goals}
        _check(len(self.goals) == len(data.goals), "goals.json: duplicate goal ids")
        for printing in (data.printed.first, data.printed.updated):
            _check(len(printing) == self.board.goal_tracks and all(g in self.goals for g in printing),
                   "goals.json: 4 printed goals per printing")
        self.tokens = {t.id: t for t in data.tokens}
        _check(len(data.tokens) == GOAL_TOKEN_COUNT and len(self.tokens) == GOAL_TOKEN_COUNT,
               "goals.json: 6 goal tokens")
        sides = [g for t in data.tokens for g in (t.front, t.back)]
        _check(len(set(sides)) == 2 * GOAL_TOKEN_COUNT and all(g in self.goals for g in sides),
               "goals.json: 12 distinct known goals on the tokens")
        self.token_ids: tuple[str, ...] = tuple(t.id for t in data.tokens)

    def _check_board_and_setup(self) -> None:
        b = self.board
        _check(len(b.character_row_costs) == 6 and b.character_row_costs[0] == 0,
               "board.json: 6 row slots, the leftmost free")
        _check(b.goal_tracks == 4 and len(b.goal_track_points) == 5, "board.json: 4 goal tracks of 5 spots")
        _check(list(b.goal_track_points) == sorted(b.goal_track_points, reverse=True), "board.json: decreasing PP")
        _check(b.player_board_slots == 5 and b.bottom_row_size == 6 and b.top_row_size == 4,
               "board.json: 5 board slots, rows of 6 and 4")
        _check(set(self.setup.components) == {"first", "updated"}, "setup.json: the components of both printings")
        for printing, parts in self.setup.components.items():
            where = f"setup.json components {printing}"
            _check("P" in parts.ocean_sets and len(set(parts.ocean_sets)) == len(parts.ocean_sets),
                   f"{where}: distinct Ocean sets, the plain P set included")
            _check(set(parts.ocean_sets_removed) == {"1", "2", "3", "4"}, f"{where}: a set list per player count")
            for seats, removed in parts.ocean_sets_removed.items():
                _check("P" not in removed and set(removed) <= set(parts.ocean_sets),
                       f"{where}: {seats} players remove only A / O sets of this printing")
            _check(len(parts.goal_tokens) >= self.board.goal_tracks
                   and len(set(parts.goal_tokens)) == len(parts.goal_tokens)
                   and set(parts.goal_tokens) <= set(self.tokens),
                   f"{where}: at least {self.board.goal_tracks} distinct known goal tokens")
        _check(self.setup.solo_king_offer <= KING_COUNT, "setup.json: solo offer within the Kings")
        for printing, table in self.solo.ranks.items():
            _check(table[0].min == 0 and table[-1].max is None, f"solo.json {printing}: ranks from 0 up")
            for lower, upper in zip(table, table[1:], strict=False):
                _check(lower.max is not None and upper.min == lower.max + 1, f"solo.json {printing}: contiguous")
        _check(set(self.solo.ranks) == {"first", "updated"}, "solo.json: both printings")
        _check(set(self.rulesets.presets) == {"first", "updated"}, "rulesets.json: both presets")

    # --- helpers -------------------------------------------------------------------------------
    def row_cost(self, row_slot: int) -> int:
        return self.board.character_row_costs[row_slot]

    def wild_manta_id(self, kind: str, taken_before: int) -> str:
        return f"{kind}#{taken_before + 1}"

    def ocean_cards(self, printing: str, seats: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """(removed to the box, kept for the deck): a printing's Ocean Characters for a player count."""
        parts = self.setup.components[printing]  # type: ignore[index]
        removed = set(parts.ocean_sets_removed[str(seats)])
        cards = [cid for cid, _ in self.ocean_ids if self.ocean_set_of[cid] in parts.ocean_sets]
        return (tuple(c for c in cards if self.ocean_set_of[c] in removed),
                tuple(c for c in cards if self.ocean_set_of[c] not in removed))

    def card_effects(self, card_id: str, healer_replays: bool) -> tuple[Effect, ...]:
        """The effects of a card under the game's rule flags (``effects_if``, spec §11 Q2)."""
        card = self.card[card_id]
        if healer_replays and "healer_replays" in card.effects_if:
            return card.effects_if["healer_replays"]
        return card.effects


FILES: dict[str, type] = {
    "board.json": BoardData,
    "locations.json": LocationData,
    "characters.json": CharacterData,
    "mantas.json": MantaData,
    "goals.json": GoalData,
    "setup.json": SetupData,
    "solo.json": SoloData,
    "rulesets.json": Rulesets,
}

PACKS: PackSet[Catalog] = PackSet("aquatica", CONTENT_DIR, Catalog, FILES)


def catalog() -> Catalog:
    """The catalogue of the pack in use (the game at hand's; the built-in pack between engine calls)."""
    return PACKS.live
