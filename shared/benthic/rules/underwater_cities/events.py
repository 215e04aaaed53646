"""Events (spec §5.5), tagged by their snake_case name in field ``type``.  Every random outcome is in an
event; visibility per event is in ``views.redact``.  A few bookkeeping events not named by the spec
(frame_opened, part_ended, block_started, turn_started, ...) make the prompt derivable from the state;
RULES.md lists them."""

from __future__ import annotations

import msgspec

from benthic.rules.core import PackRef

from .content import Yield
from .effects import Effect, Res
from .state import Rules


class _Event(msgspec.Struct, frozen=True, tag_field="type", forbid_unknown_fields=True):
    pass


# --- setup ---------------------------------------------------------------------------------------------------

class GameStarted(_Event, frozen=True, tag="game_started"):
    seats: int
    seed: int
    rules: Rules
    government_contracts: bool
    content: PackRef  # the content pack the game is played with


class BoardSideChosen(_Event, frozen=True, tag="board_side_chosen"):
    main_side: str
    board_side: str
    cloning_tile: bool
    tunnels: int
    white_domes: int
    purple_domes: int | None


class PlayOrderSet(_Event, frozen=True, tag="play_order_set"):
    order: tuple[int, ...]
    reason: str  # setup | federation


class FederationInitialized(_Event, frozen=True, tag="federation_initialized"):
    spaces: tuple[int, ...]  # per seat: 0 = below space 4


class ResourcesGained(_Event, frozen=True, tag="resources_gained"):
    seat: int
    gained: Yield
    reason: str


class ResourcesPaid(_Event, frozen=True, tag="resources_paid"):
    seat: int
    paid: Res
    reason: str


class BoardsAssigned(_Event, frozen=True, tag="boards_assigned"):
    boards: tuple[int, ...]  # per seat: board id (basic 1..4, advanced 5..8)
    start_site: str


class MetropolisesDealt(_Event, frozen=True, tag="metropolises_dealt"):
    tiles: tuple[dict[str, str], ...]  # per seat: space -> tile


class DeckShuffled(_Event, frozen=True, tag="deck_shuffled"):
    deck: str  # era1 | era2 | era3 | special
    order: tuple[str, ...]  # top first (visible to nobody)


class DeckReshuffled(_Event, frozen=True, tag="deck_reshuffled"):
    deck: str
    order: tuple[str, ...]


class BoxContents(_Event, frozen=True, tag="box_contents"):
    three_credit_specials: tuple[str, ...]
    contracts: tuple[str, ...]
    metropolis_tiles: tuple[str, ...]


class SpecialsSetup(_Event, frozen=True, tag="specials_setup"):
    row: tuple[str, ...]
    deck_top: str
    deck_count: int


class ContractsRevealed(_Event, frozen=True, tag="contracts_revealed"):
    contract_ids: tuple[str, ...]


class CardsDealt(_Event, frozen=True, tag="cards_dealt"):
    seat: int
    count: int


class CardsDealtDetail(_Event, frozen=True, tag="cards_dealt_detail"):
    seat: int
    card_ids: tuple[str, ...]


class KeepStarted(_Event, frozen=True, tag="keep_started"):
    seats: tuple[int, ...]
    limits: tuple[int, ...]  # per prompted seat, same order


class CardsKept(_Event, frozen=True, tag="cards_kept"):
    seat: int
    kept_count: int


class CardsKeptDetail(_Event, frozen=True, tag="cards_kept_detail"):
    seat: int
    card_ids: tuple[str, ...]


class CardsDiscarded(_Event, frozen=True, tag="cards_discarded"):
    seat: int
    card_ids: tuple[str, ...]
    destination: str  # era_discard | removed | special_bottom | box


class CardsDiscardedEarly(_Event, frozen=True, tag="cards_discarded_early"):
    """§9.1 ``early_discard``: discarded toward the hand limit during another seat's turn (public)."""

    seat: int
    card_ids: tuple[str, ...]
    destination: str  # era_discard | removed | special_bottom | box


# --- rounds and turns ---------------------------------------------------------------------------------------

class RoundStarted(_Event, frozen=True, tag="round_started"):
    round: int


class TurnStarted(_Event, frozen=True, tag="turn_started"):
    seat: int
    round: int
    pass_no: int
    order_index: int
    must_discard: bool


class CloneUsed(_Event, frozen=True, tag="clone_used"):
    seat: int
    slot_id: str


class TilePlaced(_Event, frozen=True, tag="tile_placed"):
    seat: int
    slot_id: str
    clone: bool


class CardPlayed(_Event, frozen=True, tag="card_played"):
    seat: int
    card_id: str
    slot_id: str
    matched: bool


class CardDiscarded(_Event, frozen=True, tag="card_discarded"):
    seat: int
    card_id: str
    destination: str


class OrderChosen(_Event, frozen=True, tag="order_chosen"):
    seat: int
    first: str


class BlockStarted(_Event, frozen=True, tag="block_started"):
    seat: int
    block: str  # card | slot
    pay_special: bool  # the card block of a Special card starts with pay_special


