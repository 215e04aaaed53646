"""``evolve``: the state after one event.  Pure and mechanical: it applies what the event records and
never decides a rule (decide did), never touches an RNG.  One handler per event type; each returns the
changed fields, applied in a single ``replace`` that also bumps ``version``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any, cast

from msgspec.structs import replace

from benthic.rules.aquatica import events as ev
from benthic.rules.aquatica.content import catalog
from benthic.rules.aquatica.effects import Gain
from benthic.rules.aquatica.state import (
    ICHTHYANDERS,
    BoardLocation,
    Manta,
    Payment,
    Player,
    QueueItem,
    ScoutProgress,
    Source,
    State,
    TrackSpot,
    TypedPower,
)

CAT = catalog()
Changes = dict[str, Any]


def _players(state: State, seat: int, **changes: Any) -> tuple[Player, ...]:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    return tuple(players)


def _without(items: tuple[Any, ...], item: Any) -> tuple[Any, ...]:
    """`items` without the first occurrence of `item`."""
    i = items.index(item)
    return items[:i] + items[i + 1:]


def _board(player: Player, slot: int, value: BoardLocation | None) -> tuple[BoardLocation | None, ...]:
    board = list(player.board)
    board[slot] = value
    return tuple(board)


def _row(row: tuple[str | None, ...], slot: int, value: str | None) -> tuple[str | None, ...]:
    cells = list(row)
    cells[slot] = value
    return tuple(cells)


def _items(effects: tuple[Any, ...], source: Source, owner: int) -> tuple[QueueItem, ...]:
    return tuple(QueueItem(e, source, owner) for e in effects)


_POP: Changes = {"head_progress": 0, "answered": ()}


# --- setup ---------------------------------------------------------------------------------------
def _game_created(s: State, e: ev.GameCreated) -> Changes:
    return dict(seed=e.seed, content=sys.intern(e.content.key), rules=e.flags, seats=e.player_count,
                wild_reserve=CAT.wild_counts)


def _seats_assigned(s: State, e: ev.SeatsAssigned) -> Changes:
    return dict(first_seat=e.order[0])


def _deck_shuffled(s: State, e: ev.DeckShuffled) -> Changes:
    field = {"ocean": "ocean_deck", "locations": "location_deck", "kings": "kings_boxed",
             "goal_tokens": "tokens_boxed"}[e.deck]
    return {field: e.order}


def _ocean_sets_removed(s: State, e: ev.OceanSetsRemoved) -> Changes:
    return dict(removed_characters=s.removed_characters + e.card_ids)


def _character_row_filled(s: State, e: ev.CharacterRowFilled) -> Changes:
    return dict(character_row=_row(s.character_row, e.slot, e.card_id), ocean_deck=_without(s.ocean_deck, e.card_id))


def _locations_dealt(s: State, e: ev.LocationsDealt) -> Changes:
    return dict(bottom_row=s.bottom_row + e.location_ids, location_deck=s.location_deck[len(e.location_ids):])


def _goals_set(s: State, e: ev.GoalsSet) -> Changes:
    return dict(
        goals=e.goals, goal_tokens=e.tokens, tracks=((),) * len(e.goals),
        tokens_boxed=tuple(t for t in s.tokens_boxed if t not in e.tokens),
    )


def _player_set_up(s: State, e: ev.PlayerSetUp) -> Changes:
    mantas = tuple(Manta(mid, kind) for mid, kind in zip(CAT.trained_ids[e.seat], CAT.trained_kinds, strict=True))
    player = Player(seat=e.seat, symbol=e.symbol, hand=CAT.starting_ids[e.seat], mantas=mantas)
    return dict(players=s.players + (player,))


def _king_assigned(s: State, e: ev.KingAssigned) -> Changes:
    p = s.players[e.seat]
    number = CAT.card[e.king_id].number or 0
    return dict(players=_players(s, e.seat, king_id=e.king_id, king_number=number, king_revealed=True,
                                 hand=p.hand + (e.king_id,)))


def _king_draft_offered(s: State, e: ev.KingDraftOffered) -> Changes:
    return dict(phase="king_selection", king_offer=e.king_ids, king_offer_seat=e.seat,
                kings_boxed=tuple(k for k in s.kings_boxed if k not in e.king_ids))


def _king_chosen(s: State, e: ev.KingChosen) -> Changes:
    king = CAT.card[e.king_id]
    hand = s.players[e.seat].hand
    if king.setup is None:  # a setup-exchange King never enters the hand (§4 step 8)
        hand = hand + (e.king_id,)
    return dict(king_offer=_without(s.king_offer, e.king_id),
                players=_players(s, e.seat, king_id=e.king_id, king_number=king.number or 0, hand=hand))


def _king_exchanged(s: State, e: ev.KingExchanged) -> Changes:
    p = s.players[e.seat]
    kind = CAT.card[e.king_id].setup.kind  # type: ignore[union-attr]
    if e.manta_id is None:
        return dict(players=_players(s, e.seat, king_revealed=True))
    reserve = list(s.wild_reserve)
    reserve[CAT.wild_index[kind]] -= 1
    return dict(wild_reserve=tuple(reserve),
                players=_players(s, e.seat, king_revealed=True, mantas=p.mantas + (Manta(e.manta_id, kind),)))


def _ichthyanders_set_up(s: State, e: ev.IchthyandersSetUp) -> Changes:
    return dict(ichthyanders=e.manta_ids)


def _game_started(s: State, e: ev.GameStarted) -> Changes:
    return dict(phase="play", kings_boxed=s.kings_boxed + s.king_offer, king_offer=(), king_offer_seat=-1)


# --- turn ----------------------------------------------------------------------------------------
_TURN_RESET: Changes = dict(
    pool_coins=0, pool_power=0, pool_typed=(), resource_depth_used=(), resource_mantas_used=(),
    effect_mantas_used=(),
)


def _turn_started(s: State, e: ev.TurnStarted) -> Changes:
    return dict(_TURN_RESET, active_seat=e.seat, turn_number=e.turn_number, stage="before_main")


def _turn_ended(s: State, e: ev.TurnEnded) -> Changes:
    changes = dict(_TURN_RESET)
    if s.end_reason is not None and s.turn_number > s.end_trigger_turn:
        changes["final_turns_remaining"] = s.final_turns_remaining - 1
    return changes


def _character_played(s: State, e: ev.CharacterPlayed) -> Changes:
    p = s.players[e.seat]
    changes: dict[str, Any] = dict(hand=_without(p.hand, e.card_id))
    if e.card_id == p.king_id:
        changes["king_revealed"] = True
    return dict(players=_players(s, e.seat, **changes), in_play=e.card_id, stage="main",
                queue=_items(CAT.card_effects(e.card_id, s.rules.healer_replays), Source("card", e.card_id), e.seat),
                **_POP)


def _card_replayed(s: State, e: ev.CardReplayed) -> Changes:
    """§11 Q2: the replayed card's effects take the place of the replay effect, as part of the Main action."""
    p = s.players[e.seat]
    effects = CAT.card_effects(e.card_id, s.rules.healer_replays)
    changes: dict[str, Any] = dict(discard=_without(p.discard, e.card_id))
    if e.card_id == p.king_id:
        changes["king_revealed"] = True
    return dict(players=_players(s, e.seat, **changes),
                replaying=s.replaying + (e.card_id,),
                queue=_items(effects, Source("card", e.card_id, replay=True), e.seat) + s.queue[1:], **_POP)


