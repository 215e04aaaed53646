"""The events of Nautilus (spec §4.3 and the catalogue §5.8): names and fields exactly as in the spec.

Sequences are tuples so that an event survives a JSON round trip unchanged.  Seats are ints; a payer or
payee may also be ``"bank"``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from benthic.rules.core import PackRef

Cell = tuple[int, int]
Party = int | Literal["bank"]


class _Event(msgspec.Struct, frozen=True, tag_field="type"):
    pass


# --- nested records --------------------------------------------------------------------------------


class Options(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The game's options with every default filled in (§4.1)."""

    base_placement: str | Cell = "first_game"
    start_seat: str | int = "random"
    allow_withdraw_in_place: bool = True
    tiebreak: str = "shared"
    assignment_cashing: str = "prompt"
    auto_pass: bool = True


class SeatColour(msgspec.Struct, frozen=True):
    seat: int
    colour: str


class Placement(msgspec.Struct, frozen=True):
    cell: Cell
    chip: str
    depth: str  # of the find space (public): redacting sea_finds_dealt needs no content pack


class PeekedChip(msgspec.Struct, frozen=True):
    cell: Cell
    chip: str
    kind: str
    atlantis_number: int | None


class AtlantisAward(msgspec.Struct, frozen=True):
    seat: int
    finds: int
    highest: int | None
    points: int


# --- setup, rounds and turns -----------------------------------------------------------------------


class GameStarted(_Event, frozen=True, tag="game_started"):
    player_count: int
    seats: tuple[SeatColour, ...]
    options: Options
    base_anchor: Cell
    start_seat: int
    starting_nemo: int
    stacks: dict[str, tuple[str, ...]]
    atlantis_points: tuple[int, ...]
    seed: int
    content: PackRef  # the content pack the game is played with


class SeaFindsDealt(_Event, frozen=True, tag="sea_finds_dealt"):
    placements: tuple[Placement, ...]


class AssignmentDealt(_Event, frozen=True, tag="assignment_dealt"):
    seat: int
    card: str


class RoundStarted(_Event, frozen=True, tag="round_started"):
    round: int
    start_seat: int
    final_round: bool


class TurnStarted(_Event, frozen=True, tag="turn_started"):
    round: int
    phase: int
    seat: int


class TurnEnded(_Event, frozen=True, tag="turn_ended"):
    seat: int
    phase: int
    auto: bool = False


class RoundEnded(_Event, frozen=True, tag="round_ended"):
    round: int
    bought: bool
    built: bool
    recovered: bool


class EndTriggered(_Event, frozen=True, tag="end_triggered"):
    trigger: str  # atlantis_13_14_15 | atlantis_all | no_activity
    final_round: int


# --- money ---------------------------------------------------------------------------------------


class NemoTransferred(_Event, frozen=True, tag="nemo_transferred"):
    from_: Party = msgspec.field(name="from")
    to: Party
    amount: int
    reason: str


# --- phase 1 ---------------------------------------------------------------------------------------


class StationBought(_Event, frozen=True, tag="station_bought"):
    seat: int
    tile: str
    kind: str
    staff: int
    price: int


class StationBuilt(_Event, frozen=True, tag="station_built"):
    seat: int
    tile: str
    anchor: Cell
    rotation: int
    locks: tuple[str | None, ...]  # board orientation, slot order N..NW
    level: int
    paid: int


class StationsReturned(_Event, frozen=True, tag="stations_returned"):
    seat: int
    tiles: tuple[str, ...]
    researchers_returned: int
    reason: str  # partial_build | no_buy_no_build


class FindRemoved(_Event, frozen=True, tag="find_removed"):
    cell: Cell
    chip: str
    kind: str
    atlantis_number: int | None
    cause: str = "covered"


class AtlantisToTracker(_Event, frozen=True, tag="atlantis_to_tracker"):
    number: int
    seat: int | None
    cause: str  # recovered | covered | unaffordable


