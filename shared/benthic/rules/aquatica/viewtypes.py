"""The Aquatica view (``views.view``) as a type: ``AquaticaEngine.view_type``."""

from __future__ import annotations

from typing import Literal

import msgspec

from benthic.rules.aquatica.options import Rules
from benthic.rules.aquatica.state import Payment, Phase, QueueItem, ScoutProgress, Stage, TypedPower
from benthic.rules.core import FinalScores
from benthic.rules.viewtypes import ViewPrompt


class _V(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    pass


class Pool(_V, frozen=True):
    coins: int
    power: int
    typed_power: list[TypedPower]


class PaymentView(Payment, frozen=True, kw_only=True):
    due: int  # what is left to pay


class TurnView(_V, frozen=True):
    active_seat: int
    turn_number: int
    stage: Stage
    pool: Pool
    in_play: str | None
    replaying: list[str]
    queue: list[QueueItem]
    payment: PaymentView | None
    scout: ScoutProgress | None
    resource_depth_used: list[str]
    resource_mantas_used: list[str]
    effect_mantas_used: list[str]


class Locations(_V, frozen=True):
    deck_count: int
    top_row: list[str]
    bottom_row: list[str]
    discard: list[str]


class RowSlot(_V, frozen=True):
    slot: int
    card_id: str | None
    cost: int


class Characters(_V, frozen=True):
    deck_count: int
    row: list[RowSlot]
    removed: list[str]


class TrackSpotView(_V, frozen=True):
    spot: int
    seat: int  # -1: an Ichthyander (the solo rival)
    manta_id: str
    points: int


class Goal(_V, frozen=True):
    index: int
    goal_id: str
    text: str
    token: str | None
    track: list[TrackSpotView]


class BoardSlot(_V, frozen=True):
    slot: int
    location_id: str
    covered: int
    depth_count: int
    fully_risen: bool


class MantaView(_V, frozen=True):
    manta_id: str
    kind: str
    ready: bool


class PlayerView(_V, frozen=True):
    """A player's area; ``hand``, ``discard`` and the scoring pile only for its own seat (everyone's at the end)."""

    seat: int
    symbol: str
    turn_position: int
    hand_count: int
    discard_count: int
    discard_top: str | None
    scoring_pile_count: int
    board: list[BoardSlot | None]
    mantas: list[MantaView]
    goals_claimed: list[int]
    max_paid_recruit_cost: int | None
    king_id: str | None
    king_number: int | None
    hand: list[str] | None = None
    discard: list[str] | None = None
    scoring_pile: list[str] | None = None
    scoring_pile_pp: int | None = None


class End(_V, frozen=True):
    reason: str | None
    final_turns_remaining: int


class Ichthyanders(_V, frozen=True):
    unplaced: list[str]
    placement_pending: bool


class KingOffer(_V, frozen=True):
    seat: int
    count: int
    king_ids: list[str] | None = None  # only to the seat choosing


class AquaticaView(_V, frozen=True):
    game: Literal["aquatica"]
    version: int
    viewer: int | None
    phase: Phase
    rules: Rules
    seats: int
    turn_order: list[int]
    prompt: ViewPrompt | None
    turn: TurnView
    locations: Locations
    characters: Characters
    goals: list[Goal]
    wild_reserve: dict[str, int]
    players: list[PlayerView]
    end: End
    ichthyanders: Ichthyanders | None = None  # solo games
    king_offer: KingOffer | None = None  # during the King draft
    final_scores: FinalScores | None = None  # once ended
