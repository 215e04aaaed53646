"""``decide``: validate a command (§5.4, checks in the spec's order) and produce its events.

A command's events are built in a transaction that folds each event as it is emitted, then ``settle``
resolves the effect queue (§5.5) as far as it can without a decision: automatic effects, skipped effects,
prompts with exactly one answer (R18, ``auto: true``), the end of the Main action and its triggers.
It stops at the next decision, which ``prompts.prompt_kind`` derives from the resulting state.

Validators raise ``RuleViolation`` and never emit; the same validators filter the candidates of
``legal.py``, so enumeration and validation cannot disagree.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from benthic.rules.aquatica import events as ev
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
    ScoreLocation,
    ScoutDecision,
    ScoutDiscard,
    TakeBackCard,
)
from benthic.rules.aquatica.effects import (
    ACQUISITION_MODES,
    Choice,
    Empty,
    FullyRise,
    Gain,
    OpponentsDiscard,
    OpponentsRaise,
    Raise,
    ReadyAllMantas,
    Recruit,
    Score,
    Scout,
    TakeBack,
    TakeBackAll,
)
from benthic.rules.aquatica.evolve import evolve
from benthic.rules.aquatica.prompts import NO_CLAIM_PROMPTS, OPPONENT_PROMPTS, prompt_kind
from benthic.rules.aquatica.queries import (
    CAT,
    LOCATIONS,
    acquisition_cost,
    affordable_acquisitions,
    avail,
    chain_exempt,
    discard_eligible,
    gain_matches,
    goal_met,
    goals_claimed_by,
    manta_spent_for_payment,
    payment_due,
    payment_reachable,
    pending_opponents,
    performable_options,
    pool_for,
    raise_allocations,
    raise_eligible,
    remaining_depths,
    row_of,
    score_eligible,
    skip_reason,
    source_location,
    top_depth,
)
from benthic.rules.aquatica.scoring import game_ended_event
from benthic.rules.aquatica.state import BOARD_SLOTS, ROW_SLOTS, Manta, QueueItem, Source, State
from benthic.rules.core import RuleViolation

ICHTHYANDERS = -1


def fail(code: str, rule: str) -> NoReturn:
    raise RuleViolation(code, rule)


class Tx:
    """The events of one command, folded as they are emitted."""

    __slots__ = ("events", "state")

    def __init__(self, state: State) -> None:
        self.state = state
        self.events: list[Any] = []

    def emit(self, event: Any) -> None:
        self.events.append(event)
        self.state = evolve(self.state, event)


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


def decide(state: State, seat: int, command: Any) -> list[Any]:
    kind = check_common(state, seat, command)
    validate, apply = COMMANDS[type(command)]
    validate(state, seat, command, kind)
    tx = Tx(state)
    apply(tx, seat, command, kind)
    settle(tx)
    return tx.events


def is_legal(state: State, seat: int, command: Any, kind: str) -> bool:
    try:
        COMMANDS[type(command)][0](state, seat, command, kind)
    except RuleViolation:
        return False
    return True


# --- validators (§5.4, checks in order) -----------------------------------------------------------
def _head(state: State) -> QueueItem:
    return state.queue[0]


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
        fail("depth_kind_mismatch", f"§5.4 exploit_depth pay check 7 (R30): wrong resource or Location type")
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
    head = _head(s)
    assert isinstance(head.effect, Choice)
    if not 0 <= c.index < len(head.effect.options):
        fail("invalid_option", f"§5.4 choose_option: option {c.index} does not exist")
    if c.index not in performable_options(s, head):
        fail("option_not_performable", f"§5.4 choose_option (R27): option {c.index} cannot be performed")


def validate_acquire(s: State, seat: int, c: Acquire, kind: str) -> None:
    modes = ACQUISITION_MODES[type(_head(s).effect)]
    if c.mode not in modes:
        fail("mode_not_allowed", f"§5.4 acquire check 1: this effect allows {list(modes)}")
    from_row = row_of(s, c.location_id)
    if from_row is None:
        fail("location_not_available", f"§5.4 acquire check 2: {c.location_id} is in neither Location row")
    if not 0 <= c.slot < BOARD_SLOTS:
        fail("invalid_slot", f"§5.4 acquire check 3: slot {c.slot} is not 0..{BOARD_SLOTS - 1}")
    if s.players[seat].board[c.slot] is not None:
        fail("slot_occupied", f"§5.4 acquire check 4: board slot {c.slot} is occupied")
    location = LOCATIONS[c.location_id]
    cost = acquisition_cost(location, c.mode, from_row)
    resource, target = ("coins", None) if c.mode == "buy" else ("power", location.type)
    if cost > avail(s, seat, resource, target):
        fail("cannot_afford", f"§5.4 acquire check 5 (§5.6): {c.location_id} costs {cost} {resource}, more than available")


def validate_recruit(s: State, seat: int, c: RecruitCharacter, kind: str) -> None:
    if not 0 <= c.row_slot < ROW_SLOTS:
        fail("invalid_row_slot", f"§5.4 recruit check 1: row slot {c.row_slot} is not 0..{ROW_SLOTS - 1}")
    if s.character_row[c.row_slot] is None:
        fail("row_slot_empty", f"§5.4 recruit check 2: row slot {c.row_slot} has no card")
    effect = _head(s).effect
    assert isinstance(effect, Recruit)
    if not effect.free and CAT.row_cost(c.row_slot) > avail(s, seat, "coins", None):
        fail("cannot_afford", f"§5.4 recruit check 3: slot {c.row_slot} costs {CAT.row_cost(c.row_slot)} coins")


def raise_spec(s: State, seat: int, kind: str) -> tuple[int, bool, str | None]:
    """(amount, split, source Location) of the raise this prompt asks for."""
    head = _head(s)
    effect = head.effect
    if kind == "opponent_raise":
        assert isinstance(effect, OpponentsRaise)
        return effect.amount, False, None
    assert isinstance(effect, Raise)
    return effect.amount, effect.split, source_location(head)


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
            fail("invalid_allocation", f"§5.4 raise check 5 (R12): a raise {amount} moves slot {slot} by {min(amount, left)}")
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
    if bl.location_id == source_location(_head(s)):
        fail("cannot_target_source", f"{rule} (§6.6): an effect never targets its own Location")


def validate_fully_rise(s: State, seat: int, c: FullyRiseLocation, kind: str) -> None:
    _fully_rise_target(s, seat, c.slot, "§5.4 fully_rise")


def validate_score(s: State, seat: int, c: ScoreLocation, kind: str) -> None:
    bl = _board_location(s, seat, c.slot, "§5.4 score")
    if remaining_depths(bl) > 0:
        fail("not_fully_risen", f"§5.4 score (§6.9): {bl.location_id} is not fully risen")
    if bl.location_id == source_location(_head(s)):
        fail("cannot_target_source", "§5.4 score (§6.9): a score Depth never scores its own Location")


def validate_take_back(s: State, seat: int, c: TakeBackCard, kind: str) -> None:
    if c.card_id not in s.players[seat].discard:
        fail("card_not_in_discard", f"§5.4 take_back: {c.card_id} is not in your discard pile")


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


# --- appliers: the events of a valid command -----------------------------------------------------
def _resolved(tx: Tx) -> None:
    head = _head(tx.state)
    tx.emit(ev.EffectResolved(head.owner, head.effect, head.source))


def _skipped(tx: Tx, reason: str) -> None:
    head = _head(tx.state)
    tx.emit(ev.EffectSkipped(head.owner, head.effect, head.source, reason))


def trigger_end(tx: Tx, reason: str) -> None:
    """§8.1: only the first trigger counts."""
    s = tx.state
    if s.end_reason is None:
        tx.emit(ev.EndTriggered(reason, s.active_seat, 0 if reason == "round_cap" else s.seats))  # type: ignore[arg-type]


def gain_wild_manta(tx: Tx, seat: int, kind: str) -> None:
    index = CAT.wild_index[kind]
    left = tx.state.wild_reserve[index]
    if left > 0:
        tx.emit(ev.WildMantaGained(seat, CAT.wild_manta_id(kind, CAT.wild_counts[index] - left), kind))
    else:
        tx.emit(ev.WildMantaUnavailable(seat, kind))


def after_full_rise(tx: Tx, seat: int, slot: int) -> None:
    """§6.8: a Location just became fully risen."""
    location_id = tx.state.players[seat].board[slot].location_id  # type: ignore[union-attr]
    tx.emit(ev.LocationFullyRisen(seat, slot, location_id))
    kind = LOCATIONS[location_id].wild_manta
    if kind is not None:
        gain_wild_manta(tx, seat, kind)


def raise_locations(tx: Tx, seat: int, allocation: tuple[tuple[int, int], ...], cause: str, auto: bool) -> None:
    for slot, steps in allocation:
        bl = tx.state.players[seat].board[slot]
        assert bl is not None
        covered = bl.covered + steps
        tx.emit(ev.LocationRaised(seat, slot, bl.location_id, steps, covered, cause, auto))  # type: ignore[arg-type]
        if covered == len(LOCATIONS[bl.location_id].depths):
            after_full_rise(tx, seat, slot)


def refill_character_row(tx: Tx, gap: int) -> None:
    """§6.5: cards right of the gap move left; the deck's top card fills the row; its last card ends."""
    if any(c is not None for c in tx.state.character_row[gap + 1:]):
        tx.emit(ev.CharacterRowShifted(gap + 1))
    deck = tx.state.ocean_deck
    if deck and None in tx.state.character_row:
        tx.emit(ev.CharacterRowFilled(tx.state.character_row.index(None), deck[0]))
        if not tx.state.ocean_deck:
            trigger_end(tx, "ocean_deck_empty")


