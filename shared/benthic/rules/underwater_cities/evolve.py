"""``evolve``: the state after one event.  Pure, no RNG, never mutates its input; each handler replaces
only the fields its event changes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from msgspec.structs import replace

from . import events as ev
from .board import add, network_of, sub
from .content import Yield, content
from .effects import Build, BuildUpgrade, Effect, If, Res, RestoreAction, Upgrade, UseAction
from .state import NEUTRAL, ActivePart, Frame, GameState, Piece, Player, Purchase, SeatScore, Turn


def unwrap(node: Effect) -> Effect:
    """The node a part's sub-prompt works on (an `if` whose condition held resolves its `then`)."""
    while isinstance(node, If):
        node = node.then
    return node


def repeat_count(node: Effect) -> int:
    if isinstance(node, (Build, Upgrade, UseAction, RestoreAction)):
        return node.n
    return 1


# --- small helpers ------------------------------------------------------------------------------------------

def _set_player(state: GameState, seat: int, player: Player) -> tuple[Player, ...]:
    players = list(state.players)
    players[seat] = player
    return tuple(players)


def _player(state: GameState, seat: int, **changes: Any) -> tuple[Player, ...]:
    return _set_player(state, seat, replace(state.players[seat], **changes))


def _turn(state: GameState, **changes: Any) -> Turn | None:
    return replace(state.turn, **changes) if state.turn is not None else None


def _top(state: GameState, **changes: Any) -> tuple[Frame, ...]:
    frames = state.frames
    return (*frames[:-1], replace(frames[-1], **changes))


def _active(state: GameState, **changes: Any) -> tuple[Frame, ...]:
    top = state.frames[-1]
    assert top.active is not None
    return _top(state, active=replace(top.active, **changes))


def _gain(player: Player, y: Yield) -> Player:
    res = player.res
    return replace(
        player,
        res=Res(res.credit + y.credit, res.kelp + y.kelp, res.steelplast + y.steelplast, res.science + y.science,
                res.biomatter + y.biomatter),
        points=max(0, player.points + y.points),
    )


def _without(items: tuple[str, ...], remove: tuple[str, ...] | str) -> tuple[str, ...]:
    gone = {remove} if isinstance(remove, str) else set(remove)
    return tuple(i for i in items if i not in gone)


def _replace_at(items: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*items[:index], value, *items[index + 1:])


def _to_destination(state: GameState, card_ids: tuple[str, ...], destination: str) -> dict[str, Any]:
    """Field changes putting cards at a discard destination (era_discard, special_bottom, box, removed)."""
    if destination == "era_discard":
        return {"era_discard": state.era_discard + card_ids}
    if destination == "special_bottom":
        return {"special_deck": state.special_deck + card_ids, "special_public": state.special_public + card_ids}
    return {"removed": state.removed + card_ids}  # removed | box


def _card_done_if_played(state: GameState, card_id: str, **more: Any) -> Turn | None:
    if state.turn is not None and state.turn.card_id == card_id:
        return replace(state.turn, card_done=True, **more)
    return _turn(state, **more) if more else state.turn


# --- handlers -----------------------------------------------------------------------------------------------

def _game_started(s: GameState, e: ev.GameStarted) -> GameState:
    return GameState(
        seed=e.seed, content=sys.intern(e.content.key), seats=e.seats, rules=e.rules,
        contracts_variant=e.government_contracts,
        players=tuple(Player(seat=i, board=0) for i in range(e.seats)),
        keep_choices=((),) * e.seats, production_choices=((),) * e.seats, purchases=((),) * e.seats,
    )


def _board_side_chosen(s: GameState, e: ev.BoardSideChosen) -> GameState:
    return replace(s, main_side=e.main_side, board_side=e.board_side, cloning_tile=e.cloning_tile,
                   tunnels_left=e.tunnels, white_left=e.white_domes, purple_left=e.purple_domes)


def _play_order_set(s: GameState, e: ev.PlayOrderSet) -> GameState:
    return replace(s, play_order=e.order)


def _federation_initialized(s: GameState, e: ev.FederationInitialized) -> GameState:
    players = tuple(replace(p, fed_space=e.spaces[p.seat]) for p in s.players)
    stacks = tuple(tuple(seat for seat, sp in enumerate(e.spaces) if sp == space) for space in (1, 2, 3, 4))
    return replace(s, players=players, fed_stacks=stacks)


