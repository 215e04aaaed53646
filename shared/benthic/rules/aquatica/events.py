"""The events of spec §5.8, in snake_case, tagged by ``type``.

Four events are additions to the spec's catalogue, each needed because the catalogue has no event for a state
change the engine must record (see RULES.md): ``effect_resolved`` (an effect finished; the twin of
``effect_skipped``), ``recruit_started`` (a paid recruit opens its payment; the twin of
``acquisition_started``), ``scout_started`` (a Scout begins; the twin of ``scout_declined``) and
``ichthyander_triggered`` (a solo placement is due).

The envelope fields of §5.8 (`seq`, `visibility`) are the platform's: `seq` is the stream version and
visibility is what ``redact`` applies.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from benthic.rules.aquatica.effects import Effect
from benthic.rules.aquatica.options import Rules
from benthic.rules.aquatica.state import Source
from benthic.rules.core import PackRef

OptionValue = str | int | bool | None | list[dict[str, str]]  # list: goal_tokens (§11 Q8)


class _Event(msgspec.Struct, frozen=True, tag_field="type"):
    pass


# --- setup (§4) ---------------------------------------------------------------------------------
class GameCreated(_Event, frozen=True, tag="game_created"):
    player_count: int
    config: dict[str, OptionValue]
    flags: Rules
    seed: int
    content: PackRef  # the content pack the game is played with


class SeatsAssigned(_Event, frozen=True, tag="seats_assigned"):
    order: tuple[int, ...]  # the seats in turn order
    first_seat_source: Literal["config", "random"]


class DeckShuffled(_Event, frozen=True, tag="deck_shuffled"):
    deck: Literal["ocean", "locations", "goal_tokens", "kings"]
    order: tuple[str, ...]
    sides: tuple[Literal["front", "back"], ...] | None = None


class OceanSetsRemoved(_Event, frozen=True, tag="ocean_sets_removed"):
    marks: tuple[str, ...]
    card_ids: tuple[str, ...]


class CharacterRowFilled(_Event, frozen=True, tag="character_row_filled"):
    slot: int
    card_id: str


class LocationsDealt(_Event, frozen=True, tag="locations_dealt"):
    row: Literal["bottom"]
    location_ids: tuple[str, ...]


class GoalsSet(_Event, frozen=True, tag="goals_set"):
    goals: tuple[str, ...]
    tokens: tuple[str, ...]  # empty with the printed goals


class PlayerSetUp(_Event, frozen=True, tag="player_set_up"):
    seat: int
    symbol: str


class KingAssigned(_Event, frozen=True, tag="king_assigned"):
    seat: int
    king_id: str


class KingDraftOffered(_Event, frozen=True, tag="king_draft_offered"):
    seat: int
    king_ids: tuple[str, ...]


class KingChosen(_Event, frozen=True, tag="king_chosen"):
    seat: int
    king_id: str
    auto: bool = False


class KingExchanged(_Event, frozen=True, tag="king_exchanged"):
    seat: int
    king_id: str
    manta_id: str | None  # None when the reserve had none of the kind (R15)


class IchthyandersSetUp(_Event, frozen=True, tag="ichthyanders_set_up"):
    manta_ids: tuple[str, ...]


class GameStarted(_Event, frozen=True, tag="game_started"):
    pass


# --- turns (§5.2) -------------------------------------------------------------------------------
class TurnStarted(_Event, frozen=True, tag="turn_started"):
    seat: int
    turn_number: int


class TurnEnded(_Event, frozen=True, tag="turn_ended"):
    seat: int
    turn_number: int


class CharacterPlayed(_Event, frozen=True, tag="character_played"):
    seat: int
    card_id: str


class MainActionCompleted(_Event, frozen=True, tag="main_action_completed"):
    seat: int


# --- effects (§5.5, §6) -------------------------------------------------------------------------
class ResourceGained(_Event, frozen=True, tag="resource_gained"):
    seat: int
    resource: Literal["coins", "power"]
    amount: int
    source: Source
    only_for_type: str | None = None


class EffectSkipped(_Event, frozen=True, tag="effect_skipped"):
    seat: int
    effect: Effect
    source: Source
    reason: str


class EffectResolved(_Event, frozen=True, tag="effect_resolved"):
    seat: int
    effect: Effect
    source: Source


class OptionChosen(_Event, frozen=True, tag="option_chosen"):
    seat: int
    index: int
    auto: bool = False


class AcquisitionStarted(_Event, frozen=True, tag="acquisition_started"):
    seat: int
    location_id: str
    slot: int
    mode: Literal["buy", "conquer"]
    cost: int
    from_row: Literal["top", "bottom"]
    auto: bool = False


class RecruitStarted(_Event, frozen=True, tag="recruit_started"):
    seat: int
    card_id: str
    row_slot: int
    cost: int
    auto: bool = False


class MantaFlipped(_Event, frozen=True, tag="manta_flipped"):
    seat: int
    manta_id: str
    purpose: Literal["effect", "payment"]


class DepthExploited(_Event, frozen=True, tag="depth_exploited"):
    seat: int
    slot: int
    location_id: str
    depth_index: int
    effect: Effect


class PaymentCompleted(_Event, frozen=True, tag="payment_completed"):
    seat: int
    resource: Literal["coins", "power"]
    cost: int
    from_pool: int
    from_sources: int
    overflow: int


class LocationAcquired(_Event, frozen=True, tag="location_acquired"):
    seat: int
    location_id: str
    slot: int
    mode: Literal["buy", "conquer"]
    from_row: Literal["top", "bottom"]


class CharacterRecruited(_Event, frozen=True, tag="character_recruited"):
    seat: int
    card_id: str
    row_slot: int
    cost: int
    paid: bool
    free: bool
    auto: bool = False


class CharacterRowShifted(_Event, frozen=True, tag="character_row_shifted"):
    from_slot: int


class RowCharacterRemoved(_Event, frozen=True, tag="row_character_removed"):
    card_id: str
    slot: int


class LocationRaised(_Event, frozen=True, tag="location_raised"):
    seat: int
    slot: int
    location_id: str
    steps: int
    covered_after: int
    cause: Literal["raise", "fully_rise", "opponent_raise"]
    auto: bool = False


class LocationFullyRisen(_Event, frozen=True, tag="location_fully_risen"):
    seat: int
    slot: int
    location_id: str


class WildMantaGained(_Event, frozen=True, tag="wild_manta_gained"):
    seat: int
    manta_id: str
    kind: str


class WildMantaUnavailable(_Event, frozen=True, tag="wild_manta_unavailable"):
    seat: int
    kind: str
    manta_id: str | None = None  # always None: nothing was gained (R15)


class LocationScored(_Event, frozen=True, tag="location_scored"):
    seat: int
    slot: int
    location_id: str
    prosperity: int
    auto: bool = False


class ScoutStarted(_Event, frozen=True, tag="scout_started"):
    seat: int


class ScoutPerformed(_Event, frozen=True, tag="scout_performed"):
    seat: int
    discarded_top: tuple[str, ...]
    discarded_bottom: tuple[str, ...]
    moved_up: tuple[str, ...]
    dealt: tuple[str, ...]


class ScoutDeclined(_Event, frozen=True, tag="scout_declined"):
    seat: int


class LocationDiscarded(_Event, frozen=True, tag="location_discarded"):
    location_id: str
    reason: Literal["scout_top_row", "scout_excess"]


class MantasReadied(_Event, frozen=True, tag="mantas_readied"):
    seat: int
    manta_ids: tuple[str, ...]


class CardReplayed(_Event, frozen=True, tag="card_replayed"):
    """§11 Q2 (`healer_replays`): the card leaves the discard pile; its effects resolve now."""

    seat: int
    card_id: str
    new_discard_top: str | None
    auto: bool = False


class ReplayedCardReturned(_Event, frozen=True, tag="replayed_card_returned"):
    """§11 Q2: a replayed card's effects are done; it is the top card of the discard pile again."""

    seat: int
    card_id: str


