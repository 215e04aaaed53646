"""The automatic effects ``decide`` resolves without a decision: gains and draws, Federation steps, the
permanent cards' triggers and government contracts, and building and upgrading with their bonuses and
triggers (§5.2, §6.4.6, §6.8, §6.15).  Everything emits through a ``Ctx``."""

from __future__ import annotations

from typing import Any, cast

from . import events as ev
from .board import (
    condition_holds,
    count_buildings,
    covers,
    geometry,
    has_city,
    metropolis_connected,
    per_times,
    upgrade_bags,
)
from .content import Yield, content
from .ctx import Ctx
from .effects import (
    BUILDING_KINDS,
    All,
    Effect,
    Fed,
    Gain,
    GainMetropolis,
    If,
    OnBuilt,
    OnFedAdvance,
    OnFedEnter,
    OnMetropolisConnected,
    OnSlotGave,
    OnTunnelsThisTurn,
    OnUpgraded,
    Per,
    Res,
    Trigger,
    parts_of,
)
from .state import GameState

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
    """§6.15: after a change of the active seat's board, claim every revealed contract it now meets (unless
    ``contracts_auto_claim`` is off: then the seat claims with ``claim_contract``)."""
    if not ctx.state.open_contracts or not ctx.state.rules.contracts_auto_claim:
        return
    for contract_id in content().contract_order:  # each checked after the rewards before it
        if contract_id in ctx.state.open_contracts and meets(ctx.state, seat, contract_id):
            claim_contract(ctx, seat, contract_id)


def meets(state: GameState, seat: int, contract_id: str) -> bool:
    player = state.players[seat]
    return all(condition_holds(player, cond) for cond in content().contracts[contract_id].requires)


def met_contracts(state: GameState, seat: int) -> list[str]:
    """The revealed, unclaimed contracts whose requirements ``seat`` meets now, in GC1...GC8 order."""
    return [c for c in content().contract_order if c in state.open_contracts and meets(state, seat, c)]


def claimable_contracts(state: GameState, seat: int) -> list[str]:
    """``contracts_auto_claim = false``: what ``seat`` may claim now, at any prompt of its own turn."""
    turn = state.turn
    if state.rules.contracts_auto_claim or state.phase != "turn" or turn is None or turn.seat != seat:
        return []
    return met_contracts(state, seat)


def claim_contract(ctx: Ctx, seat: int, contract_id: str) -> None:
    """The seat takes the contract and gains its reward at once (a trigger, §6.15); it is not replaced."""
    ctx.emit(ev.ContractClaimed(seat, contract_id))
    gain(ctx, seat, content().contracts[contract_id].reward, f"contract:{contract_id}")


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
        per = cast(Per, node)
        times = per_times(ctx.state.players[seat], per)
        if times:
            gain(ctx, seat, per.then, reason, root, times)
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
    bonus: str | None
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


def blue_tiles_in_box(state: GameState) -> list[str]:
    metros = content().metropolises
    return [t for t in state.box_metros if metros[t].colour == "blue"]


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
    """build_upgrade: upgrade the piece just built, at the usual cost, once the frames its triggers pushed are
    resolved; skipped when one of them upgraded it already (a structure is upgraded once) or spent what the
    upgrade costs (§6.5 RULING: the piece stays built)."""
    player = ctx.state.players[seat]
    piece = player.pieces[site]
    if piece.upgraded:
        ctx.emit(ev.UpgradeSkipped(seat, site, "already_upgraded"))
        return
    for bag in upgrade_bags(player, piece.kind, "usual"):
        if covers(player.res, bag):
            upgrade(ctx, seat, site, bag)
            return
    ctx.emit(ev.UpgradeSkipped(seat, site, "cannot_pay"))