def _resources_gained(s: GameState, e: ev.ResourcesGained) -> GameState:
    return replace(s, players=_set_player(s, e.seat, _gain(s.players[e.seat], e.gained)))


def _resources_paid(s: GameState, e: ev.ResourcesPaid) -> GameState:
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, res=sub(player.res, e.paid)))


def _boards_assigned(s: GameState, e: ev.BoardsAssigned) -> GameState:
    boards = content().boards
    players = []
    for p in s.players:
        board = e.boards[p.seat]
        pieces = {e.start_site: Piece("city_nonsym")}
        players.append(replace(p, board=board, pieces=pieces, network=network_of(boards[board], pieces),
                               tableau=("PA",)))
    return replace(s, players=tuple(players))


def _metropolises_dealt(s: GameState, e: ev.MetropolisesDealt) -> GameState:
    return replace(s, players=tuple(replace(p, metros=dict(e.tiles[p.seat])) for p in s.players))


def _deck_shuffled(s: GameState, e: ev.DeckShuffled) -> GameState:
    if e.deck == "special":
        return replace(s, special_deck=e.order)
    return replace(s, era_deck=e.order)


def _deck_reshuffled(s: GameState, e: ev.DeckReshuffled) -> GameState:
    return replace(s, era_deck=e.order, era_discard=())


def _box_contents(s: GameState, e: ev.BoxContents) -> GameState:
    return replace(s, box_specials=e.three_credit_specials, box_contracts=e.contracts, box_metros=e.metropolis_tiles)


def _specials_setup(s: GameState, e: ev.SpecialsSetup) -> GameState:
    return replace(s, special_row=e.row)


def _contracts_revealed(s: GameState, e: ev.ContractsRevealed) -> GameState:
    return replace(s, open_contracts=e.contract_ids)


def _noop(s: GameState, e: Any) -> GameState:
    return s


def _take_from_deck(s: GameState, seat: int, card_ids: tuple[str, ...]) -> GameState:
    player = s.players[seat]
    return replace(s, era_deck=s.era_deck[len(card_ids):],
                   players=_player(s, seat, hand=player.hand + card_ids))


def _cards_dealt_detail(s: GameState, e: ev.CardsDealtDetail) -> GameState:
    return _take_from_deck(s, e.seat, e.card_ids)


def _keep_started(s: GameState, e: ev.KeepStarted) -> GameState:
    return replace(s, phase="keep", prompt_seats=e.seats, answered=(), keep_choices=((),) * s.seats)


def _cards_kept(s: GameState, e: ev.CardsKept) -> GameState:
    return replace(s, prompt_seats=tuple(x for x in s.prompt_seats if x != e.seat), answered=s.answered + (e.seat,))


def _cards_kept_detail(s: GameState, e: ev.CardsKeptDetail) -> GameState:
    return replace(s, keep_choices=_replace_at(s.keep_choices, e.seat, e.card_ids))


def _cards_discarded(s: GameState, e: ev.CardsDiscarded | ev.CardsDiscardedEarly) -> GameState:
    player = s.players[e.seat]
    changes = _to_destination(s, e.card_ids, e.destination)
    players = _player(s, e.seat, hand=_without(player.hand, e.card_ids),
                      public_hand=_without(player.public_hand, e.card_ids))
    turn = s.turn
    if turn is not None and turn.stage == "discard" and turn.seat == e.seat:
        turn = replace(turn, stage="choose_play")
    return replace(s, players=players, turn=turn, **changes)


def _round_started(s: GameState, e: ev.RoundStarted) -> GameState:
    return replace(s, round=e.round, keep_choices=((),) * s.seats)


def _turn_started(s: GameState, e: ev.TurnStarted) -> GameState:
    stage = "discard" if e.must_discard else "choose_play"
    return replace(s, phase="turn", prompt_seats=(), answered=(), turn=Turn(e.seat, e.order_index, e.pass_no, stage))


def _clone_used(s: GameState, e: ev.CloneUsed) -> GameState:
    return replace(s, clone_used=True)