def complete_payment(tx: Tx, seat: int) -> None:
    s = tx.state
    payment = s.payment
    assert payment is not None
    from_pool = min(pool_for(s, payment.resource, payment.target_type), payment.cost)
    overflow = max(0, from_pool + payment.committed - payment.cost)
    tx.emit(ev.PaymentCompleted(seat, payment.resource, payment.cost, from_pool, payment.committed, overflow))
    if payment.purpose == "acquire":
        assert payment.location_id and payment.slot is not None and payment.mode and payment.from_row
        tx.emit(ev.LocationAcquired(seat, payment.location_id, payment.slot, payment.mode, payment.from_row))  # type: ignore[arg-type]
        if not LOCATIONS[payment.location_id].depths:  # R14: placed fully risen
            after_full_rise(tx, seat, payment.slot)
    else:
        assert payment.card_id and payment.row_slot is not None
        tx.emit(ev.CharacterRecruited(seat, payment.card_id, payment.row_slot, payment.cost, True, False))
        refill_character_row(tx, payment.row_slot)
    _resolved(tx)


def _check_payment(tx: Tx, seat: int) -> None:
    if tx.state.payment is not None and payment_due(tx.state) <= 0:
        complete_payment(tx, seat)


def start_acquisition(tx: Tx, seat: int, location_id: str, slot: int, mode: str, auto: bool) -> None:
    from_row = row_of(tx.state, location_id)
    assert from_row is not None
    cost = acquisition_cost(LOCATIONS[location_id], mode, from_row)
    tx.emit(ev.AcquisitionStarted(seat, location_id, slot, mode, cost, from_row, auto))  # type: ignore[arg-type]
    _check_payment(tx, seat)


