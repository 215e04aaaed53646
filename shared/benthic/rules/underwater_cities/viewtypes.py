"""The Underwater Cities view (``views.view``) as a type: ``UnderwaterCitiesEngine.view_type``."""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from benthic.rules.underwater_cities.effects import Res
from benthic.rules.underwater_cities.state import SeatScore
from benthic.rules.viewtypes import ViewPrompt


class _V(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


class PieceView(_V, frozen=True):
    kind: str  # tunnel | farm | desal | lab | city_nonsym | city_sym
    upgraded: bool


class PlayerView(_V, frozen=True):
    """A player's area; ``hand`` only for its own seat."""

    seat: int
    board: int
    resources: Res
    points: int
    hand_count: int
    hand_limit: int
    known_hand: list[str]
    pieces: dict[str, PieceView]  # site id -> piece
    network: list[str]
    connected_cities: list[str]
    metropolises: dict[str, str]  # metropolis space -> tile id
    gained_metropolises: list[str]
    tableau: list[str]
    used_actions: list[str]
    under_board: list[str]
    federation_space: int
    contracts: list[str]
    hand: list[str] | None = None


class Supplies(_V, frozen=True):
    tunnels: int
    white_domes: int
    purple_domes: int | None  # None: unlimited (solo)


class CloningTile(_V, frozen=True):
    in_game: bool
    available: bool


class SpecialDeck(_V, frozen=True):
    count: int
    top: str | None
    known_positions: dict[str, int]  # card id -> position, for the cards this viewer knows


class TurnView(_V, frozen=True):
    seat: int
    stage: str
    card_id: str  # "" when none, or when the card is now hidden from this viewer
    slot_id: str
    matched: bool
    clone: bool
    block: str
    blocks_left: list[str]
    tunnels_built: int
    once_used: list[str]
    pass_: int = msgspec.field(name="pass")


class Part(_V, frozen=True):
    index: int
    summary: str
    node: Any  # the effect node as data
    resolved: bool
    usable: bool | None = None  # unresolved parts of the top frame


class ActiveView(_V, frozen=True):
    part: int
    node: Any
    summary: str
    remaining: int
    drawn_count: int | None = None
    drawn: list[str] | None = None  # only to the owner


class FrameView(_V, frozen=True):
    frame_id: int
    source: str
    card_id: str
    slot_id: str
    is_all: bool
    parts: list[Part]
    active: ActiveView | None = None


class Pending(_V, frozen=True):
    pending: list[int]
    answered: list[int]
    my_choice: list[str] | None = None


class FinalPurchases(_V, frozen=True):
    pending: list[int]
    answered: list[int]
    my_purchases: list[tuple[str, int]]  # (card id, times)


class UnderwaterCitiesView(_V, frozen=True):
    version: int
    game: Literal["underwater_cities"]
    phase: str  # setup | keep | turn | production_options | final_purchases | over
    prompt: ViewPrompt | None
    seats: int
    main_side: str
    board_side: str
    round: int
    era: int
    era_track_space: str
    play_order: list[int]
    federation_stacks: dict[str, list[int]]
    supplies: Supplies
    slots: dict[str, list[int | Literal["neutral"]]]
    cloning_tile: CloningTile
    era_deck_count: int
    special_row: list[str]
    special_deck: SpecialDeck
    players: list[PlayerView]
    era_discard_count: int
    frames: list[FrameView]
    era_discard: list[str] | None = None  # when the rules make the pile public
    open_contracts: list[str] | None = None  # government contracts variant
    turn: TurnView | None = None
    keep: Pending | None = None
    production_options: Pending | None = None
    final_purchases: FinalPurchases | None = None
    final_scores: list[SeatScore] | None = None
    tie_break_order: list[int] | None = None
    solo_result: str | None = None