def _replayed_card_returned(s: State, e: ev.ReplayedCardReturned) -> Changes:
    p = s.players[e.seat]
    return dict(players=_players(s, e.seat, discard=p.discard + (e.card_id,)), replaying=s.replaying[:-1])


def _main_action_completed(s: State, e: ev.MainActionCompleted) -> Changes:
    return dict(stage="after_main", pool_coins=0, pool_power=0, pool_typed=(), resource_depth_used=())


# --- effects -------------------------------------------------------------------------------------
def _resource_gained(s: State, e: ev.ResourceGained) -> Changes:
    if e.resource == "coins":
        return dict(pool_coins=s.pool_coins + e.amount)
    if e.only_for_type is None:
        return dict(pool_power=s.pool_power + e.amount)
    return dict(pool_typed=s.pool_typed + (TypedPower(e.only_for_type, e.amount),))


def _pop(s: State, e: Any) -> Changes:
    return dict(queue=s.queue[1:], **_POP)


def _option_chosen(s: State, e: ev.OptionChosen) -> Changes:
    head = s.queue[0]
    option = head.effect.options[e.index]  # type: ignore[union-attr]
    return dict(queue=_items(option, head.source, head.owner) + s.queue[1:], **_POP)


def _acquisition_started(s: State, e: ev.AcquisitionStarted) -> Changes:
    conquer = e.mode == "conquer"
    target = CAT.locations[e.location_id].type if conquer else None
    payment = Payment("acquire", "power" if conquer else "coins", e.cost, target_type=target,
                      location_id=e.location_id, slot=e.slot, mode=e.mode, from_row=e.from_row)
    return dict(payment=payment)