class CardsTakenBack(_Event, frozen=True, tag="cards_taken_back"):
    seat: int
    card_ids: tuple[str, ...]
    new_discard_top: str | None
    auto: bool = False


class DiscardReturnedToHand(_Event, frozen=True, tag="discard_returned_to_hand"):
    seat: int
    card_ids: tuple[str, ...]
    cause: Literal["take_back_all", "recover"]


class CardDiscarded(_Event, frozen=True, tag="card_discarded"):
    seat: int
    card_id: str
    cause: Literal["opponent_effect"]
    auto: bool = False


class CardToDiscard(_Event, frozen=True, tag="card_to_discard"):
    seat: int
    card_id: str


class CardReturnedToHand(_Event, frozen=True, tag="card_returned_to_hand"):
    seat: int
    card_id: str


class CardRemovedFromGame(_Event, frozen=True, tag="card_removed_from_game"):
    seat: int
    card_id: str


# --- goals, solo, end (§6.17, §6.19, §8) --------------------------------------------------------
class GoalClaimed(_Event, frozen=True, tag="goal_claimed"):
    seat: int
    goal_index: int
    manta_id: str
    spot: int
    points: int


class IchthyanderTriggered(_Event, frozen=True, tag="ichthyander_triggered"):
    seat: int
    cause: Literal["matrona", "scout"]


