"""The commands of spec §5.4 as flat tagged Structs (the seat is the ``decide`` argument)."""

from __future__ import annotations

import msgspec


class _Command(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class ChooseKing(_Command, frozen=True, tag="choose_king"):
    king_id: str


class PlayCharacter(_Command, frozen=True, tag="play_character"):
    card_id: str


class FlipManta(_Command, frozen=True, tag="flip_manta"):
    manta_id: str


class ExploitDepth(_Command, frozen=True, tag="exploit_depth"):
    slot: int


class ClaimGoal(_Command, frozen=True, tag="claim_goal"):
    goal_index: int
    manta_id: str


class EndTurn(_Command, frozen=True, tag="end_turn"):
    pass


class ChooseOption(_Command, frozen=True, tag="choose_option"):
    index: int


class Acquire(_Command, frozen=True, tag="acquire"):
    location_id: str
    slot: int
    mode: str  # "buy" | "conquer"; anything else is `mode_not_allowed`


class RecruitCharacter(_Command, frozen=True, tag="recruit"):
    row_slot: int


class RaiseLocations(_Command, frozen=True, tag="raise"):
    allocation: tuple[tuple[int, int], ...]  # [slot, steps] pairs, applied in order


class FullyRiseLocation(_Command, frozen=True, tag="fully_rise"):
    slot: int


class ScoreLocation(_Command, frozen=True, tag="score"):
    slot: int


class TakeBackCard(_Command, frozen=True, tag="take_back"):
    card_id: str


class ReplayCard(_Command, frozen=True, tag="replay_card"):
    card_id: str


class ScoutDecision(_Command, frozen=True, tag="scout"):
    do: bool


class ScoutDiscard(_Command, frozen=True, tag="scout_discard"):
    location_id: str


class DiscardCard(_Command, frozen=True, tag="discard_card"):
    card_id: str


class PlaceIchthyander(_Command, frozen=True, tag="place_ichthyander"):
    goal_index: int


Command = (
    ChooseKing | PlayCharacter | FlipManta | ExploitDepth | ClaimGoal | EndTurn | ChooseOption | Acquire
    | RecruitCharacter | RaiseLocations | FullyRiseLocation | ScoreLocation | TakeBackCard | ScoutDecision
    | ScoutDiscard | DiscardCard | PlaceIchthyander | ReplayCard
)