def start_recruit(tx: Tx, seat: int, row_slot: int, auto: bool) -> None:
    effect = _head(tx.state).effect
    assert isinstance(effect, Recruit)
    card_id = tx.state.character_row[row_slot]
    assert card_id is not None
    if effect.free:
        tx.emit(ev.CharacterRecruited(seat, card_id, row_slot, 0, False, True, auto))
        refill_character_row(tx, row_slot)
        _resolved(tx)
        return
    tx.emit(ev.RecruitStarted(seat, card_id, row_slot, CAT.row_cost(row_slot), auto))
    _check_payment(tx, seat)


def score_location(tx: Tx, seat: int, slot: int, auto: bool) -> None:
    bl = tx.state.players[seat].board[slot]
    assert bl is not None
    tx.emit(ev.LocationScored(seat, slot, bl.location_id, LOCATIONS[bl.location_id].prosperity, auto))


def take_back_cards(tx: Tx, seat: int, card_ids: tuple[str, ...], auto: bool) -> None:
    discard = list(tx.state.players[seat].discard)
    for card in card_ids:
        discard.remove(card)
    tx.emit(ev.CardsTakenBack(seat, card_ids, discard[-1] if discard else None, auto))


def place_ichthyander(tx: Tx, goal_index: int, auto: bool) -> None:
    s = tx.state
    tx.emit(ev.IchthyanderPlaced(goal_index, len(s.tracks[goal_index]) + 1, s.ichthyanders[0], auto))
    if not tx.state.ichthyanders:
        trigger_end(tx, "ichthyanders_complete")