def _tile_placed(s: GameState, e: ev.TilePlaced) -> GameState:
    slots = dict(s.slots)
    slots[e.slot_id] = slots.get(e.slot_id, ()) + (e.seat,)
    return replace(s, slots=slots, turn=_turn(s, clone=e.clone))


def _card_played(s: GameState, e: ev.CardPlayed) -> GameState:
    player = s.players[e.seat]
    players = _player(s, e.seat, hand=_without(player.hand, e.card_id),
                      public_hand=_without(player.public_hand, e.card_id))
    if e.matched:
        turn = _turn(s, card_id=e.card_id, slot_id=e.slot_id, matched=True, stage="choose_order")
    else:
        turn = _turn(s, card_id=e.card_id, slot_id=e.slot_id, matched=False, stage="running", blocks=("slot",))
    return replace(s, players=players, turn=turn)


def _card_discarded(s: GameState, e: ev.CardDiscarded) -> GameState:
    return replace(s, turn=_card_done_if_played(s, e.card_id), **_to_destination(s, (e.card_id,), e.destination))


def _order_chosen(s: GameState, e: ev.OrderChosen) -> GameState:
    blocks = ("card", "slot") if e.first == "card" else ("slot", "card")
    return replace(s, turn=_turn(s, blocks=blocks, stage="running"))


def _block_started(s: GameState, e: ev.BlockStarted) -> GameState:
    assert s.turn is not None
    return replace(s, turn=replace(s.turn, block=e.block, blocks=s.turn.blocks[1:],
                                   stage="pay_special" if e.pay_special else "running"))


def _block_ended(s: GameState, e: ev.BlockEnded) -> GameState:
    return replace(s, turn=_turn(s, block=""))


def _special_paid(s: GameState, e: ev.SpecialPaid) -> GameState:
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, res=sub(player.res, Res(credit=e.cost))),
                   turn=_turn(s, special_paid=True, stage="running"))


def _special_declined(s: GameState, e: ev.SpecialDeclined) -> GameState:
    return replace(s, turn=_card_done_if_played(s, e.card_id, stage="running"),
                   **_to_destination(s, (e.card_id,), e.destination))


def _card_claimed(s: GameState, e: ev.CardClaimed) -> GameState:
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, tableau=player.tableau + (e.card_id,)),
                   turn=_card_done_if_played(s, e.card_id))


def _card_under_board(s: GameState, e: ev.CardUnderBoard) -> GameState:
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, under_board=player.under_board + (e.card_id,)),
                   turn=_card_done_if_played(s, e.card_id))


def _action_limit_reached(s: GameState, e: ev.ActionLimitReached) -> GameState:
    return replace(s, turn=_turn(s, stage="action_limit"))


def _action_card_discarded(s: GameState, e: ev.ActionCardDiscarded) -> GameState:
    player = s.players[e.seat]
    players = _player(s, e.seat, tableau=_without(player.tableau, e.card_id),
                      used_actions=_without(player.used_actions, e.card_id))
    if e.was_unused:
        turn = _turn(s, stage="use_discarded_action", discarded_action=e.card_id)
    else:
        turn = _turn(s, stage="running")
    return replace(s, players=players, turn=turn, **_to_destination(s, (e.card_id,), e.destination))


def _claim_declined(s: GameState, e: ev.ClaimDeclined) -> GameState:
    return replace(s, turn=_card_done_if_played(s, e.card_id, stage="running"),
                   **_to_destination(s, (e.card_id,), e.destination))


def _discarded_action_answered(s: GameState, e: ev.DiscardedActionAnswered) -> GameState:
    return replace(s, turn=_turn(s, stage="running", discarded_action=""))


def _action_card_used(s: GameState, e: ev.ActionCardUsed) -> GameState:
    player = s.players[e.seat]
    players = _player(s, e.seat, used_actions=player.used_actions + (e.card_id,)) if e.via == "use_action" \
        else s.players
    frames = s.frames
    if e.via == "use_action":
        frames = _active(s, remaining=frames[-1].active.remaining - 1)  # type: ignore[union-attr]
    return replace(s, players=players, frames=frames)


def _action_card_restored(s: GameState, e: ev.ActionCardRestored) -> GameState:
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, used_actions=_without(player.used_actions, e.card_id)),
                   frames=_active(s, remaining=s.frames[-1].active.remaining - 1))  # type: ignore[union-attr]