def _recruit_started(s: State, e: ev.RecruitStarted) -> Changes:
    return dict(payment=Payment("recruit", "coins", e.cost, row_slot=e.row_slot, card_id=e.card_id))


def _manta_flipped(s: State, e: ev.MantaFlipped) -> Changes:
    p = s.players[e.seat]
    mantas = tuple(replace(m, ready=False) if m.id == e.manta_id else m for m in p.mantas)
    kind = next(m.kind for m in p.mantas if m.id == e.manta_id)
    face = CAT.face(kind)
    players = _players(s, e.seat, mantas=mantas)
    if e.purpose == "payment":
        pay = cast(Payment, s.payment)
        payment = replace(pay, committed=pay.committed + cast(Gain, face).amount)
        return dict(players=players, payment=payment, resource_mantas_used=s.resource_mantas_used + (e.manta_id,))
    item = QueueItem(face, Source("manta", e.manta_id), e.seat)
    return dict(players=players, effect_mantas_used=s.effect_mantas_used + (e.manta_id,),
                queue=(item,) + s.queue, **_POP)


def _depth_exploited(s: State, e: ev.DepthExploited) -> Changes:
    p = s.players[e.seat]
    bl = cast(BoardLocation, p.board[e.slot])
    players = _players(s, e.seat, board=_board(p, e.slot, replace(bl, covered=bl.covered + 1)))
    if isinstance(e.effect, Gain):
        pay = s.payment
        payment = replace(pay, committed=pay.committed + e.effect.amount,  # type: ignore[type-var, union-attr]
                          depths_used=pay.depths_used + (e.location_id,))  # type: ignore[union-attr]
        return dict(players=players, payment=payment, resource_depth_used=s.resource_depth_used + (e.location_id,))
    item = QueueItem(e.effect, Source("depth", e.location_id, e.slot), e.seat)
    return dict(players=players, queue=(item,) + s.queue, **_POP)


def _payment_completed(s: State, e: ev.PaymentCompleted) -> Changes:
    if e.resource == "coins":
        return dict(payment=None, pool_coins=0)
    return dict(payment=None, pool_power=0, pool_typed=())


def _location_acquired(s: State, e: ev.LocationAcquired) -> Changes:
    p = s.players[e.seat]
    rows = dict(top_row=tuple(x for x in s.top_row if x != e.location_id)) if e.from_row == "top" else dict(
        bottom_row=tuple(x for x in s.bottom_row if x != e.location_id))
    return dict(players=_players(s, e.seat, board=_board(p, e.slot, BoardLocation(e.location_id))), **rows)


def _character_recruited(s: State, e: ev.CharacterRecruited) -> Changes:
    p = s.players[e.seat]
    changes: dict[str, Any] = dict(hand=p.hand + (e.card_id,))
    if e.paid:
        changes["max_paid_recruit_cost"] = max(e.cost, p.max_paid_recruit_cost or 0)
    return dict(players=_players(s, e.seat, **changes), character_row=_row(s.character_row, e.row_slot, None))


def _character_row_shifted(s: State, e: ev.CharacterRowShifted) -> Changes:
    row = s.character_row
    moved = tuple(c for c in row[e.from_slot - 1:] if c is not None)
    cells = row[: e.from_slot - 1] + moved
    return dict(character_row=cells + (None,) * (len(row) - len(cells)))


def _row_character_removed(s: State, e: ev.RowCharacterRemoved) -> Changes:
    return dict(character_row=_row(s.character_row, e.slot, None),
                removed_characters=s.removed_characters + (e.card_id,))