def start_turn(tx: Tx, seat: int, turn_number: int) -> None:
    tx.emit(ev.TurnStarted(seat, turn_number))
    player = tx.state.players[seat]
    if not player.hand:  # R23 Recover (§6.20): replaces the Main action
        tx.emit(ev.DiscardReturnedToHand(seat, player.discard, "recover"))
        tx.emit(ev.MainActionCompleted(seat))


def apply_choose_king(tx: Tx, seat: int, c: ChooseKing, kind: str) -> None:
    tx.emit(ev.KingChosen(seat, c.king_id))
    continue_king_selection(tx)


def draft_order(state: State) -> list[int]:
    """§4 step 7: the last seat in turn order chooses first, then counter-clockwise; solo: seat 0."""
    n = state.seats
    return [(state.first_seat + position) % n for position in range(n - 1, -1, -1)]


def continue_king_selection(tx: Tx) -> None:
    s = tx.state
    order = draft_order(s)
    position = order.index(s.king_offer_seat)
    if s.seats == 1 or position == len(order) - 1:
        finish_setup(tx)
        return
    following = order[position + 1]
    tx.emit(ev.KingDraftOffered(following, s.king_offer))
    if len(s.king_offer) == 1:
        tx.emit(ev.KingChosen(following, s.king_offer[0], auto=True))
        continue_king_selection(tx)


def finish_setup(tx: Tx) -> None:
    """§4 steps 8-10: setup exchanges, the Ichthyanders, then the first turn."""
    s = tx.state
    for seat in [(s.first_seat + k) % s.seats for k in range(s.seats)]:
        king_id = s.players[seat].king_id
        setup = CAT.card[king_id].setup if king_id else None
        if setup is not None:
            index = CAT.wild_index[setup.kind]
            left = tx.state.wild_reserve[index]
            manta_id = CAT.wild_manta_id(setup.kind, CAT.wild_counts[index] - left) if left else None
            tx.emit(ev.KingExchanged(seat, king_id, manta_id))  # type: ignore[arg-type]
    if s.seats == 1:
        tx.emit(ev.IchthyandersSetUp(CAT.ichthyander_ids))
    tx.emit(ev.GameStarted())
    start_turn(tx, s.first_seat, 1)


def apply_play_character(tx: Tx, seat: int, c: PlayCharacter, kind: str) -> None:
    tx.emit(ev.CharacterPlayed(seat, c.card_id))


def apply_flip_manta(tx: Tx, seat: int, c: FlipManta, kind: str) -> None:
    tx.emit(ev.MantaFlipped(seat, c.manta_id, "effect" if kind == "turn" else "payment"))
    _check_payment(tx, seat)


def apply_exploit_depth(tx: Tx, seat: int, c: ExploitDepth, kind: str) -> None:
    bl = tx.state.players[seat].board[c.slot]
    assert bl is not None
    depth = top_depth(bl)
    tx.emit(ev.DepthExploited(seat, c.slot, bl.location_id, bl.covered, depth))  # type: ignore[arg-type]
    if bl.covered + 1 == len(LOCATIONS[bl.location_id].depths):  # R13: slide, full rise, then the output
        after_full_rise(tx, seat, c.slot)
    _check_payment(tx, seat)


