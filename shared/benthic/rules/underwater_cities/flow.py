"""The sequence of play ``decide`` runs after a command: the turn, round, Production and era sequences
(§5.3), final purchases and scoring, and ``settle``, which advances the game until the next decision.
Automatic effects are in ``resolve``, the effect-frame stack in ``frames``.

Everything here emits events through a ``Ctx``: each event is folded into ``ctx.state`` at once, so the
code always reads the state as the events so far have made it."""

from __future__ import annotations

from . import events as ev
from .board import covers, scaled, sub
from .content import content
from .ctx import Ctx
from .discards import discard_destination, discard_groups
from .effects import Ability, BuyScore, Modifier, Res, parts_of
from .frames import flush_pending, open_frame, step_frame
from .production import feeding, production_of
from .resolve import claimable_contracts, draw
from .scoring import final_breakdowns
from .state import GameState
from .usability import action_cards, hand_limit, side_slots, slot_parts, usable

PASSES_PER_ROUND = 3


# --- the turn -----------------------------------------------------------------------------------------------

def usable_abilities(state: GameState, seat: int) -> list[str]:
    """Claimed `ability` permanents not used this turn whose effect is usable now."""
    cards = content().cards
    used = state.turn.once_used if state.turn is not None else ()
    found = []
    for card_id in state.players[seat].tableau:
        perm = cards[card_id].permanent
        if isinstance(perm, Ability) and not (perm.once_per_turn and card_id in used):
            if usable(state, seat, perm.effect):
                found.append(card_id)
    return found


def step_turn(ctx: Ctx) -> bool:
    state = ctx.state
    turn = state.turn
    assert turn is not None
    seat = turn.seat
    if turn.stage == "end_of_turn":
        if usable_abilities(state, seat) or claimable_contracts(state, seat):
            return False
        end_turn(ctx)
        return True
    if turn.stage != "running":
        return False
    if turn.block == "card":
        if turn.card_done:
            ctx.emit(ev.BlockEnded(seat, "card"))
        else:
            advance_card_block(ctx, seat)
        return True
    if turn.block == "slot":
        if not turn.slot_frame:
            slot = side_slots(state)[turn.slot_id]
            parts, is_all = slot_parts(state.players[seat], slot)
            open_frame(ctx, seat, "slot", parts, is_all, slot_id=slot.id)
        else:
            ctx.emit(ev.BlockEnded(seat, "slot"))
        return True
    if turn.blocks:
        block = turn.blocks[0]
        special = block == "card" and content().cards[turn.card_id].is_special
        ctx.emit(ev.BlockStarted(seat, block, special))
        return True
    if not turn.end_offered and (usable_abilities(state, seat) or claimable_contracts(state, seat)):
        ctx.emit(ev.EndOfTurnOffered(seat))
        return True
    end_turn(ctx)
    return True


def advance_card_block(ctx: Ctx, seat: int) -> None:
    """Card block of a matched card (§5.3 P3): instant → its frame, then its destination; other types are
    claimed (an action card beyond the limit of four prompts action_limit)."""
    state = ctx.state
    turn = state.turn
    assert turn is not None
    card = content().cards[turn.card_id]
    if card.type == "instant":
        if not turn.card_frame:
            assert card.effect is not None
            open_frame(ctx, seat, "card", *parts_of(card.effect), card_id=card.id)
        elif card.is_special:
            ctx.emit(ev.CardUnderBoard(seat, card.id))
        else:
            ctx.emit(ev.CardDiscarded(seat, card.id, discard_destination(state, card.id)))
    elif card.type == "action" and len(action_cards(state.players[seat])) >= content().info.supply.action_card_limit:
        ctx.emit(ev.ActionLimitReached(seat, card.id))
    else:
        ctx.emit(ev.CardClaimed(seat, card.id))


def end_turn(ctx: Ctx) -> None:
    turn = ctx.state.turn
    assert turn is not None
    draw(ctx, turn.seat, 1, "end_of_turn")
    ctx.emit(ev.TurnEnded(turn.seat))
    index, pass_no = turn.order_index + 1, turn.pass_no
    if index >= len(turn_order(ctx.state)):
        index, pass_no = 0, pass_no + 1
    if pass_no >= PASSES_PER_ROUND:
        round_end(ctx)
    else:
        start_turn(ctx, index, pass_no)


def turn_order(state: GameState) -> tuple[int, ...]:
    """The play order (solo has none: the single seat)."""
    return state.play_order or tuple(range(state.seats))