def _location_raised(s: State, e: ev.LocationRaised) -> Changes:
    p = s.players[e.seat]
    bl = p.board[e.slot]
    changes: dict[str, Any] = dict(
        players=_players(s, e.seat, board=_board(p, e.slot, replace(bl, covered=e.covered_after))))  # type: ignore[type-var]
    if e.cause == "opponent_raise":
        changes["answered"] = s.answered + (e.seat,)
    return changes


def _no_change(s: State, e: Any) -> Changes:
    return {}


def _wild_manta_gained(s: State, e: ev.WildMantaGained) -> Changes:
    reserve = list(s.wild_reserve)
    reserve[CAT.wild_index[e.kind]] -= 1
    p = s.players[e.seat]
    return dict(wild_reserve=tuple(reserve),
                players=_players(s, e.seat, mantas=p.mantas + (Manta(e.manta_id, e.kind),)))


def _location_scored(s: State, e: ev.LocationScored) -> Changes:
    p = s.players[e.seat]
    return dict(
        players=_players(s, e.seat, board=_board(p, e.slot, None), scored=p.scored + (e.location_id,)),
        head_progress=s.head_progress + 1,
        # a scored Location gives no more Depths; its id must leave public state (§7 Scoring Pile)
        resource_depth_used=tuple(x for x in s.resource_depth_used if x != e.location_id),
    )


def _scout_started(s: State, e: ev.ScoutStarted) -> Changes:
    return dict(scout=ScoutProgress())


def _location_discarded(s: State, e: ev.LocationDiscarded) -> Changes:
    changes: dict[str, Any] = dict(location_discard=s.location_discard + (e.location_id,))
    top = e.location_id in s.top_row
    if top:
        changes["top_row"] = _without(s.top_row, e.location_id)
    else:
        changes["bottom_row"] = _without(s.bottom_row, e.location_id)
    if s.scout is not None:
        sc = s.scout
        changes["scout"] = (replace(sc, discarded_top=sc.discarded_top + (e.location_id,)) if top
                            else replace(sc, discarded_bottom=sc.discarded_bottom + (e.location_id,)))
    return changes


def _scout_performed(s: State, e: ev.ScoutPerformed) -> Changes:
    return dict(top_row=e.moved_up, bottom_row=e.dealt, location_deck=s.location_deck[len(e.dealt):], scout=None)


def _mantas_readied(s: State, e: ev.MantasReadied) -> Changes:
    p = s.players[e.seat]
    ids = set(e.manta_ids)
    mantas = tuple(replace(m, ready=True) if m.id in ids else m for m in p.mantas)
    return dict(players=_players(s, e.seat, mantas=mantas))


def _cards_taken_back(s: State, e: ev.CardsTakenBack) -> Changes:
    p = s.players[e.seat]
    discard = p.discard
    for card in e.card_ids:
        discard = _without(discard, card)
    return dict(players=_players(s, e.seat, discard=discard, hand=p.hand + e.card_ids),
                head_progress=s.head_progress + len(e.card_ids))


def _discard_returned_to_hand(s: State, e: ev.DiscardReturnedToHand) -> Changes:
    p = s.players[e.seat]
    return dict(players=_players(s, e.seat, discard=(), hand=p.hand + e.card_ids))


def _card_discarded(s: State, e: ev.CardDiscarded) -> Changes:
    p = s.players[e.seat]
    changes: dict[str, Any] = dict(hand=_without(p.hand, e.card_id), discard=p.discard + (e.card_id,))
    if e.card_id == p.king_id:  # it becomes the public top card
        changes["king_revealed"] = True
    return dict(players=_players(s, e.seat, **changes), answered=s.answered + (e.seat,))


def _card_to_discard(s: State, e: ev.CardToDiscard) -> Changes:
    p = s.players[e.seat]
    return dict(players=_players(s, e.seat, discard=p.discard + (e.card_id,)), in_play=None)


def _card_returned_to_hand(s: State, e: ev.CardReturnedToHand) -> Changes:
    p = s.players[e.seat]
    return dict(players=_players(s, e.seat, hand=p.hand + (e.card_id,)), in_play=None)


def _card_removed_from_game(s: State, e: ev.CardRemovedFromGame) -> Changes:
    return dict(in_play=None, removed_characters=s.removed_characters + (e.card_id,))


# --- goals, solo, end ----------------------------------------------------------------------------
def _track(s: State, goal_index: int, spot: TrackSpot) -> tuple[tuple[TrackSpot, ...], ...]:
    tracks = list(s.tracks)
    tracks[goal_index] = tracks[goal_index] + (spot,)
    return tuple(tracks)