def _ability_used(s: GameState, e: ev.AbilityUsed) -> GameState:
    assert s.turn is not None
    return replace(s, turn=replace(s.turn, once_used=s.turn.once_used + (e.card_id,)))


def _card_triggered(s: GameState, e: ev.CardTriggered) -> GameState:
    turn = s.turn
    if turn is None or not (e.once_per_turn or e.slot_resolution):
        return s
    if e.once_per_turn:
        turn = replace(turn, once_used=turn.once_used + (e.card_id,))
    if e.slot_resolution and e.slot_resolution not in turn.slot_gave:
        turn = replace(turn, slot_gave=turn.slot_gave + (e.slot_resolution,))
    return replace(s, turn=turn)


def _end_of_turn_offered(s: GameState, e: ev.EndOfTurnOffered) -> GameState:
    return replace(s, turn=_turn(s, stage="end_of_turn", end_offered=True))


def _turn_ended(s: GameState, e: ev.TurnEnded) -> GameState:
    return replace(s, turn=None)


def _cards_drawn_detail(s: GameState, e: ev.CardsDrawnDetail) -> GameState:
    return _take_from_deck(s, e.seat, e.card_ids)


def _frame_opened(s: GameState, e: ev.FrameOpened) -> GameState:
    frame = Frame(e.frame_id, e.source, e.parts, e.is_all, (False,) * len(e.parts), e.card_id, e.slot_id, e.root)
    turn = s.turn
    if turn is not None and e.source == "card":
        turn = replace(turn, card_frame=True)
    elif turn is not None and e.source == "slot":
        turn = replace(turn, slot_frame=True)
    return replace(s, frames=s.frames + (frame,), next_frame_id=e.frame_id + 1, turn=turn)


def _part_started(s: GameState, e: ev.PartStarted) -> GameState:
    node = unwrap(s.frames[-1].parts[e.part])
    return replace(s, frames=_top(s, active=ActivePart(e.part, node, repeat_count(node))))


def _option_chosen(s: GameState, e: ev.OptionChosen) -> GameState:
    choice = s.frames[-1].active.node  # type: ignore[union-attr]
    node = unwrap(choice.options[e.option])  # type: ignore[union-attr]
    return replace(s, frames=_active(s, node=node, remaining=repeat_count(node)))


def _part_ended(s: GameState, e: ev.PartEnded) -> GameState:
    top = s.frames[-1]
    return replace(s, frames=_top(s, resolved=_replace_at(top.resolved, e.part, True), active=None))


def _effect_ended(s: GameState, e: ev.EffectEnded) -> GameState:
    return replace(s, frames=s.frames[:-1])


def _built(s: GameState, e: ev.Built) -> GameState:
    player = s.players[e.seat]
    pieces = {**player.pieces, e.site: Piece(e.kind)}
    changes: dict[str, Any] = {"pieces": pieces, "res": sub(player.res, e.paid)}
    more: dict[str, Any] = {}
    turn = s.turn
    if e.kind == "tunnel":
        changes["network"] = network_of(content().boards[player.board], pieces)
        more["tunnels_left"] = s.tunnels_left - 1
        if turn is not None:
            turn = replace(turn, tunnels_built=turn.tunnels_built + 1)
    elif e.kind == "city_nonsym":
        more["white_left"] = s.white_left - 1
    elif e.kind == "city_sym" and s.purple_left is not None:
        more["purple_left"] = s.purple_left - 1
    frames = s.frames
    if frames and frames[-1].active is not None:
        active = frames[-1].active
        if isinstance(active.node, BuildUpgrade):
            frames = _active(s, remaining=active.remaining - 1, upgrade_site=e.site)
        else:
            frames = _active(s, remaining=active.remaining - 1)
    return replace(s, players=_set_player(s, e.seat, replace(player, **changes)), frames=frames, turn=turn, **more)