class IchthyanderPlaced(_Event, frozen=True, tag="ichthyander_placed"):
    goal_index: int
    spot: int
    manta_id: str
    auto: bool = False


class EndTriggered(_Event, frozen=True, tag="end_triggered"):
    reason: Literal["all_goals", "location_deck_empty", "ocean_deck_empty", "ichthyanders_complete", "round_cap"]
    seat: int
    final_turns: int


class SeatBreakdown(msgspec.Struct, frozen=True):
    seat: int
    hand_pp: int
    goal_pp: int
    location_pp: int
    total: int
    mantas_in_reserve: int
    king_number: int
    king_id: str | None
    hand: tuple[str, ...]
    discard: tuple[str, ...]
    scoring_pile: tuple[str, ...]


class GameEnded(_Event, frozen=True, tag="game_ended"):
    breakdown: tuple[SeatBreakdown, ...]
    ranking: tuple[int, ...]  # seats, best first
    tie_breaks_used: tuple[str, ...]
    solo_rank: str | None
    end_reason: str


Event = (
    GameCreated | SeatsAssigned | DeckShuffled | OceanSetsRemoved | CharacterRowFilled | LocationsDealt | GoalsSet
    | PlayerSetUp | KingAssigned | KingDraftOffered | KingChosen | KingExchanged | IchthyandersSetUp | GameStarted
    | TurnStarted | TurnEnded | CharacterPlayed | MainActionCompleted | ResourceGained | EffectSkipped
    | EffectResolved | OptionChosen | AcquisitionStarted | RecruitStarted | MantaFlipped | DepthExploited
    | PaymentCompleted | LocationAcquired | CharacterRecruited | CharacterRowShifted | RowCharacterRemoved
    | LocationRaised | LocationFullyRisen | WildMantaGained | WildMantaUnavailable | LocationScored | ScoutStarted
    | ScoutPerformed | ScoutDeclined | LocationDiscarded | MantasReadied | CardsTakenBack | DiscardReturnedToHand
    | CardDiscarded | CardToDiscard | CardReturnedToHand | CardRemovedFromGame | GoalClaimed | IchthyanderTriggered
    | IchthyanderPlaced | EndTriggered | GameEnded | CardReplayed | ReplayedCardReturned
)