class BlockEnded(_Event, frozen=True, tag="block_ended"):
    seat: int
    block: str


class SpecialPaid(_Event, frozen=True, tag="special_paid"):
    seat: int
    card_id: str
    cost: int


class SpecialDeclined(_Event, frozen=True, tag="special_declined"):
    seat: int
    card_id: str
    destination: str


class CardClaimed(_Event, frozen=True, tag="card_claimed"):
    seat: int
    card_id: str


class CardUnderBoard(_Event, frozen=True, tag="card_under_board"):
    seat: int
    card_id: str


class ActionLimitReached(_Event, frozen=True, tag="action_limit_reached"):
    seat: int
    card_id: str


class ActionCardDiscarded(_Event, frozen=True, tag="action_card_discarded"):
    seat: int
    card_id: str
    was_unused: bool
    destination: str


class ClaimDeclined(_Event, frozen=True, tag="claim_declined"):
    seat: int
    card_id: str
    destination: str


class DiscardedActionAnswered(_Event, frozen=True, tag="discarded_action_answered"):
    seat: int
    card_id: str
    use: bool


class ActionCardUsed(_Event, frozen=True, tag="action_card_used"):
    seat: int
    card_id: str
    via: str  # use_action | limit_discard


class ActionCardRestored(_Event, frozen=True, tag="action_card_restored"):
    seat: int
    card_id: str


class AbilityUsed(_Event, frozen=True, tag="ability_used"):
    seat: int
    card_id: str


class CardTriggered(_Event, frozen=True, tag="card_triggered"):
    seat: int
    card_id: str
    once_per_turn: bool
    slot_resolution: int = 0  # slot_gave: the slot resolution (root frame id) it fired for


class EndOfTurnOffered(_Event, frozen=True, tag="end_of_turn_offered"):
    seat: int


class TurnEnded(_Event, frozen=True, tag="turn_ended"):
    seat: int


class CardsDrawn(_Event, frozen=True, tag="cards_drawn"):
    seat: int
    count: int
    reason: str


class CardsDrawnDetail(_Event, frozen=True, tag="cards_drawn_detail"):
    seat: int
    card_ids: tuple[str, ...]


# --- effect frames ------------------------------------------------------------------------------------------

class FrameOpened(_Event, frozen=True, tag="frame_opened"):
    frame_id: int
    seat: int
    source: str
    parts: tuple[Effect, ...]
    is_all: bool
    card_id: str = ""
    slot_id: str = ""
    root: int = 0


class PartStarted(_Event, frozen=True, tag="part_started"):
    frame_id: int
    part: int


class OptionChosen(_Event, frozen=True, tag="option_chosen"):
    frame_id: int
    option: int


class PartEnded(_Event, frozen=True, tag="part_ended"):
    frame_id: int
    part: int
    skipped: bool = False


class EffectEnded(_Event, frozen=True, tag="effect_ended"):
    frame_id: int
    skipped_parts: tuple[int, ...]


class Built(_Event, frozen=True, tag="built"):
    seat: int
    kind: str
    site: str
    paid: Res


class Upgraded(_Event, frozen=True, tag="upgraded"):
    seat: int
    site: str
    paid: Res


class UpgradeSkipped(_Event, frozen=True, tag="upgrade_skipped"):
    """build_upgrade's upgrade of the piece it built, skipped after the trigger frames its build pushed (§6.5)."""

    seat: int
    site: str
    reason: str  # already_upgraded | cannot_pay


class CityConverted(_Event, frozen=True, tag="city_converted"):
    seat: int
    site: str
    paid: Res


class BuildBonusGained(_Event, frozen=True, tag="build_bonus_gained"):
    seat: int
    site: str
    bonus: str


class MetropolisConnected(_Event, frozen=True, tag="metropolis_connected"):
    seat: int
    space: str
    tile_id: str


class MetropolisGained(_Event, frozen=True, tag="metropolis_gained"):
    seat: int
    tile_id: str


class FederationAdvanced(_Event, frozen=True, tag="federation_advanced"):
    seat: int
    from_: int = msgspec.field(name="from")
    to: int = 0
    steps: int = 0
    entered: tuple[int, ...] = ()
    bonuses: Yield = Yield()
    overflow_points: int = 0


class SpecialTaken(_Event, frozen=True, tag="special_taken"):
    seat: int
    route: str  # row | deck_top | draw3
    card_id: str = ""  # row / deck_top: the (public) card taken
    row_index: int = 0


class SpecialDrawSeen(_Event, frozen=True, tag="special_draw_seen"):
    seat: int
    card_ids: tuple[str, ...]  # the 3 cards of draw3 (owner only)


class SpecialDraw3(_Event, frozen=True, tag="special_draw3"):
    seat: int
    kept_count: int
    bottomed_count: int


class SpecialDraw3Detail(_Event, frozen=True, tag="special_draw3_detail"):
    seat: int
    card_ids: tuple[str, ...]
    kept: str
    bottom: tuple[str, ...]


class SpecialRevealed(_Event, frozen=True, tag="special_revealed"):
    card_id: str


class SlotPerformed(_Event, frozen=True, tag="slot_performed"):
    seat: int
    slot_id: str