def _goal_claimed(s: State, e: ev.GoalClaimed) -> Changes:
    p = s.players[e.seat]
    return dict(tracks=_track(s, e.goal_index, TrackSpot(e.seat, e.manta_id)),
                players=_players(s, e.seat, mantas=tuple(m for m in p.mantas if m.id != e.manta_id)))


def _ichthyander_triggered(s: State, e: ev.IchthyanderTriggered) -> Changes:
    return dict(ichthyander_pending=True)


def _ichthyander_placed(s: State, e: ev.IchthyanderPlaced) -> Changes:
    return dict(tracks=_track(s, e.goal_index, TrackSpot(ICHTHYANDERS, e.manta_id)),
                ichthyanders=_without(s.ichthyanders, e.manta_id), ichthyander_pending=False)


def _end_triggered(s: State, e: ev.EndTriggered) -> Changes:
    return dict(end_reason=e.reason, end_trigger_turn=s.turn_number, final_turns_remaining=e.final_turns)


def _game_ended(s: State, e: ev.GameEnded) -> Changes:
    return dict(phase="ended")


HANDLERS: dict[type, Callable[[State, Any], Changes]] = {
    ev.GameCreated: _game_created,
    ev.CardReplayed: _card_replayed,
    ev.ReplayedCardReturned: _replayed_card_returned,
    ev.SeatsAssigned: _seats_assigned,
    ev.DeckShuffled: _deck_shuffled,
    ev.OceanSetsRemoved: _ocean_sets_removed,
    ev.CharacterRowFilled: _character_row_filled,
    ev.LocationsDealt: _locations_dealt,
    ev.GoalsSet: _goals_set,
    ev.PlayerSetUp: _player_set_up,
    ev.KingAssigned: _king_assigned,
    ev.KingDraftOffered: _king_draft_offered,
    ev.KingChosen: _king_chosen,
    ev.KingExchanged: _king_exchanged,
    ev.IchthyandersSetUp: _ichthyanders_set_up,
    ev.GameStarted: _game_started,
    ev.TurnStarted: _turn_started,
    ev.TurnEnded: _turn_ended,
    ev.CharacterPlayed: _character_played,
    ev.MainActionCompleted: _main_action_completed,
    ev.ResourceGained: _resource_gained,
    ev.EffectSkipped: _pop,
    ev.EffectResolved: _pop,
    ev.OptionChosen: _option_chosen,
    ev.AcquisitionStarted: _acquisition_started,
    ev.RecruitStarted: _recruit_started,
    ev.MantaFlipped: _manta_flipped,
    ev.DepthExploited: _depth_exploited,
    ev.PaymentCompleted: _payment_completed,
    ev.LocationAcquired: _location_acquired,
    ev.CharacterRecruited: _character_recruited,
    ev.CharacterRowShifted: _character_row_shifted,
    ev.RowCharacterRemoved: _row_character_removed,
    ev.LocationRaised: _location_raised,
    ev.LocationFullyRisen: _no_change,
    ev.WildMantaGained: _wild_manta_gained,
    ev.WildMantaUnavailable: _no_change,
    ev.LocationScored: _location_scored,
    ev.ScoutStarted: _scout_started,
    ev.ScoutPerformed: _scout_performed,
    ev.ScoutDeclined: _no_change,
    ev.LocationDiscarded: _location_discarded,
    ev.MantasReadied: _mantas_readied,
    ev.CardsTakenBack: _cards_taken_back,
    ev.DiscardReturnedToHand: _discard_returned_to_hand,
    ev.CardDiscarded: _card_discarded,
    ev.CardToDiscard: _card_to_discard,
    ev.CardReturnedToHand: _card_returned_to_hand,
    ev.CardRemovedFromGame: _card_removed_from_game,
    ev.GoalClaimed: _goal_claimed,
    ev.IchthyanderTriggered: _ichthyander_triggered,
    ev.IchthyanderPlaced: _ichthyander_placed,
    ev.EndTriggered: _end_triggered,
    ev.GameEnded: _game_ended,
}


def evolve(state: State, event: Any) -> State:
    return replace(state, version=state.version + 1, **HANDLERS[type(event)](state, event))