def start_turn(ctx: Ctx, index: int, pass_no: int) -> None:
    state = ctx.state
    seat = turn_order(state)[index]
    player = state.players[seat]
    ctx.emit(ev.TurnStarted(seat, state.round, pass_no, index, len(player.hand) > hand_limit(player)))


def start_round(ctx: Ctx, round_no: int) -> None:
    ctx.emit(ev.RoundStarted(round_no))
    if ctx.state.seats == 1:
        solo_blockers(ctx, round_no)
    start_turn(ctx, 0, 0)


def solo_blockers(ctx: Ctx, round_no: int) -> None:
    """§5.3 ROUND_START (solo): one neutral tile per colour on ordinal ((r−1) mod 5)+1; a 4th one from the
    flipped era card if the player did not advance on the Federation track last round."""
    slots = side_slots(ctx.state)
    ordinal = (round_no - 1) % 5 + 1
    placed = [s.id for s in slots.values() if s.ordinal == ordinal]
    if round_no >= 2 and not ctx.state.solo_advanced_last_round:
        if not ctx.state.era_deck and ctx.state.era_discard:
            pile = list(ctx.state.era_discard)
            ctx.rng.shuffle(pile)
            ctx.emit(ev.DeckReshuffled(f"era{ctx.state.era}", tuple(pile)))
        if ctx.state.era_deck:
            card_id = ctx.state.era_deck[0]
            number = content().cards[card_id].number or 0
            ctx.emit(ev.SoloCardFlipped(card_id, number))
            index = (sum(int(d) for d in str(number)) - 1) % 15 + 1
            by_clockwise = {s.clockwise: s.id for s in slots.values() if s.clockwise is not None}
            for step in range(15):
                slot_id = by_clockwise[(index - 1 + step) % 15 + 1]
                if slot_id not in placed:
                    placed.append(slot_id)
                    break
    ctx.emit(ev.SoloBlockersPlaced(tuple(placed)))


def next_play_order(state: GameState) -> tuple[int, ...]:
    """§5.3 ROUND_END step 2: space 1 (top of the stack first), then 2, 3, 4, then the markers still below
    space 4 in their current relative order."""
    order: list[int] = []
    for stack in state.fed_stacks:
        order.extend(reversed(stack))
    order.extend(seat for seat in state.play_order if seat not in order)
    return tuple(order)


def round_end(ctx: Ctx) -> None:
    state = ctx.state
    ctx.emit(ev.TilesReturned(state.round))
    if state.seats > 1:
        ctx.emit(ev.PlayOrderSet(next_play_order(state), "federation"))
    ctx.emit(ev.FederationReset(state.round))
    track = content().info.era_track
    pos = state.era_pos + 1
    ctx.emit(ev.EraMarkerAdvanced(pos, track[pos]))
    if state.seats == 1:
        ctx.emit(ev.SoloRoundSummary(state.round, ctx.state.round_fed_advanced))
    if track[pos].startswith("P"):
        production(ctx)
    else:
        start_round(ctx, state.round + 1)


# --- Production, end of era, final scoring -------------------------------------------------------------------

def optional_production_cards(state: GameState, seat: int) -> list[str]:
    cards = content().cards
    return [c for c in state.players[seat].tableau
            if isinstance(cards[c].production, Modifier) and cards[c].production.optional]  # type: ignore[union-attr]


def production(ctx: Ctx) -> None:
    state = ctx.state
    seats = tuple(s for s in range(state.seats) if optional_production_cards(state, s))
    ctx.emit(ev.ProductionStarted(state.era, seats))
    if not seats:
        resolve_production(ctx)


def resolve_production(ctx: Ctx) -> None:
    state = ctx.state
    if state.phase == "production_options":
        for seat in range(state.seats):
            if optional_production_cards(state, seat):
                ctx.emit(ev.ProductionOptionsSet(seat, state.production_choices[seat]))
    for seat in range(state.seats):
        breakdown, totals = production_of(ctx.state, seat, ctx.state.production_choices[seat]
                                          if ctx.state.phase == "production_options" else ())
        ctx.emit(ev.ProductionResolved(seat, breakdown, totals))
    end_era(ctx)


