"""Command validation (spec §5.4): the common checks, then each command's checks in the spec's order.

Validators raise ``RuleViolation`` (the spec's code, a message naming the rule) and never emit events.
``decide`` runs them before applying a command and ``legal.py`` filters its candidates through them, so
enumeration and validation cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from benthic.rules.aquatica.commands import (
    Acquire,
    ChooseKing,
    ChooseOption,
    ClaimGoal,
    DiscardCard,
    EndTurn,
    ExploitDepth,
    FlipManta,
    FullyRiseLocation,
    PlaceIchthyander,
    PlayCharacter,
    RaiseLocations,
    RecruitCharacter,
    ReplayCard,
    ScoreLocation,
    ScoutDecision,
    ScoutDiscard,
    TakeBackCard,
)
from benthic.rules.aquatica.effects import (
    ACQUISITION_MODES,
    Choice,
    Empty,
    Gain,
    OpponentsRaise,
    Raise,
    Recruit,
)
from benthic.rules.aquatica.prompts import NO_CLAIM_PROMPTS, OPPONENT_PROMPTS, prompt_kind
from benthic.rules.aquatica.queries import (
    CAT,
    acquisition_cost,
    avail,
    chain_exempt,
    gain_matches,
    goal_met,
    head,
    manta_spent_for_payment,
    payment_reachable,
    performable_options,
    raise_eligible,
    remaining_depths,
    row_of,
    skip_reason,
    source_location,
    top_depth,
)
from benthic.rules.aquatica.state import BOARD_SLOTS, ICHTHYANDERS, ROW_SLOTS, Manta, QueueItem, Source, State
from benthic.rules.core import RuleViolation


def fail(code: str, rule: str) -> NoReturn:
    raise RuleViolation(code, rule)


# --- common checks (§5.4) and dispatch -------------------------------------------------------------
ALLOWED: dict[str, tuple[type, ...]] = {
    "turn": (PlayCharacter, FlipManta, ExploitDepth, EndTurn),
    "pay": (FlipManta, ExploitDepth),
    "choose_option": (ChooseOption,),
    "choose_acquisition": (Acquire,),
    "choose_recruit": (RecruitCharacter,),
    "choose_raise": (RaiseLocations,),
    "choose_fully_rise": (FullyRiseLocation,),
    "choose_score": (ScoreLocation,),
    "choose_take_back": (TakeBackCard,),
    "choose_replay": (ReplayCard,),
    "scout_decide": (ScoutDecision,),
    "scout_discard": (ScoutDiscard,),
    "opponent_discard": (DiscardCard,),
    "opponent_raise": (RaiseLocations,),
    "place_ichthyander": (PlaceIchthyander,),
    "choose_king": (ChooseKing,),
}


def check_common(state: State, seat: int, command: Any) -> str:
    """§5.4 common checks 1, 3, 4, 5 (2 is decoding); returns the prompt kind."""
    found = prompt_kind(state)
    if found is None:
        fail("game_over", "§5.4 common check 1: the game has ended")
    kind, seats = found
    if seat not in seats:
        if kind in OPPONENT_PROMPTS and seat in state.answered:
            fail("already_answered", f"§5.4 common check 4: seat {seat} already answered this {kind} prompt")
        fail("not_your_turn", f"§5.4 common check 3: the {kind} prompt waits for seats {list(seats)}, not {seat}")
    if isinstance(command, ClaimGoal):
        if kind in NO_CLAIM_PROMPTS:
            fail("wrong_prompt", f"§5.4 claim_goal check 1 / R19: no claim at a {kind} prompt")
    elif not isinstance(command, ALLOWED.get(kind, ())):
        name = type(command).__struct_config__.tag
        fail("wrong_prompt", f"§5.4 common check 5: `{name}` is not an answer to the {kind} prompt")
    return kind



def validate(state: State, seat: int, command: Any) -> str:
    """Raises RuleViolation unless `command` is legal for `seat` now; returns the prompt kind."""
    kind = check_common(state, seat, command)
    VALIDATORS[type(command)](state, seat, command, kind)
    return kind


def is_legal(state: State, seat: int, command: Any, kind: str) -> bool:
    """The command checks alone, for a seat the `kind` prompt waits for (enumeration)."""
    try:
        VALIDATORS[type(command)](state, seat, command, kind)
    except RuleViolation:
        return False
    return True


# --- the checks of each command (§5.4, in order) --------------------------------------------------
def validate_choose_king(s: State, seat: int, c: ChooseKing, kind: str) -> None:
    if c.king_id not in s.king_offer:
        fail("king_not_offered", f"§5.4 choose_king: {c.king_id} is not among the Kings offered")


def validate_play_character(s: State, seat: int, c: PlayCharacter, kind: str) -> None:
    if s.stage != "before_main":
        fail("main_action_already_taken", "§5.4 play_character check 1: one Main action per turn")
    if c.card_id not in s.players[seat].hand:
        fail("card_not_in_hand", f"§5.4 play_character check 2: {c.card_id} is not in your hand")


def find_manta(s: State, manta_id: str) -> tuple[int, Manta | None] | None:
    """(owner, Manta in the reserve) or (owner, None) for a Manta on a goal track; None if unknown."""
    for p in s.players:
        for m in p.mantas:
            if m.id == manta_id:
                return p.seat, m
    for track in s.tracks:
        for spot in track:
            if spot.manta_id == manta_id:
                return spot.seat, None
    if manta_id in s.ichthyanders:
        return ICHTHYANDERS, None
    return None


def validate_flip_manta(s: State, seat: int, c: FlipManta, kind: str) -> None:
    found = find_manta(s, c.manta_id)
    if found is None:
        fail("manta_not_found", f"§5.4 flip_manta check 1: no Manta {c.manta_id} in play")
    owner, manta = found
    if owner != seat:
        fail("not_your_manta", f"§5.4 flip_manta check 2: {c.manta_id} is not yours")
    if manta is None:
        fail("manta_on_goal_track", f"§5.4 flip_manta check 3: {c.manta_id} is on a goal track")
    if not manta.ready:
        fail("manta_tired", f"§5.4 flip_manta check 4: {c.manta_id} is tired")
    face = CAT.face(manta.kind)
    if kind == "turn":
        if isinstance(face, Gain):
            fail("resource_manta_outside_payment", "§5.4 flip_manta check 5 (R9): resource Mantas pay only")
        if s.rules.manta_once_per_turn == "all" and (
            c.manta_id in s.effect_mantas_used or c.manta_id in s.resource_mantas_used
        ):
            fail("manta_already_used_this_turn", "§5.4 flip_manta check 6 (§6.16, flag all): once per turn")
        if skip_reason(s, QueueItem(face, Source("manta", c.manta_id), seat)) is not None:
            fail("output_wasted", f"§5.4 flip_manta check 7 (§6.21): {c.manta_id}'s effect cannot be performed")
        return
    payment = s.payment
    assert payment is not None
    if not isinstance(face, Gain):
        fail("not_a_payment_source", f"§5.4 flip_manta pay check 5: {c.manta_id} is an effect Manta")
    if not gain_matches(face, payment.resource, payment.target_type):
        fail("manta_kind_mismatch", f"§5.4 flip_manta pay check 6: this payment is in {payment.resource}")
    if manta_spent_for_payment(s, c.manta_id):
        fail("manta_already_used_this_turn", "§5.4 flip_manta pay check 7 (§6.16): one resource flip per turn")


def _board_location(s: State, seat: int, slot: int, rule: str) -> Any:
    if not 0 <= slot < BOARD_SLOTS:
        fail("invalid_slot", f"{rule}: slot {slot} is not 0..{BOARD_SLOTS - 1}")
    bl = s.players[seat].board[slot]
    if bl is None:
        fail("slot_empty", f"{rule}: board slot {slot} is empty")
    return bl


def validate_exploit_depth(s: State, seat: int, c: ExploitDepth, kind: str) -> None:
    bl = _board_location(s, seat, c.slot, "§5.4 exploit_depth checks 1-2")
    depth = top_depth(bl)
    if depth is None:
        fail("location_fully_risen", f"§5.4 exploit_depth check 3: {bl.location_id} has no Depth left")
    if isinstance(depth, Empty):
        fail("depth_empty", f"§5.4 exploit_depth check 4 (§6.15): the top Depth of {bl.location_id} is empty")
    if kind == "turn":
        if isinstance(depth, Gain):
            fail("resource_depth_outside_payment", "§5.4 exploit_depth check 5 (§6.15): resource Depths pay only")
        if skip_reason(s, QueueItem(depth, Source("depth", bl.location_id, c.slot), seat)) is not None:
            fail("output_wasted", f"§5.4 exploit_depth check 6 (§6.21): the Depth of {bl.location_id} would be wasted")
        return
    payment = s.payment
    assert payment is not None
    if s.stage != "main":
        fail("resource_depth_outside_main_action", "§5.4 exploit_depth pay check 5 (§6.15): Main action only")
    if not isinstance(depth, Gain):
        fail("not_a_payment_source", f"§5.4 exploit_depth pay check 6: the top Depth of {bl.location_id} is an effect")
    if not gain_matches(depth, payment.resource, payment.target_type):
        fail("depth_kind_mismatch", "§5.4 exploit_depth pay check 7 (R30): wrong resource or Location type")
    if bl.location_id in s.resource_depth_used and not chain_exempt(s, bl, payment.depths_used):
        fail("location_resource_depth_used", f"§5.4 exploit_depth pay check 8 (§6.15): {bl.location_id} "
             "already gave a resource Depth in this Main action")


def validate_claim_goal(s: State, seat: int, c: ClaimGoal, kind: str) -> None:
    if not 0 <= c.goal_index < len(s.goals):
        fail("invalid_goal_index", f"§5.4 claim_goal check 2: goal index {c.goal_index} is not 0..3")
    track = s.tracks[c.goal_index]
    if any(spot.seat == seat for spot in track):
        fail("goal_already_claimed", f"§5.4 claim_goal check 3 (§6.17): goal {c.goal_index} is claimed once")
    if c.manta_id not in CAT.trained_ids[seat]:
        fail("not_trained_manta", f"§5.4 claim_goal check 4 (§6.17): {c.manta_id} is not one of your Trained Mantas")
    if all(m.id != c.manta_id for m in s.players[seat].mantas):
        fail("manta_not_in_reserve", f"§5.4 claim_goal check 5: {c.manta_id} is not in your reserve")
    if not goal_met(s, seat, s.goals[c.goal_index]):
        fail("goal_condition_not_met", f"§5.4 claim_goal check 6: {s.goals[c.goal_index]} is not met")
    if len(track) >= len(CAT.board.goal_track_points):
        fail("goal_track_full", f"§5.4 claim_goal check 7: goal {c.goal_index} has no free spot")
    if s.payment is not None and not payment_reachable(s, seat, without_manta=c.manta_id):
        fail("cannot_afford", f"§5.6 / R11 (engine ruling): placing {c.manta_id} now would leave the open "
             "payment unpayable; pay first, then claim")


def validate_end_turn(s: State, seat: int, c: EndTurn, kind: str) -> None:
    if s.stage != "after_main":
        fail("main_action_not_taken", "§5.4 end_turn: play a Character first (§5.2)")


def validate_choose_option(s: State, seat: int, c: ChooseOption, kind: str) -> None:
    item = head(s)
    assert isinstance(item.effect, Choice)
    if not 0 <= c.index < len(item.effect.options):
        fail("invalid_option", f"§5.4 choose_option: option {c.index} does not exist")
    if c.index not in performable_options(s, item):
        fail("option_not_performable", f"§5.4 choose_option (R27): option {c.index} cannot be performed")


def validate_acquire(s: State, seat: int, c: Acquire, kind: str) -> None:
    modes = ACQUISITION_MODES[type(head(s).effect)]
    if c.mode not in modes:
        fail("mode_not_allowed", f"§5.4 acquire check 1: this effect allows {list(modes)}")
    from_row = row_of(s, c.location_id)
    if from_row is None:
        fail("location_not_available", f"§5.4 acquire check 2: {c.location_id} is in neither Location row")
    if not 0 <= c.slot < BOARD_SLOTS:
        fail("invalid_slot", f"§5.4 acquire check 3: slot {c.slot} is not 0..{BOARD_SLOTS - 1}")
    if s.players[seat].board[c.slot] is not None:
        fail("slot_occupied", f"§5.4 acquire check 4: board slot {c.slot} is occupied")
    location = CAT.locations[c.location_id]
    cost = acquisition_cost(location, c.mode, from_row)
    resource, target = ("coins", None) if c.mode == "buy" else ("power", location.type)
    if cost > avail(s, seat, resource, target):
        fail("cannot_afford",
             f"§5.4 acquire check 5 (§5.6): {c.location_id} costs {cost} {resource}, more than available")


def validate_recruit(s: State, seat: int, c: RecruitCharacter, kind: str) -> None:
    if not 0 <= c.row_slot < ROW_SLOTS:
        fail("invalid_row_slot", f"§5.4 recruit check 1: row slot {c.row_slot} is not 0..{ROW_SLOTS - 1}")
    if s.character_row[c.row_slot] is None:
        fail("row_slot_empty", f"§5.4 recruit check 2: row slot {c.row_slot} has no card")
    effect = head(s).effect
    assert isinstance(effect, Recruit)
    if not effect.free and CAT.row_cost(c.row_slot) > avail(s, seat, "coins", None):
        fail("cannot_afford", f"§5.4 recruit check 3: slot {c.row_slot} costs {CAT.row_cost(c.row_slot)} coins")


def raise_spec(s: State, seat: int, kind: str) -> tuple[int, bool, str | None]:
    """(amount, split, source Location) of the raise this prompt asks for."""
    item = head(s)
    effect = item.effect
    if kind == "opponent_raise":
        assert isinstance(effect, OpponentsRaise)
        return effect.amount, False, None
    assert isinstance(effect, Raise)
    return effect.amount, effect.split, source_location(item)


def validate_raise(s: State, seat: int, c: RaiseLocations, kind: str) -> None:
    amount, split, source = raise_spec(s, seat, kind)
    slots = [slot for slot, _ in c.allocation]
    if (not c.allocation or len(set(slots)) != len(slots) or any(steps < 1 for _, steps in c.allocation)
            or any(not 0 <= slot < BOARD_SLOTS for slot in slots)):
        fail("invalid_allocation", "§5.4 raise check 1: distinct board slots 0..4, each with steps >= 1")
    board = s.players[seat].board
    if any(board[slot] is None for slot in slots):
        fail("slot_empty", "§5.4 raise check 2: a raised slot is empty")
    if any(remaining_depths(board[slot]) == 0 for slot in slots):  # type: ignore[arg-type]
        fail("location_fully_risen", "§5.4 raise check 3: a raised Location is fully risen")
    if any(board[slot].location_id == source for slot in slots):  # type: ignore[union-attr]
        fail("cannot_target_source", "§5.4 raise check 4 (§6.6): a raise never raises its own Location")
    total = 0
    for slot, steps in c.allocation:
        left = remaining_depths(board[slot])  # type: ignore[arg-type]
        if steps > left:
            fail("invalid_allocation", f"§5.4 raise check 5: slot {slot} has only {left} Depths left")
        if not split and steps != min(amount, left):
            fail("invalid_allocation",
                 f"§5.4 raise check 5 (R12): a raise {amount} moves slot {slot} by {min(amount, left)}")
        total += steps
    if not split and len(c.allocation) > 1:
        fail("invalid_allocation", "§5.4 raise check 5: this raise cannot be split")
    if total > amount:
        fail("invalid_allocation", f"§5.4 raise check 5: {total} steps exceed the raise {amount}")
    if split:
        maximum = min(amount, sum(left for _, left in raise_eligible(s.players[seat], source)))
        if total < maximum:
            fail("allocation_not_maximal", f"§5.4 raise check 6 (R12): use all {maximum} steps")


def _fully_rise_target(s: State, seat: int, slot: int, rule: str) -> None:
    bl = _board_location(s, seat, slot, rule)
    if remaining_depths(bl) == 0:
        fail("location_fully_risen", f"{rule}: {bl.location_id} is already fully risen")
    if bl.location_id == source_location(head(s)):
        fail("cannot_target_source", f"{rule} (§6.6): an effect never targets its own Location")


def validate_fully_rise(s: State, seat: int, c: FullyRiseLocation, kind: str) -> None:
    _fully_rise_target(s, seat, c.slot, "§5.4 fully_rise")


def validate_score(s: State, seat: int, c: ScoreLocation, kind: str) -> None:
    bl = _board_location(s, seat, c.slot, "§5.4 score")
    if remaining_depths(bl) > 0:
        fail("not_fully_risen", f"§5.4 score (§6.9): {bl.location_id} is not fully risen")
    if bl.location_id == source_location(head(s)):
        fail("cannot_target_source", "§5.4 score (§6.9): a score Depth never scores its own Location")


def validate_take_back(s: State, seat: int, c: TakeBackCard, kind: str) -> None:
    if c.card_id not in s.players[seat].discard:
        fail("card_not_in_discard", f"§5.4 take_back: {c.card_id} is not in your discard pile")


def validate_replay(s: State, seat: int, c: ReplayCard, kind: str) -> None:
    if c.card_id not in s.players[seat].discard:
        fail("card_not_in_discard", f"§11 Q2 replay_card: {c.card_id} is not in your discard pile")


def validate_scout(s: State, seat: int, c: ScoutDecision, kind: str) -> None:
    return None  # §5.4 scout: neither answer is ever an error


def validate_scout_discard(s: State, seat: int, c: ScoutDiscard, kind: str) -> None:
    if c.location_id not in s.bottom_row:
        fail("location_not_in_bottom_row", f"§5.4 scout_discard: {c.location_id} is not in the bottom row")


def validate_discard_card(s: State, seat: int, c: DiscardCard, kind: str) -> None:
    if c.card_id not in s.players[seat].hand:
        fail("card_not_in_hand", f"§5.4 discard_card: {c.card_id} is not in your hand")
    if s.rules.matrona_never_discarded and c.card_id in CAT.matrona_ids:
        fail("cannot_discard_matrona", "§5.4 discard_card (§6.13, flag matrona_never_discarded)")


def validate_place_ichthyander(s: State, seat: int, c: PlaceIchthyander, kind: str) -> None:
    if not 0 <= c.goal_index < len(s.goals):
        fail("invalid_goal_index", f"§5.4 place_ichthyander: goal index {c.goal_index} is not 0..3")
    track = s.tracks[c.goal_index]
    if any(spot.seat == ICHTHYANDERS for spot in track):
        fail("ichthyander_already_on_track", f"§5.4 place_ichthyander (§6.19): goal {c.goal_index} has one")
    if len(track) >= len(CAT.board.goal_track_points):
        fail("goal_track_full", f"§5.4 place_ichthyander: goal {c.goal_index} has no free spot")


VALIDATORS: dict[type, Callable[..., None]] = {
    ChooseKing: validate_choose_king,
    PlayCharacter: validate_play_character,
    FlipManta: validate_flip_manta,
    ExploitDepth: validate_exploit_depth,
    ClaimGoal: validate_claim_goal,
    EndTurn: validate_end_turn,
    ChooseOption: validate_choose_option,
    Acquire: validate_acquire,
    RecruitCharacter: validate_recruit,
    RaiseLocations: validate_raise,
    FullyRiseLocation: validate_fully_rise,
    ScoreLocation: validate_score,
    TakeBackCard: validate_take_back,
    ReplayCard: validate_replay,
    ScoutDecision: validate_scout,
    ScoutDiscard: validate_scout_discard,
    DiscardCard: validate_discard_card,
    PlaceIchthyander: validate_place_ichthyander,
}
