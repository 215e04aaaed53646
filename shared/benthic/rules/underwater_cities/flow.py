"""The automatic machinery ``decide`` runs: gains and draws, building with its bonuses and triggers, the
effect-frame stack (§5.2), the turn, round, Production and era sequences (§5.3), and ``settle``, which
advances the game after a command until the next decision.

Everything here emits events through a ``Ctx``: each event is folded into ``ctx.state`` at once, so the
code always reads the state as the events so far have made it."""

from __future__ import annotations

import random
from typing import Any

from benthic.rules import emitter

from . import events as ev
from .board import (
    condition_holds,
    count_buildings,
    covers,
    geometry,
    has_city,
    metropolis_connected,
    per_times,
    scaled,
    sub,
    upgrade_bags,
)
from .content import Yield, content
from .effects import (
    BUILDING_KINDS,
    Ability,
    All,
    Build,
    BuildUpgrade,
    BuyScore,
    Effect,
    Fed,
    Gain,
    GainMetropolis,
    If,
    Modifier,
    OnBuilt,
    OnFedAdvance,
    OnFedEnter,
    OnMetropolisConnected,
    OnSlotGave,
    OnTunnelsThisTurn,
    OnUpgraded,
    Per,
    Res,
    RestoreAction,
    Trigger,
    Upgrade,
    UseAction,
    parts_of,
)
from .events import Event
from .evolve import evolve, unwrap
from .production import feeding, production_of
from .scoring import final_breakdowns
from .state import Frame, GameState
from .usability import (
    action_cards,
    blue_tiles_in_box,
    hand_limit,
    side_slots,
    slot_parts,
    usable,
)

PASSES_PER_ROUND = 3


class Ctx(emitter.Emitter[GameState, Event]):
    """The shared emitter (``benthic.rules.emitter``) with the trigger frames still to push (§5.2)."""

    __slots__ = ("pending",)

    def __init__(self, state: GameState, rng: random.Random | None = None) -> None:
        super().__init__(state, evolve, rng)
        self.pending: list[tuple[str, tuple[Effect, ...], bool, str]] = []


# --- where cards go -----------------------------------------------------------------------------------------

def discard_destination(state: GameState, card_id: str) -> str:
    """§6.2 / §6.3 / §5.3 P1: one-/two-credit Special → bottom of the special deck; three-credit → box;
    Personal Assistant → removed; era card of the current era → discard pile; of a past era → removed."""
    card = content().cards[card_id]
    if card.deck == "special":
        return "special_bottom" if card.tier == "one_two" else "box"
    if card.era == state.era:
        return "era_discard"
    return "removed"