def _upgraded(s: GameState, e: ev.Upgraded) -> GameState:
    player = s.players[e.seat]
    pieces = {**player.pieces, e.site: Piece(player.pieces[e.site].kind, True)}
    frames = s.frames
    if frames and frames[-1].active is not None:
        active = frames[-1].active
        if isinstance(active.node, BuildUpgrade):
            frames = _active(s, upgrade_site="")
        else:
            frames = _active(s, remaining=active.remaining - 1)
    return replace(s, players=_player(s, e.seat, pieces=pieces, res=sub(player.res, e.paid)), frames=frames)


def _city_converted(s: GameState, e: ev.CityConverted) -> GameState:
    player = s.players[e.seat]
    pieces = {**player.pieces, e.site: Piece("city_sym")}
    purple = s.purple_left - 1 if s.purple_left is not None else None
    return replace(s, players=_player(s, e.seat, pieces=pieces, res=sub(player.res, e.paid)),
                   purple_left=purple, white_left=s.white_left + 1)


def _build_bonus_gained(s: GameState, e: ev.BuildBonusGained) -> GameState:
    if e.bonus == "fed_card":
        return s
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, res=add(player.res, Res(**{e.bonus: 1}))))


def _metropolis_gained(s: GameState, e: ev.MetropolisGained) -> GameState:
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, gained_metros=player.gained_metros + (e.tile_id,)),
                   box_metros=_without(s.box_metros, e.tile_id))


def _federation_advanced(s: GameState, e: ev.FederationAdvanced) -> GameState:
    player = _gain(s.players[e.seat], e.bonuses)
    player = replace(player, fed_space=e.to, points=player.points + e.overflow_points)
    stacks = tuple(
        tuple(x for x in stack if x != e.seat) + ((e.seat,) if space == e.to else ())
        for space, stack in zip((1, 2, 3, 4), s.fed_stacks, strict=False)
    )
    return replace(s, players=_set_player(s, e.seat, player), fed_stacks=stacks, round_fed_advanced=True)


def _special_taken(s: GameState, e: ev.SpecialTaken) -> GameState:
    player = s.players[e.seat]
    public = s.rules.known_special_hand_cards_public
    if e.route == "row":
        return replace(
            s, special_row=_replace_at(s.special_row, e.row_index - 1, ""),
            players=_player(s, e.seat, hand=player.hand + (e.card_id,),
                            public_hand=player.public_hand + ((e.card_id,) if public else ())))
    if e.route == "deck_top":
        return replace(
            s, special_deck=s.special_deck[1:], special_public=_without(s.special_public, e.card_id),
            special_private=tuple(x for x in s.special_private if x[0] != e.card_id),
            players=_player(s, e.seat, hand=player.hand + (e.card_id,),
                            public_hand=player.public_hand + ((e.card_id,) if public else ())))
    top = s.special_deck[0]  # draw3: the face-up top goes face down to the bottom
    return replace(s, special_deck=s.special_deck[1:] + (top,),
                   special_public=_without(s.special_public, top) + (top,))


def _special_draw_seen(s: GameState, e: ev.SpecialDrawSeen) -> GameState:
    gone = set(e.card_ids)
    return replace(s, special_deck=s.special_deck[len(e.card_ids):],
                   special_public=tuple(c for c in s.special_public if c not in gone),
                   special_private=tuple(x for x in s.special_private if x[0] not in gone),
                   frames=_active(s, drawn=e.card_ids))


def _special_draw3_detail(s: GameState, e: ev.SpecialDraw3Detail) -> GameState:
    player = s.players[e.seat]
    return replace(s, special_deck=s.special_deck + e.bottom,
                   special_private=s.special_private + tuple((c, e.seat) for c in e.bottom),
                   players=_player(s, e.seat, hand=player.hand + (e.kept,)),
                   frames=_active(s, drawn=()))


def _contract_claimed(s: GameState, e: ev.ContractClaimed) -> GameState:
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, contracts=player.contracts + (e.contract_id,)),
                   open_contracts=_without(s.open_contracts, e.contract_id))


def _tiles_returned(s: GameState, e: ev.TilesReturned) -> GameState:
    return replace(s, slots={}, clone_used=False)


def _federation_reset(s: GameState, e: ev.FederationReset) -> GameState:
    return replace(s, players=tuple(replace(p, fed_space=0) for p in s.players), fed_stacks=((), (), (), ()))


def _era_marker_advanced(s: GameState, e: ev.EraMarkerAdvanced) -> GameState:
    return replace(s, era_pos=e.pos)