class ContractClaimed(_Event, frozen=True, tag="contract_claimed"):
    seat: int
    contract_id: str


# --- round end, production, era end, final scoring -----------------------------------------------------------

class TilesReturned(_Event, frozen=True, tag="tiles_returned"):
    round: int


class FederationReset(_Event, frozen=True, tag="federation_reset"):
    round: int


class EraMarkerAdvanced(_Event, frozen=True, tag="era_marker_advanced"):
    pos: int
    space: str


class SoloRoundSummary(_Event, frozen=True, tag="solo_round_summary"):
    round: int
    advanced: bool


class SoloCardFlipped(_Event, frozen=True, tag="solo_card_flipped"):
    card_id: str
    number: int


class SoloBlockersPlaced(_Event, frozen=True, tag="solo_blockers_placed"):
    slots: tuple[str, ...]


class ProductionStarted(_Event, frozen=True, tag="production_started"):
    era: int
    option_seats: tuple[int, ...]


class ProductionOptionChosen(_Event, frozen=True, tag="production_option_chosen"):
    seat: int
    use_card_ids: tuple[str, ...]


class ProductionOptionsSet(_Event, frozen=True, tag="production_options_set"):
    seat: int
    use_card_ids: tuple[str, ...]


class ProductionResolved(_Event, frozen=True, tag="production_resolved"):
    seat: int
    breakdown: dict[str, Yield]
    totals: Yield


class ActionCardsRestored(_Event, frozen=True, tag="action_cards_restored"):
    era: int


class CitiesFed(_Event, frozen=True, tag="cities_fed"):
    seat: int
    cities: int
    kelp_paid: int
    biomatter_paid: int
    points_lost: int


class EraDeckRemoved(_Event, frozen=True, tag="era_deck_removed"):
    era: int
    deck_count: int
    discard_count: int


class EraStarted(_Event, frozen=True, tag="era_started"):
    era: int
    pos: int


class FinalPurchasesStarted(_Event, frozen=True, tag="final_purchases_started"):
    seats: tuple[int, ...]


class FinalPurchaseChosen(_Event, frozen=True, tag="final_purchase_chosen"):
    seat: int
    card_id: str
    times: int


class FinalPurchasesDone(_Event, frozen=True, tag="final_purchases_done"):
    seat: int


class FinalPurchase(_Event, frozen=True, tag="final_purchase"):
    seat: int
    card_id: str
    times: int
    paid: Res
    points: int


class FinalScored(_Event, frozen=True, tag="final_scored"):
    seat: int
    breakdown: dict[str, int]


class GameEnded(_Event, frozen=True, tag="game_ended"):
    ranking: tuple[int, ...]
    tie_break_order: tuple[int, ...]
    solo_result: str = ""


Event = (
    GameStarted | BoardSideChosen | PlayOrderSet | FederationInitialized | ResourcesGained | ResourcesPaid
    | BoardsAssigned | MetropolisesDealt | DeckShuffled | DeckReshuffled | BoxContents | SpecialsSetup
    | ContractsRevealed | CardsDealt | CardsDealtDetail | KeepStarted | CardsKept | CardsKeptDetail | CardsDiscarded
    | CardsDiscardedEarly
    | RoundStarted | TurnStarted | CloneUsed | TilePlaced | CardPlayed | CardDiscarded | OrderChosen | BlockStarted
    | BlockEnded | SpecialPaid | SpecialDeclined | CardClaimed | CardUnderBoard | ActionLimitReached
    | ActionCardDiscarded | ClaimDeclined | DiscardedActionAnswered | ActionCardUsed | ActionCardRestored
    | AbilityUsed | CardTriggered | EndOfTurnOffered | TurnEnded | CardsDrawn | CardsDrawnDetail | FrameOpened
    | PartStarted | OptionChosen | PartEnded | EffectEnded | Built | Upgraded | UpgradeSkipped | CityConverted
    | BuildBonusGained
    | MetropolisConnected | MetropolisGained | FederationAdvanced | SpecialTaken | SpecialDrawSeen | SpecialDraw3
    | SpecialDraw3Detail | SpecialRevealed | SlotPerformed | ContractClaimed | TilesReturned | FederationReset
    | EraMarkerAdvanced | SoloRoundSummary | SoloCardFlipped | SoloBlockersPlaced | ProductionStarted
    | ProductionOptionChosen | ProductionOptionsSet | ProductionResolved | ActionCardsRestored | CitiesFed
    | EraDeckRemoved | EraStarted | FinalPurchasesStarted | FinalPurchaseChosen | FinalPurchasesDone | FinalPurchase
    | FinalScored | GameEnded
)

# Events only their seat may see (spec §5.5 "owner only"); others get None from redact.
OWNER_ONLY = (CardsDealtDetail, CardsKeptDetail, CardsDrawnDetail, SpecialDrawSeen, SpecialDraw3Detail,
              ProductionOptionChosen, FinalPurchaseChosen)
# Events nobody sees (stored for replay only).
HIDDEN = (DeckShuffled, DeckReshuffled, BoxContents)