def discard_groups(state: GameState, card_ids: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    groups: dict[str, list[str]] = {}
    for card_id in card_ids:
        groups.setdefault(discard_destination(state, card_id), []).append(card_id)
    return [(dest, tuple(ids)) for dest, ids in groups.items()]


# --- gains, draws, Federation -------------------------------------------------------------------------------

def gain(ctx: Ctx, seat: int, node: Gain, reason: str, root: int = 0, times: int = 1) -> None:
    y = Yield(node.credit * times, node.kelp * times, node.steelplast * times, node.science * times,
              node.biomatter * times, node.points * times)
    if y != Yield():
        ctx.emit(ev.ResourcesGained(seat, y, reason))
    if node.cards:
        draw(ctx, seat, node.cards * times, reason)
    if root and y.steelplast:
        slot_gave(ctx, seat, root, "steelplast")


def gain_yield(ctx: Ctx, seat: int, y: Yield, reason: str) -> None:
    if y != Yield():
        ctx.emit(ev.ResourcesGained(seat, y, reason))


def draw(ctx: Ctx, seat: int, n: int, reason: str) -> None:
    """Draw from the current era deck; an empty deck is rebuilt from its discard pile (§6.9, RULING 16)."""
    drawn = 0
    while drawn < n:
        deck = ctx.state.era_deck
        if not deck:
            pile = list(ctx.state.era_discard)
            if not pile:
                break
            ctx.rng.shuffle(pile)
            ctx.emit(ev.DeckReshuffled(f"era{ctx.state.era}", tuple(pile)))
            continue
        take = deck[: n - drawn]
        ctx.emit(ev.CardsDrawnDetail(seat, take))
        drawn += len(take)
    if drawn:
        ctx.emit(ev.CardsDrawn(seat, drawn, reason))


def federation(ctx: Ctx, seat: int, steps: int) -> None:
    """§6.8: one space at a time, gaining each entered space's bonus; each step from space 1 is 1 point."""
    info = content().info.federation
    start = pos = ctx.state.players[seat].fed_space
    entered: list[int] = []
    bonus = Yield()
    overflow = 0
    for _ in range(steps):
        if pos == 1:
            overflow += info.overflow_points
            continue
        pos = 4 if pos == 0 else pos - 1
        entered.append(pos)
        b = info.enter_bonus[str(pos)]
        bonus = Yield(bonus.credit + b.credit, bonus.kelp + b.kelp, bonus.steelplast + b.steelplast,
                      bonus.science + b.science, bonus.biomatter + b.biomatter, bonus.points + b.points)
    ctx.emit(ev.FederationAdvanced(seat, start, pos, steps, tuple(entered), bonus, overflow))
    for space in entered:
        fire(ctx, seat, lambda on, space=space: isinstance(on, OnFedEnter) and on.space == space)
    fire(ctx, seat, lambda on: isinstance(on, OnFedAdvance))


# --- triggers (permanent cards), contracts ------------------------------------------------------------------

def fire(ctx: Ctx, seat: int, matches: Any, root: int = 0) -> None:
    """Fire the seat's permanent `on(...)` cards whose event ``matches``, in claim order (§5.2)."""
    state = ctx.state
    cards = content().cards
    used = state.turn.once_used if state.turn is not None else ()
    for card_id in state.players[seat].tableau:
        perm = cards[card_id].permanent
        if not isinstance(perm, Trigger) or not matches(perm.on):
            continue
        if perm.once_per_turn and card_id in used:
            continue
        ctx.emit(ev.CardTriggered(seat, card_id, perm.once_per_turn, root))
        resolve_or_queue(ctx, seat, perm.effect, "trigger", card_id)


def slot_gave(ctx: Ctx, seat: int, root: int, res: str) -> None:
    """`slot_gave(steelplast)`: once per slot resolution whose own gain parts gave the resource."""
    turn = ctx.state.turn
    if turn is None or root in turn.slot_gave:
        return
    fire(ctx, seat, lambda on: isinstance(on, OnSlotGave) and on.res == res, root=root)


def check_contracts(ctx: Ctx, seat: int) -> None:
    """§6.15: after a change of the active seat's board, claim every revealed contract it now meets."""
    state = ctx.state
    if not state.open_contracts:
        return
    contracts = content().contracts
    player = state.players[seat]
    for contract_id in content().contract_order:
        if contract_id not in ctx.state.open_contracts:
            continue
        contract = contracts[contract_id]
        if all(condition_holds(player, cond) for cond in contract.requires):
            ctx.emit(ev.ContractClaimed(seat, contract_id))
            gain(ctx, seat, contract.reward, f"contract:{contract_id}")
            player = ctx.state.players[seat]


# --- automatic nodes ----------------------------------------------------------------------------------------

def is_automatic(node: Effect) -> bool:
    """Resolved without any decision: gains, Federation steps, metropolis gain, counted and conditional
    gains, and `all` of those."""
    t = type(node)
    if t is Gain or t is Fed or t is GainMetropolis or t is Per:
        return True
    if t is If:
        return is_automatic(node.then)  # type: ignore[union-attr]
    if t is All:
        return all(is_automatic(p) for p in node.parts)  # type: ignore[union-attr]
    return False


def resolve_now(ctx: Ctx, seat: int, node: Effect, reason: str, root: int = 0) -> None:
    t = type(node)
    if t is Gain:
        gain(ctx, seat, node, reason, root)  # type: ignore[arg-type]
    elif t is Fed:
        federation(ctx, seat, node.steps)  # type: ignore[union-attr]
    elif t is GainMetropolis:
        gain_metropolis(ctx, seat)
    elif t is Per:
        times = per_times(ctx.state.players[seat], node)  # type: ignore[arg-type]
        if times:
            gain(ctx, seat, node.then, reason, root, times)  # type: ignore[union-attr]
    elif t is If:
        if condition_holds(ctx.state.players[seat], node.cond):  # type: ignore[union-attr]
            resolve_now(ctx, seat, node.then, reason, root)  # type: ignore[union-attr]
    elif t is All:
        for part in node.parts:  # type: ignore[union-attr]
            resolve_now(ctx, seat, part, reason, root)
    else:
        raise TypeError(f"{node!r} needs decisions")


def resolve_or_queue(ctx: Ctx, seat: int, node: Effect, source: str, card_id: str) -> None:
    """A trigger: automatic effects apply at once; one needing a decision gets a frame on top (§5.2)."""
    if is_automatic(node):
        resolve_now(ctx, seat, node, f"{source}:{card_id}")
    else:
        ctx.pending.append((source, *parts_of(node), card_id))


# --- building, upgrading, metropolises -----------------------------------------------------------------------

def build(ctx: Ctx, seat: int, kind: str, site: str, paid: Res) -> None:
    """One placement and everything it triggers, in the order of §6.4.6."""
    ctx.emit(ev.Built(seat, kind, site, paid))
    player = ctx.state.players[seat]
    geom = geometry(player)
    site_kind = geom.site_kind[site]
    if site_kind == "city":
        bonus = geom.city_bonus[site]
    elif site_kind == "tunnel":
        bonus = geom.tunnels[site].bonus
    else:
        bonus = geom.buildings[site].bonus
    if bonus:
        ctx.emit(ev.BuildBonusGained(seat, site, bonus))
        if bonus == "fed_card":
            federation(ctx, seat, 1)
            draw(ctx, seat, 1, "fed_card")
    if site_kind == "city" and geom.city_special[site] == "city_points6":
        gain_yield(ctx, seat, Yield(points=content().info.city_points6_points), "city_points6")
    connected: list[str] = []
    if kind == "tunnel":
        space = geom.tunnels[site].metropolis
        if space is not None and metropolis_connected(geom, ctx.state.players[seat].pieces, space):
            tile = ctx.state.players[seat].metros[space]
            ctx.emit(ev.MetropolisConnected(seat, space, tile))
            metropolis_instant(ctx, seat, tile)
            connected.append(tile)
    fire(ctx, seat, lambda on: isinstance(on, OnBuilt) and kind in on.kinds
         and (on.nth_at_connected_city is None or _nth_at_city(ctx.state, seat, kind, site, False)
              == on.nth_at_connected_city))
    turn = ctx.state.turn
    if kind == "tunnel" and turn is not None:
        n = turn.tunnels_built
        fire(ctx, seat, lambda on: isinstance(on, OnTunnelsThisTurn) and on.n == n)
    for _ in connected:
        fire(ctx, seat, lambda on: isinstance(on, OnMetropolisConnected))
    check_contracts(ctx, seat)


def _nth_at_city(state: GameState, seat: int, kind: str, site: str, upgraded: bool) -> int:
    """How many pieces of ``kind`` (upgraded ones if ``upgraded``) the city of building site ``site`` now
    has, or -1 when the site is not a building site of a connected city."""
    player = state.players[seat]
    geom = geometry(player)
    info = geom.buildings.get(site)
    if info is None or kind not in BUILDING_KINDS:
        return -1
    if info.city not in player.network or not has_city(player.pieces, info.city):
        return -1
    return count_buildings(geom, player, kind, True if upgraded else None, city=info.city)


def upgrade(ctx: Ctx, seat: int, site: str, paid: Res) -> None:
    ctx.emit(ev.Upgraded(seat, site, paid))
    kind = ctx.state.players[seat].pieces[site].kind
    fire(ctx, seat, lambda on: isinstance(on, OnUpgraded) and kind in on.kinds
         and (on.nth_upgraded_at_connected_city is None
              or _nth_at_city(ctx.state, seat, kind, site, True) == on.nth_upgraded_at_connected_city))
    check_contracts(ctx, seat)


def metropolis_instant(ctx: Ctx, seat: int, tile: str) -> None:
    instant = content().metropolises[tile].instant
    if instant is not None:
        resolve_or_queue(ctx, seat, instant, "metropolis", tile)


def gain_metropolis(ctx: Ctx, seat: int) -> None:
    tiles = blue_tiles_in_box(ctx.state)
    if not tiles:
        return
    tile = tiles[ctx.rng.randrange(len(tiles))]
    ctx.emit(ev.MetropolisGained(seat, tile))
    metropolis_instant(ctx, seat, tile)
    fire(ctx, seat, lambda on: isinstance(on, OnMetropolisConnected))
    check_contracts(ctx, seat)


def simulate_build(state: GameState, seat: int, kind: str, site: str, paid: Res) -> GameState:
    """The state after a build and its automatic triggers (for build_upgrade validation, RULING 9.2.11)."""
    ctx = Ctx(state)
    build(ctx, seat, kind, site, paid)
    return ctx.state


def pending_upgrade(ctx: Ctx, seat: int, site: str) -> None:
    """build_upgrade: upgrade the piece just built, at the usual cost, if it can still be paid."""
    player = ctx.state.players[seat]
    kind = player.pieces[site].kind
    for bag in upgrade_bags(player, kind, "usual"):
        if covers(player.res, bag):
            upgrade(ctx, seat, site, bag)
            return


# --- frames -------------------------------------------------------------------------------------------------

def open_frame(ctx: Ctx, seat: int, source: str, parts: tuple[Effect, ...], is_all: bool, card_id: str = "",
               slot_id: str = "", root: int | None = None) -> int:
    frame_id = ctx.state.next_frame_id
    if root is None:
        root = frame_id if source in ("slot", "performed_slot") else 0
    ctx.emit(ev.FrameOpened(frame_id, seat, source, parts, is_all, card_id, slot_id, root))
    return frame_id


def flush_pending(ctx: Ctx, seat: int) -> None:
    """Push queued trigger frames so that the first one fired ends on top."""
    if not ctx.pending:
        return
    pending, ctx.pending = ctx.pending, []
    for source, parts, is_all, card_id in reversed(pending):
        open_frame(ctx, seat, source, parts, is_all, card_id=card_id, root=0)


def start_part(ctx: Ctx, seat: int, frame: Frame, index: int) -> None:
    """Begin a part: automatic nodes resolve, composite ones get a child frame, the rest a sub-prompt."""
    node = unwrap(frame.parts[index])
    begin_node(ctx, seat, frame, index, node, started=False)


def begin_node(ctx: Ctx, seat: int, frame: Frame, index: int, node: Effect, started: bool) -> None:
    if is_automatic(node):
        resolve_now(ctx, seat, node, _reason(frame), frame.root)
        ctx.emit(ev.PartEnded(frame.id, index))
    elif isinstance(node, All):
        ctx.emit(ev.PartEnded(frame.id, index))
        open_frame(ctx, seat, frame.source, node.parts, True, frame.card_id, frame.slot_id, frame.root)
    elif not started:
        ctx.emit(ev.PartStarted(frame.id, index))


def _reason(frame: Frame) -> str:
    if frame.card_id:
        return f"{frame.source}:{frame.card_id}"
    if frame.slot_id:
        return f"{frame.source}:{frame.slot_id}"
    return frame.source


def step_frame(ctx: Ctx, seat: int) -> bool:
    """Advance the top frame by itself if it can; False when it waits for the seat."""
    state = ctx.state
    top = state.frames[-1]
    active = top.active
    if active is not None:
        node = active.node
        if isinstance(node, BuildUpgrade):
            if active.upgrade_site:
                pending_upgrade(ctx, seat, active.upgrade_site)
                ctx.emit(ev.PartEnded(top.id, active.part))
                return True
            if active.remaining <= 0:
                ctx.emit(ev.PartEnded(top.id, active.part))
                return True
            return False
        # build repeats while pieces remain and a legal build exists; upgrade / use / restore repeat up to n
        # (§5.3 P9.2-P9.5), the seat may always stop with `done`.
        if isinstance(node, (Build, Upgrade, UseAction, RestoreAction)):
            if active.remaining <= 0 or (isinstance(node, Build) and not usable(state, seat, node)):
                ctx.emit(ev.PartEnded(top.id, active.part))
                return True
        return False
    unresolved = [i for i, done in enumerate(top.resolved) if not done]
    for i in unresolved:
        node = top.parts[i]
        if type(node) in (Gain, Fed, GainMetropolis):
            resolve_now(ctx, seat, node, _reason(top), top.root)
            ctx.emit(ev.PartEnded(top.id, i))
            return True
    usable_parts = [i for i in unresolved if usable(state, seat, top.parts[i])]
    if not usable_parts:
        ctx.emit(ev.EffectEnded(top.id, tuple(unresolved)))
        return True
    if all(is_automatic(top.parts[i]) for i in usable_parts):
        start_part(ctx, seat, top, usable_parts[0])
        return True
    if not top.is_all:
        start_part(ctx, seat, top, 0)
        return True
    return False


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
        if usable_abilities(state, seat):
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
    if not turn.end_offered and usable_abilities(state, seat):
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