def _solo_round_summary(s: GameState, e: ev.SoloRoundSummary) -> GameState:
    return replace(s, solo_advanced_last_round=e.advanced, round_fed_advanced=False)


def _solo_card_flipped(s: GameState, e: ev.SoloCardFlipped) -> GameState:
    return replace(s, era_deck=s.era_deck[1:], era_discard=s.era_discard + (e.card_id,))


def _solo_blockers_placed(s: GameState, e: ev.SoloBlockersPlaced) -> GameState:
    slots = dict(s.slots)
    for slot in e.slots:
        slots[slot] = slots.get(slot, ()) + (NEUTRAL,)
    return replace(s, slots=slots)


def _production_started(s: GameState, e: ev.ProductionStarted) -> GameState:
    if not e.option_seats:
        return s
    return replace(s, phase="production_options", prompt_seats=e.option_seats, answered=(),
                   production_choices=((),) * s.seats, turn=None)


def _production_option_chosen(s: GameState, e: ev.ProductionOptionChosen) -> GameState:
    return replace(s, production_choices=_replace_at(s.production_choices, e.seat, e.use_card_ids),
                   prompt_seats=tuple(x for x in s.prompt_seats if x != e.seat), answered=s.answered + (e.seat,))


def _production_resolved(s: GameState, e: ev.ProductionResolved) -> GameState:
    return replace(s, players=_set_player(s, e.seat, _gain(s.players[e.seat], e.totals)))


def _action_cards_restored(s: GameState, e: ev.ActionCardsRestored) -> GameState:
    return replace(s, players=tuple(replace(p, used_actions=()) for p in s.players))


def _cities_fed(s: GameState, e: ev.CitiesFed) -> GameState:
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, res=sub(player.res, Res(kelp=e.kelp_paid,
                                                                        biomatter=e.biomatter_paid)),
                                      points=max(0, player.points - e.points_lost)))


def _era_deck_removed(s: GameState, e: ev.EraDeckRemoved) -> GameState:
    return replace(s, buried=s.buried + s.era_deck, removed=s.removed + s.era_discard, era_deck=(), era_discard=())


def _era_started(s: GameState, e: ev.EraStarted) -> GameState:
    return replace(s, era=e.era, era_pos=e.pos)


def _final_purchases_started(s: GameState, e: ev.FinalPurchasesStarted) -> GameState:
    return replace(s, phase="final_purchases", prompt_seats=e.seats, answered=(), purchases=((),) * s.seats,
                   turn=None)


def _final_purchase_chosen(s: GameState, e: ev.FinalPurchaseChosen) -> GameState:
    return replace(s, purchases=_replace_at(s.purchases, e.seat, s.purchases[e.seat] + (Purchase(e.card_id, e.times),)))


def _final_purchases_done(s: GameState, e: ev.FinalPurchasesDone) -> GameState:
    return replace(s, prompt_seats=tuple(x for x in s.prompt_seats if x != e.seat), answered=s.answered + (e.seat,))


def _final_purchase(s: GameState, e: ev.FinalPurchase) -> GameState:
    player = s.players[e.seat]
    return replace(s, players=_player(s, e.seat, res=sub(player.res, e.paid)))


def _final_scored(s: GameState, e: ev.FinalScored) -> GameState:
    b = e.breakdown
    score = SeatScore(e.seat, b["track"], b["brown"], b["end_cards"], b["network"], b["resources"], b["total"],
                      b["rank"], b["tie_break_position"], b["connected_cities"])
    return replace(s, scores=s.scores + (score,))


def _game_ended(s: GameState, e: ev.GameEnded) -> GameState:
    return replace(s, phase="over", prompt_seats=(), turn=None, frames=(), tie_break_order=e.tie_break_order,
                   solo_result=e.solo_result)