# --- researchers -------------------------------------------------------------------------------------


class ResearcherMoved(_Event, frozen=True, tag="researcher_moved"):
    seat: int
    from_: str = msgspec.field(name="from")
    to: str
    steps: int
    path: tuple[str, ...]
    source: str  # phase2 | atlantis_bonus


class ResearcherPlaced(_Event, frozen=True, tag="researcher_placed"):
    seat: int
    station: str
    source: str = "withdrawal"


class StationActivated(_Event, frozen=True, tag="station_activated"):
    seat: int
    station: str
    research_type: str
    owner: int | None
    fee: int


class ThreeChipMoved(_Event, frozen=True, tag="three_chip_moved"):
    research_type: str
    from_seat: int | None
    to_seat: int


class ResearchTrackChanged(_Event, frozen=True, tag="research_track_changed"):
    seat: int
    research_type: str
    count: int
    value: int


# --- submarines and finds ---------------------------------------------------------------------------


class SubLaunched(_Event, frozen=True, tag="sub_launched"):
    seat: int
    sub: int
    station: str
    cell: Cell


class SubMoved(_Event, frozen=True, tag="sub_moved"):
    seat: int
    sub: int
    from_: Cell = msgspec.field(name="from")
    to: Cell
    steps: int
    path: tuple[Cell, ...]
    mode: str  # normal | tempo


class SubWithdrawn(_Event, frozen=True, tag="sub_withdrawn"):
    seat: int
    sub: int
    cell: Cell
    station: str
    researcher_placed: bool


class GorgeOpened(_Event, frozen=True, tag="gorge_opened"):
    seat: int
    cause: str  # entry | launch


class EchoUsed(_Event, frozen=True, tag="echo_used"):
    seat: int
    sub: int
    range: int
    cells: tuple[Cell, ...]


class FindsPeeked(_Event, frozen=True, tag="finds_peeked"):
    seat: int
    source: str  # echo | trial
    chips: tuple[PeekedChip, ...]


class FindRevealed(_Event, frozen=True, tag="find_revealed"):
    cell: Cell
    chip: str
    kind: str
    atlantis_number: int | None


class FindRecovered(_Event, frozen=True, tag="find_recovered"):
    seat: int
    sub: int
    cell: Cell
    chip: str
    kind: str
    cost: int


class FindUnaffordable(_Event, frozen=True, tag="find_unaffordable"):
    seat: int
    sub: int
    cell: Cell
    chip: str
    kind: str
    cost: int


class OptionDeclined(_Event, frozen=True, tag="option_declined"):
    seat: int
    option: str  # tempo | trial | atlantis_bonus
    auto: bool = False


# --- the end ---------------------------------------------------------------------------------------


class FinalScoringStarted(_Event, frozen=True, tag="final_scoring_started"):
    pass


class AssignmentCashed(_Event, frozen=True, tag="assignment_cashed"):
    seat: int
    card: str
    upgrades: dict[str, int]
    cost: int
    auto: bool = False


class AtlantisPointsAwarded(_Event, frozen=True, tag="atlantis_points_awarded"):
    awards: tuple[AtlantisAward, ...]


class GameEnded(_Event, frozen=True, tag="game_ended"):
    reason: str
    board_revealed: tuple[Placement, ...]


Event = (
    GameStarted | SeaFindsDealt | AssignmentDealt | RoundStarted | TurnStarted | TurnEnded | RoundEnded | EndTriggered
    | NemoTransferred | StationBought | StationBuilt | StationsReturned | FindRemoved | AtlantisToTracker
    | ResearcherMoved | ResearcherPlaced | StationActivated | ThreeChipMoved | ResearchTrackChanged | SubLaunched
    | SubMoved | SubWithdrawn | GorgeOpened | EchoUsed | FindsPeeked | FindRevealed | FindRecovered | FindUnaffordable
    | OptionDeclined | FinalScoringStarted | AssignmentCashed | AtlantisPointsAwarded | GameEnded
)