def apply_claim_goal(tx: Tx, seat: int, c: ClaimGoal, kind: str) -> None:
    spot = len(tx.state.tracks[c.goal_index]) + 1
    tx.emit(ev.GoalClaimed(seat, c.goal_index, c.manta_id, spot, CAT.board.goal_track_points[spot - 1]))
    if len(goals_claimed_by(tx.state, seat)) == len(tx.state.goals):
        trigger_end(tx, "all_goals")


def apply_end_turn(tx: Tx, seat: int, c: EndTurn, kind: str) -> None:
    tx.emit(ev.TurnEnded(seat, tx.state.turn_number))
    s = tx.state
    if s.end_reason is None and s.turn_number % s.seats == 0 and s.turn_number // s.seats >= s.rules.max_rounds:
        trigger_end(tx, "round_cap")  # R22
    s = tx.state
    if s.end_reason is not None and s.final_turns_remaining <= 0:
        tx.emit(game_ended_event(s))
        return
    start_turn(tx, (seat + 1) % s.seats, s.turn_number + 1)


def apply_choose_option(tx: Tx, seat: int, c: ChooseOption, kind: str) -> None:
    tx.emit(ev.OptionChosen(seat, c.index))


def apply_acquire(tx: Tx, seat: int, c: Acquire, kind: str) -> None:
    start_acquisition(tx, seat, c.location_id, c.slot, c.mode, False)


def apply_recruit(tx: Tx, seat: int, c: RecruitCharacter, kind: str) -> None:
    start_recruit(tx, seat, c.row_slot, False)


def apply_raise(tx: Tx, seat: int, c: RaiseLocations, kind: str) -> None:
    if kind == "opponent_raise":
        raise_locations(tx, seat, c.allocation, "opponent_raise", False)
        return
    raise_locations(tx, seat, c.allocation, "raise", False)
    _resolved(tx)


def apply_fully_rise(tx: Tx, seat: int, c: FullyRiseLocation, kind: str) -> None:
    _fully_rise(tx, seat, c.slot, False)


def _fully_rise(tx: Tx, seat: int, slot: int, auto: bool) -> None:
    bl = tx.state.players[seat].board[slot]
    assert bl is not None
    depths = len(LOCATIONS[bl.location_id].depths)
    tx.emit(ev.LocationRaised(seat, slot, bl.location_id, depths - bl.covered, depths, "fully_rise", auto))
    after_full_rise(tx, seat, slot)
    _resolved(tx)


def apply_score(tx: Tx, seat: int, c: ScoreLocation, kind: str) -> None:
    score_location(tx, seat, c.slot, False)


def apply_take_back(tx: Tx, seat: int, c: TakeBackCard, kind: str) -> None:
    take_back_cards(tx, seat, (c.card_id,), False)


def apply_scout(tx: Tx, seat: int, c: ScoutDecision, kind: str) -> None:
    if c.do:
        tx.emit(ev.ScoutStarted(seat))
    else:
        tx.emit(ev.ScoutDeclined(seat))
        _resolved(tx)


def apply_scout_discard(tx: Tx, seat: int, c: ScoutDiscard, kind: str) -> None:
    tx.emit(ev.LocationDiscarded(c.location_id, "scout_excess"))


def apply_discard_card(tx: Tx, seat: int, c: DiscardCard, kind: str) -> None:
    tx.emit(ev.CardDiscarded(seat, c.card_id, "opponent_effect"))


def apply_place_ichthyander(tx: Tx, seat: int, c: PlaceIchthyander, kind: str) -> None:
    place_ichthyander(tx, c.goal_index, False)


