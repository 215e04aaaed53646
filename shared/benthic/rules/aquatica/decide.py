"""``decide``: the events of a legal command (spec §5.4 effects, §5.5 resolution).

A command's events are built in a transaction that folds each event as it is emitted, then ``settle``
resolves the effect queue (§5.5) as far as it can without a decision: automatic effects, skipped effects,
prompts with exactly one answer (R18, ``auto: true``), the end of the Main action and its triggers.
It stops at the next decision, which ``prompts.prompt_kind`` derives from the resulting state.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from benthic.rules import emitter
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
    ReplayCard,
    ScoreLocation,
    ScoutDecision,
    ScoutDiscard,
    TakeBackCard,
)
from benthic.rules.aquatica.effects import (
    ACQUISITION_MODES,
    Choice,
    FullyRise,
    Gain,
    OpponentsDiscard,
    OpponentsRaise,
    Raise,
    ReadyAllMantas,
    Recruit,
    ReplayFromDiscard,
    Score,
    Scout,
    TakeBack,
    TakeBackAll,
)
from benthic.rules.aquatica.evolve import evolve
from benthic.rules.aquatica.queries import (
    CAT,
    acquisition_choices,
    acquisition_cost,
    discard_eligible,
    goals_claimed_by,
    head,
    payment_due,
    pending_opponents,
    performable_options,
    pool_for,
    raise_allocations,
    raise_eligible,
    recruit_choices,
    row_of,
    score_eligible,
    skip_reason,
    source_location,
    top_depth,
)
from benthic.rules.aquatica.scoring import game_ended_event
from benthic.rules.aquatica.state import ICHTHYANDERS, QueueItem, State
from benthic.rules.aquatica.validation import validate

Tx = emitter.Emitter[State, ev.Event]  # the events of one command, folded as they are emitted


def decide(state: State, seat: int, command: Any) -> list[Any]:
    kind = validate(state, seat, command)
    tx: Tx = emitter.Emitter(state, evolve)  # the class itself: a typing alias call is slow
    APPLIERS[type(command)](tx, seat, command, kind)
    settle(tx)
    return tx.events


# --- appliers: the events of a valid command -----------------------------------------------------
def _resolved(tx: Tx) -> None:
    item = head(tx.state)
    tx.emit(ev.EffectResolved(item.owner, item.effect, item.source))


def _skipped(tx: Tx, reason: str) -> None:
    item = head(tx.state)
    tx.emit(ev.EffectSkipped(item.owner, item.effect, item.source, reason))


def trigger_end(tx: Tx, reason: str) -> None:
    """§8.1: only the first trigger counts."""
    s = tx.state
    if s.end_reason is None:
        tx.emit(ev.EndTriggered(reason, s.active_seat, 0 if reason == "round_cap" else s.seats))  # type: ignore[arg-type]


def next_wild_manta(state: State, kind: str) -> str | None:
    """The id of the next Wild Manta of `kind` taken from the reserve (`{KIND}#{n}`), None if none is left."""
    index = CAT.wild_index[kind]
    left = state.wild_reserve[index]
    return CAT.wild_manta_id(kind, CAT.wild_counts[index] - left) if left else None


def gain_wild_manta(tx: Tx, seat: int, kind: str) -> None:
    manta_id = next_wild_manta(tx.state, kind)
    if manta_id is None:
        tx.emit(ev.WildMantaUnavailable(seat, kind))  # R15
    else:
        tx.emit(ev.WildMantaGained(seat, manta_id, kind))


def after_full_rise(tx: Tx, seat: int, slot: int) -> None:
    """§6.8: a Location just became fully risen."""
    location_id = tx.state.players[seat].board[slot].location_id  # type: ignore[union-attr]
    tx.emit(ev.LocationFullyRisen(seat, slot, location_id))
    kind = CAT.locations[location_id].wild_manta
    if kind is not None:
        gain_wild_manta(tx, seat, kind)


def raise_locations(tx: Tx, seat: int, allocation: tuple[tuple[int, int], ...], cause: str, auto: bool) -> None:
    for slot, steps in allocation:
        bl = tx.state.players[seat].board[slot]
        assert bl is not None
        covered = bl.covered + steps
        tx.emit(ev.LocationRaised(seat, slot, bl.location_id, steps, covered, cause, auto))  # type: ignore[arg-type]
        if covered == len(CAT.locations[bl.location_id].depths):
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
        if not CAT.locations[payment.location_id].depths:  # R14: placed fully risen
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
    cost = acquisition_cost(CAT.locations[location_id], mode, from_row)
    tx.emit(ev.AcquisitionStarted(seat, location_id, slot, mode, cost, from_row, auto))  # type: ignore[arg-type]
    _check_payment(tx, seat)


def start_recruit(tx: Tx, seat: int, row_slot: int, auto: bool) -> None:
    effect = head(tx.state).effect
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
    tx.emit(ev.LocationScored(seat, slot, bl.location_id, CAT.locations[bl.location_id].prosperity, auto))


def take_back_cards(tx: Tx, seat: int, card_ids: tuple[str, ...], auto: bool) -> None:
    discard = list(tx.state.players[seat].discard)
    for card in card_ids:
        discard.remove(card)
    tx.emit(ev.CardsTakenBack(seat, card_ids, discard[-1] if discard else None, auto))


def replay_card(tx: Tx, seat: int, card_id: str, auto: bool) -> None:
    """§11 Q2 (`healer_replays`): the card leaves the discard pile and its effects replace the head."""
    discard = list(tx.state.players[seat].discard)
    discard.remove(card_id)
    tx.emit(ev.CardReplayed(seat, card_id, discard[-1] if discard else None, auto))


def replay_pending(state: State) -> bool:
    """Effects of the innermost replayed card are still queued."""
    card = state.replaying[-1]
    return any(item.source.replay and item.source.id == card for item in state.queue)


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
            tx.emit(ev.KingExchanged(seat, king_id, next_wild_manta(tx.state, setup.kind)))  # type: ignore[arg-type]
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
    if bl.covered + 1 == len(CAT.locations[bl.location_id].depths):  # R13: slide, full rise, then the output
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
    depths = len(CAT.locations[bl.location_id].depths)
    tx.emit(ev.LocationRaised(seat, slot, bl.location_id, depths - bl.covered, depths, "fully_rise", auto))
    after_full_rise(tx, seat, slot)
    _resolved(tx)


def apply_score(tx: Tx, seat: int, c: ScoreLocation, kind: str) -> None:
    score_location(tx, seat, c.slot, False)


def apply_take_back(tx: Tx, seat: int, c: TakeBackCard, kind: str) -> None:
    take_back_cards(tx, seat, (c.card_id,), False)


def apply_replay(tx: Tx, seat: int, c: ReplayCard, kind: str) -> None:
    replay_card(tx, seat, c.card_id, False)


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



APPLIERS: dict[type, Callable[..., None]] = {
    ChooseKing: apply_choose_king,
    PlayCharacter: apply_play_character,
    FlipManta: apply_flip_manta,
    ExploitDepth: apply_exploit_depth,
    ClaimGoal: apply_claim_goal,
    EndTurn: apply_end_turn,
    ChooseOption: apply_choose_option,
    Acquire: apply_acquire,
    RecruitCharacter: apply_recruit,
    RaiseLocations: apply_raise,
    FullyRiseLocation: apply_fully_rise,
    ScoreLocation: apply_score,
    TakeBackCard: apply_take_back,
    ReplayCard: apply_replay,
    ScoutDecision: apply_scout,
    ScoutDiscard: apply_scout_discard,
    DiscardCard: apply_discard_card,
    PlaceIchthyander: apply_place_ichthyander,
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
        elif s.replaying and not replay_pending(s):
            tx.emit(ev.ReplayedCardReturned(s.active_seat, s.replaying[-1]))
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
    item = s.queue[0]
    effect, seat = item.effect, item.owner
    fresh = s.head_progress == 0 and not s.answered and s.scout is None
    if fresh:
        reason = skip_reason(s, item)
        if reason is not None:
            _skipped(tx, reason)
            return True
    if isinstance(effect, Gain):
        tx.emit(ev.ResourceGained(seat, effect.resource, effect.amount, item.source, effect.only_for_type))
    elif isinstance(effect, TakeBackAll):
        tx.emit(ev.DiscardReturnedToHand(seat, s.players[seat].discard, "take_back_all"))
    elif isinstance(effect, ReadyAllMantas):
        tx.emit(ev.MantasReadied(seat, tuple(m.id for m in s.players[seat].mantas if not m.ready)))
    elif isinstance(effect, Choice):
        options = performable_options(s, item)
        if len(options) != 1:
            return False
        tx.emit(ev.OptionChosen(seat, options[0], auto=True))
        return True
    elif type(effect) in ACQUISITION_MODES:
        choices = acquisition_choices(s, seat)
        if len(choices) != 1:
            return False
        location_id, slot, mode = choices[0]
        start_acquisition(tx, seat, location_id, slot, mode, True)
        return True
    elif isinstance(effect, Recruit):
        slots = recruit_choices(s, seat)
        if len(slots) != 1:
            return False
        start_recruit(tx, seat, slots[0], True)
        return True
    elif isinstance(effect, Raise):
        allocations = raise_allocations(raise_eligible(s.players[seat], source_location(item)), effect.amount,
                                        effect.split)
        if len(allocations) != 1:
            return False
        raise_locations(tx, seat, allocations[0], "raise", True)
    elif isinstance(effect, FullyRise):
        eligible = raise_eligible(s.players[seat], source_location(item))
        if len(eligible) != 1:
            return False
        _fully_rise(tx, seat, eligible[0][0], True)
        return True
    elif isinstance(effect, Score):
        scorable = score_eligible(s.players[seat], source_location(item))
        left = effect.count - s.head_progress
        if len(scorable) > left > 0:
            return False
        for slot in scorable[:left]:
            score_location(tx, seat, slot, True)
    elif isinstance(effect, TakeBack):
        discard = s.players[seat].discard
        left = effect.count - s.head_progress
        if len(discard) > left > 0:
            return False
        if discard and left > 0:
            take_back_cards(tx, seat, discard, True)
    elif isinstance(effect, ReplayFromDiscard):
        if len(s.players[seat].discard) != 1:
            return False
        replay_card(tx, seat, s.players[seat].discard[-1], True)
        return True
    elif isinstance(effect, Scout):
        return step_scout(tx, item)
    elif isinstance(effect, (OpponentsDiscard, OpponentsRaise)):
        return step_opponents(tx, effect)
    _resolved(tx)
    return True


def step_scout(tx: Tx, item: QueueItem) -> bool:
    """§6.10, both printings: discard the top row, (updated) the excess, move up, deal."""
    s = tx.state
    seat = item.owner
    if s.scout is None:
        if s.rules.scout_rule == "updated" and item.source.kind == "card":
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