HANDLERS: dict[type, Callable[[GameState, Any], GameState]] = {
    ev.GameStarted: _game_started,
    ev.BoardSideChosen: _board_side_chosen,
    ev.PlayOrderSet: _play_order_set,
    ev.FederationInitialized: _federation_initialized,
    ev.ResourcesGained: _resources_gained,
    ev.ResourcesPaid: _resources_paid,
    ev.BoardsAssigned: _boards_assigned,
    ev.MetropolisesDealt: _metropolises_dealt,
    ev.DeckShuffled: _deck_shuffled,
    ev.DeckReshuffled: _deck_reshuffled,
    ev.BoxContents: _box_contents,
    ev.SpecialsSetup: _specials_setup,
    ev.ContractsRevealed: _contracts_revealed,
    ev.CardsDealt: _noop,
    ev.CardsDealtDetail: _cards_dealt_detail,
    ev.KeepStarted: _keep_started,
    ev.CardsKept: _cards_kept,
    ev.CardsKeptDetail: _cards_kept_detail,
    ev.CardsDiscarded: _cards_discarded,
    ev.CardsDiscardedEarly: _cards_discarded,
    ev.RoundStarted: _round_started,
    ev.TurnStarted: _turn_started,
    ev.CloneUsed: _clone_used,
    ev.TilePlaced: _tile_placed,
    ev.CardPlayed: _card_played,
    ev.CardDiscarded: _card_discarded,
    ev.OrderChosen: _order_chosen,
    ev.BlockStarted: _block_started,
    ev.BlockEnded: _block_ended,
    ev.SpecialPaid: _special_paid,
    ev.SpecialDeclined: _special_declined,
    ev.CardClaimed: _card_claimed,
    ev.CardUnderBoard: _card_under_board,
    ev.ActionLimitReached: _action_limit_reached,
    ev.ActionCardDiscarded: _action_card_discarded,
    ev.ClaimDeclined: _claim_declined,
    ev.DiscardedActionAnswered: _discarded_action_answered,
    ev.ActionCardUsed: _action_card_used,
    ev.ActionCardRestored: _action_card_restored,
    ev.AbilityUsed: _ability_used,
    ev.CardTriggered: _card_triggered,
    ev.EndOfTurnOffered: _end_of_turn_offered,
    ev.TurnEnded: _turn_ended,
    ev.CardsDrawn: _noop,
    ev.CardsDrawnDetail: _cards_drawn_detail,
    ev.FrameOpened: _frame_opened,
    ev.PartStarted: _part_started,
    ev.OptionChosen: _option_chosen,
    ev.PartEnded: _part_ended,
    ev.EffectEnded: _effect_ended,
    ev.Built: _built,
    ev.Upgraded: _upgraded,
    ev.UpgradeSkipped: _noop,
    ev.CityConverted: _city_converted,
    ev.BuildBonusGained: _build_bonus_gained,
    ev.MetropolisConnected: _noop,
    ev.MetropolisGained: _metropolis_gained,
    ev.FederationAdvanced: _federation_advanced,
    ev.SpecialTaken: _special_taken,
    ev.SpecialDrawSeen: _special_draw_seen,
    ev.SpecialDraw3: _noop,
    ev.SpecialDraw3Detail: _special_draw3_detail,
    ev.SpecialRevealed: _noop,
    ev.SlotPerformed: _noop,
    ev.ContractClaimed: _contract_claimed,
    ev.TilesReturned: _tiles_returned,
    ev.FederationReset: _federation_reset,
    ev.EraMarkerAdvanced: _era_marker_advanced,
    ev.SoloRoundSummary: _solo_round_summary,
    ev.SoloCardFlipped: _solo_card_flipped,
    ev.SoloBlockersPlaced: _solo_blockers_placed,
    ev.ProductionStarted: _production_started,
    ev.ProductionOptionChosen: _production_option_chosen,
    ev.ProductionOptionsSet: _noop,
    ev.ProductionResolved: _production_resolved,
    ev.ActionCardsRestored: _action_cards_restored,
    ev.CitiesFed: _cities_fed,
    ev.EraDeckRemoved: _era_deck_removed,
    ev.EraStarted: _era_started,
    ev.FinalPurchasesStarted: _final_purchases_started,
    ev.FinalPurchaseChosen: _final_purchase_chosen,
    ev.FinalPurchasesDone: _final_purchases_done,
    ev.FinalPurchase: _final_purchase,
    ev.FinalScored: _final_scored,
    ev.GameEnded: _game_ended,
}


def evolve(state: GameState, event: Any) -> GameState:
    new = HANDLERS[type(event)](state, event)
    return replace(new, version=state.version + 1)