COMMANDS: dict[type, tuple[Callable[..., None], Callable[..., None]]] = {
    ChooseKing: (validate_choose_king, apply_choose_king),
    PlayCharacter: (validate_play_character, apply_play_character),
    FlipManta: (validate_flip_manta, apply_flip_manta),
    ExploitDepth: (validate_exploit_depth, apply_exploit_depth),
    ClaimGoal: (validate_claim_goal, apply_claim_goal),
    EndTurn: (validate_end_turn, apply_end_turn),
    ChooseOption: (validate_choose_option, apply_choose_option),
    Acquire: (validate_acquire, apply_acquire),
    RecruitCharacter: (validate_recruit, apply_recruit),
    RaiseLocations: (validate_raise, apply_raise),
    FullyRiseLocation: (validate_fully_rise, apply_fully_rise),
    ScoreLocation: (validate_score, apply_score),
    TakeBackCard: (validate_take_back, apply_take_back),
    ScoutDecision: (validate_scout, apply_scout),
    ScoutDiscard: (validate_scout_discard, apply_scout_discard),
    DiscardCard: (validate_discard_card, apply_discard_card),
    PlaceIchthyander: (validate_place_ichthyander, apply_place_ichthyander),
}


# --- settle: resolve until the next decision (§5.5) -----------------------------------------------
def settle(tx: Tx) -> None:
    while True:
        s = tx.state
        if s.phase != "play":
            return
        if s.ichthyander_pending:
            free = [g for g, track in enumerate(s.tracks) if all(spot.seat != ICHTHYANDERS for spot in track)]
            if len(free) != 1:
                return
            place_ichthyander(tx, free[0], True)
        elif s.payment is not None:
            return
        elif s.queue:
            if not step_head(tx):
                return
        elif s.stage == "main":
            if s.in_play is not None:
                finish_card(tx)
            else:
                tx.emit(ev.MainActionCompleted(s.active_seat))
        else:
            return


def finish_card(tx: Tx) -> None:
    """§5.2 step 4: the card leaves play, then the post-Main triggers (§6.13, §6.19)."""
    s = tx.state
    seat, card_id = s.active_seat, s.in_play
    assert card_id is not None
    card = CAT.card[card_id]
    if card.is_matrona:
        tx.emit(ev.CardReturnedToHand(seat, card_id))  # R6
    elif card.after_play == "remove_from_game":
        tx.emit(ev.CardRemovedFromGame(seat, card_id))  # R24
    else:
        tx.emit(ev.CardToDiscard(seat, card_id))
    if not card.is_matrona:
        return
    if s.seats == 2 and s.rules.two_player_matrona_row_discard and s.character_row[0] is not None:
        tx.emit(ev.RowCharacterRemoved(s.character_row[0], 0))
        refill_character_row(tx, 0)
    if s.seats == 1 and s.ichthyanders:
        tx.emit(ev.IchthyanderTriggered(seat, "matrona"))


def step_head(tx: Tx) -> bool:
    """Resolve the head effect as far as possible; False when it waits for a decision."""
    s = tx.state
    head = s.queue[0]
    effect, seat = head.effect, head.owner
    fresh = s.head_progress == 0 and not s.answered and s.scout is None
    if fresh:
        reason = skip_reason(s, head)
        if reason is not None:
            _skipped(tx, reason)
            return True
    if isinstance(effect, Gain):
        tx.emit(ev.ResourceGained(seat, effect.resource, effect.amount, head.source, effect.only_for_type))
    elif isinstance(effect, TakeBackAll):
        tx.emit(ev.DiscardReturnedToHand(seat, s.players[seat].discard, "take_back_all"))
    elif isinstance(effect, ReadyAllMantas):
        tx.emit(ev.MantasReadied(seat, tuple(m.id for m in s.players[seat].mantas if not m.ready)))
    elif isinstance(effect, Choice):
        options = performable_options(s, head)
        if len(options) != 1:
            return False
        tx.emit(ev.OptionChosen(seat, options[0], auto=True))
        return True
    elif type(effect) in ACQUISITION_MODES:
        choices = acquisition_commands(s, seat)
        if len(choices) != 1:
            return False
        location_id, slot, mode = choices[0]
        start_acquisition(tx, seat, location_id, slot, mode, True)
        return True
    elif isinstance(effect, Recruit):
        slots = recruit_slots(s, seat)
        if len(slots) != 1:
            return False
        start_recruit(tx, seat, slots[0], True)
        return True
    elif isinstance(effect, Raise):
        allocations = raise_allocations(raise_eligible(s.players[seat], source_location(head)), effect.amount,
                                        effect.split)
        if len(allocations) != 1:
            return False
        raise_locations(tx, seat, allocations[0], "raise", True)
    elif isinstance(effect, FullyRise):
        eligible = raise_eligible(s.players[seat], source_location(head))
        if len(eligible) != 1:
            return False
        _fully_rise(tx, seat, eligible[0][0], True)
        return True
    elif isinstance(effect, Score):
        eligible = score_eligible(s.players[seat], source_location(head))
        left = effect.count - s.head_progress
        if len(eligible) > left > 0:
            return False
        for slot in eligible[:left]:
            score_location(tx, seat, slot, True)
    elif isinstance(effect, TakeBack):
        discard = s.players[seat].discard
        left = effect.count - s.head_progress
        if len(discard) > left > 0:
            return False
        if discard and left > 0:
            take_back_cards(tx, seat, discard, True)
    elif isinstance(effect, Scout):
        return step_scout(tx, head)
    elif isinstance(effect, (OpponentsDiscard, OpponentsRaise)):
        return step_opponents(tx, effect)
    _resolved(tx)
    return True