def end_era(ctx: Ctx) -> None:
    state = ctx.state
    era = state.era
    if era < 3:
        ctx.emit(ev.ActionCardsRestored(era))
    for seat in range(state.seats):
        cities, kelp, bio, lost = feeding(ctx.state, seat)
        ctx.emit(ev.CitiesFed(seat, cities, kelp, bio, lost))
    ctx.emit(ev.EraDeckRemoved(era, len(ctx.state.era_deck), len(ctx.state.era_discard)))
    if era == 3:
        final_purchases(ctx)
        return
    ctx.emit(ev.EraStarted(era + 1, ctx.state.era_pos + 1))
    order = list(content().era_decks[era + 1])
    ctx.rng.shuffle(order)
    ctx.emit(ev.DeckShuffled(f"era{era + 1}", tuple(order)))
    for seat in range(state.seats):
        draw(ctx, seat, content().info.supply.era_draw, "era_start")
    start_keep(ctx)


def start_keep(ctx: Ctx) -> None:
    """P1 keep_cards for every seat above its hand limit; otherwise straight to the next round."""
    state = ctx.state
    seats = tuple(s for s in range(state.seats)
                  if len(state.players[s].hand) > hand_limit(state.players[s]))
    if seats:
        ctx.emit(ev.KeepStarted(seats, tuple(hand_limit(state.players[s]) for s in seats)))
    else:
        start_round(ctx, next_round(state))


def next_round(state: GameState) -> int:
    """After a keep step: round 1 after the opening keep, else the first round of the new era."""
    return 1 if state.era_pos == 0 else state.round + 1


def finish_keep(ctx: Ctx) -> None:
    """The last keep_cards answer: every prompted seat's other cards are discarded (public)."""
    state = ctx.state
    for seat in range(state.seats):
        kept = state.keep_choices[seat]
        if not kept:
            continue
        others = tuple(c for c in state.players[seat].hand if c not in kept)
        for destination, ids in discard_groups(ctx.state, others):
            ctx.emit(ev.CardsDiscarded(seat, ids, destination))
    start_round(ctx, next_round(ctx.state))


def buy_cards(state: GameState, seat: int) -> list[str]:
    cards = content().cards
    return [c for c in state.players[seat].tableau if isinstance(cards[c].end_scoring, BuyScore)]


def purchase_budget(state: GameState, seat: int) -> Res:
    """Resources left after the seat's (still hidden) final purchases."""
    res = state.players[seat].res
    cards = content().cards
    for purchase in state.purchases[seat]:
        res = sub(res, scaled(cards[purchase.card_id].end_scoring.cost, purchase.times))  # type: ignore[union-attr]
    return res


def bought_times(state: GameState, seat: int, card_id: str) -> int:
    return sum(p.times for p in state.purchases[seat] if p.card_id == card_id)


def can_buy(state: GameState, seat: int, card_id: str) -> bool:
    scoring = content().cards[card_id].end_scoring
    assert isinstance(scoring, BuyScore)
    return bought_times(state, seat, card_id) < scoring.max_times and covers(purchase_budget(state, seat),
                                                                            scoring.cost)


def final_purchases(ctx: Ctx) -> None:
    state = ctx.state
    seats = tuple(s for s in range(state.seats) if any(covers(state.players[s].res, content().cards[c]
                                                                .end_scoring.cost)  # type: ignore[union-attr]
                                                         for c in buy_cards(state, s)))
    if seats:
        ctx.emit(ev.FinalPurchasesStarted(seats))
    else:
        final_scoring(ctx)


def final_scoring(ctx: Ctx) -> None:
    state = ctx.state
    cards = content().cards
    for seat in range(state.seats):
        for purchase in state.purchases[seat]:
            scoring = cards[purchase.card_id].end_scoring
            assert isinstance(scoring, BuyScore)
            ctx.emit(ev.FinalPurchase(seat, purchase.card_id, purchase.times, scaled(scoring.cost, purchase.times),
                                      scoring.points * purchase.times))
    breakdowns, ranking, solo = final_breakdowns(ctx.state)
    for seat in range(state.seats):
        ctx.emit(ev.FinalScored(seat, breakdowns[seat]))
    ctx.emit(ev.GameEnded(ranking, ctx.state.play_order, solo))


# --- settle -------------------------------------------------------------------------------------------------

def settle(ctx: Ctx) -> None:
    """Advance until the game waits for a decision (or is over)."""
    while True:
        state = ctx.state
        if state.phase != "turn" or state.turn is None:
            return
        seat = state.turn.seat
        if ctx.pending:
            flush_pending(ctx, seat)
            continue
        if state.frames:
            if not step_frame(ctx, seat):
                return
        elif not step_turn(ctx):
            return