def step_scout(tx: Tx, head: QueueItem) -> bool:
    """§6.10, both printings: discard the top row, (updated) the excess, move up, deal."""
    s = tx.state
    seat = head.owner
    if s.scout is None:
        if s.rules.scout_rule == "updated" and head.source.kind == "card":
            return False  # scout_decide
        tx.emit(ev.ScoutStarted(seat))
    for location_id in tx.state.top_row:
        tx.emit(ev.LocationDiscarded(location_id, "scout_top_row"))
    if len(tx.state.bottom_row) > CAT.board.top_row_size:
        return False  # scout_discard (only reachable with the updated rule)
    s = tx.state
    assert s.scout is not None
    dealt = s.location_deck[: CAT.board.bottom_row_size]
    tx.emit(ev.ScoutPerformed(seat, s.scout.discarded_top, s.scout.discarded_bottom, s.bottom_row, dealt))
    if dealt and not tx.state.location_deck:
        trigger_end(tx, "location_deck_empty")
    _resolved(tx)
    if s.seats == 1 and s.rules.solo_trigger == "matrona_or_scout" and s.ichthyanders:
        tx.emit(ev.IchthyanderTriggered(seat, "scout"))
    return True


def step_opponents(tx: Tx, effect: OpponentsDiscard | OpponentsRaise) -> bool:
    """§6.14: one simultaneous prompt; single-answer opponents answer automatically (R18)."""
    s = tx.state
    pending = pending_opponents(s, effect)
    if not pending:
        _resolved(tx)
        return True
    progressed = False
    for seat in pending:
        if isinstance(effect, OpponentsDiscard):
            cards = discard_eligible(s, seat)
            if len(cards) == 1:
                tx.emit(ev.CardDiscarded(seat, cards[0], "opponent_effect", auto=True))
                progressed = True
        else:
            allocations = raise_allocations(raise_eligible(s.players[seat], None), effect.amount, False)
            if len(allocations) == 1:
                raise_locations(tx, seat, allocations[0], "opponent_raise", True)
                progressed = True
    return progressed


# --- shared enumeration of the choices auto-resolution counts (R18) -----------------------------------
def acquisition_commands(s: State, seat: int) -> list[tuple[str, int, str]]:
    modes = ACQUISITION_MODES[type(_head(s).effect)]
    slots = [i for i, bl in enumerate(s.players[seat].board) if bl is None]
    return [(location_id, slot, mode) for location_id, mode, _, _ in affordable_acquisitions(s, seat, modes)
            for slot in slots]


def recruit_slots(s: State, seat: int) -> list[int]:
    effect = _head(s).effect
    assert isinstance(effect, Recruit)
    coins = None if effect.free else avail(s, seat, "coins", None)
    return [slot for slot, card in enumerate(s.character_row)
            if card is not None and (coins is None or CAT.row_cost(slot) <= coins)]
