"""Rule queries over a state: availability of resources (§5.6), eligibility (§6.6, §6.9, §6.14),
performability (§6.21) and goal conditions (§3.2).  Pure functions, shared by decide, legal-command
enumeration and prompts, so they cannot disagree.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import cast

from benthic.rules.aquatica.content import Catalog, Location, catalog
from benthic.rules.aquatica.effects import (
    ACQUISITION_MODES,
    Buy,
    BuyOrConquer,
    Choice,
    Conquer,
    Effect,
    Empty,
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
)
from benthic.rules.aquatica.state import BoardLocation, Manta, Player, QueueItem, State

CAT: Catalog = catalog()


def head(state: State) -> QueueItem:
    """The effect being resolved."""
    return state.queue[0]


# --- board -------------------------------------------------------------------------------------
def remaining_depths(bl: BoardLocation) -> int:
    return len(CAT.locations[bl.location_id].depths) - bl.covered


def top_depth(bl: BoardLocation) -> Effect | None:
    depths = CAT.locations[bl.location_id].depths
    return depths[bl.covered] if bl.covered < len(depths) else None


def empty_slots(player: Player) -> list[int]:
    return [i for i, bl in enumerate(player.board) if bl is None]


def source_location(item: QueueItem) -> str | None:
    """§6.6 / §6.9: a Depth effect never targets its own Location."""
    return item.source.id if item.source.kind == "depth" else None


def raise_eligible(player: Player, source_location_id: str | None) -> list[tuple[int, int]]:
    """(slot, remaining Depths) of every Location a raise may target (§6.6)."""
    out = []
    for slot, bl in enumerate(player.board):
        if bl is not None and bl.location_id != source_location_id:
            left = remaining_depths(bl)
            if left > 0:
                out.append((slot, left))
    return out


def raise_allocations(eligible: list[tuple[int, int]], amount: int, split: bool) -> list[tuple[tuple[int, int], ...]]:
    """Every legal allocation (§6.6), in canonical form (pairs in slot order)."""
    if not split:
        return [((slot, min(amount, left)),) for slot, left in eligible]
    target = min(amount, sum(left for _, left in eligible))
    out: list[tuple[tuple[int, int], ...]] = []

    def extend(start: int, need: int, acc: tuple[tuple[int, int], ...]) -> None:
        if need == 0:
            out.append(acc)
            return
        for i in range(start, len(eligible)):
            slot, left = eligible[i]
            for steps in range(min(left, need), 0, -1):
                extend(i + 1, need - steps, (*acc, (slot, steps)))

    if target > 0:
        extend(0, target, ())
    return out


def score_eligible(player: Player, source_location_id: str | None) -> list[int]:
    return [
        slot for slot, bl in enumerate(player.board)
        if bl is not None and bl.location_id != source_location_id and remaining_depths(bl) == 0
    ]


def row_of(state: State, location_id: str) -> str | None:
    if location_id in state.top_row:
        return "top"
    if location_id in state.bottom_row:
        return "bottom"
    return None


def acquisition_cost(location: Location, mode: str, from_row: str) -> int:
    if mode == "buy":
        return location.coin_price
    discount = CAT.board.top_row_conquer_discount if from_row == "top" else 0
    return max(0, location.power_price - discount)


# --- resources (§5.6) --------------------------------------------------------------------------
def pool_for(state: State, resource: str, target_type: str | None) -> int:
    if resource == "coins":
        return state.pool_coins
    typed = sum(t.amount for t in state.pool_typed if t.location_type == target_type) if target_type else 0
    return state.pool_power + typed


def gain_matches(face: Effect, resource: str, target_type: str | None) -> bool:
    """A resource source for a payment of `resource` (type-specific power only for a Conquer of that type)."""
    return (
        isinstance(face, Gain)
        and face.resource == resource
        and (face.only_for_type is None or face.only_for_type == target_type)
    )


def manta_spent_for_payment(state: State, manta_id: str) -> bool:
    """§6.16: a Manta flips for a resource at most once per turn (any flip at all with `all`)."""
    if manta_id in state.resource_mantas_used:
        return True
    return state.rules.manta_once_per_turn == "all" and manta_id in state.effect_mantas_used


def payment_mantas(state: State, player: Player, resource: str, target_type: str | None) -> Iterator[Manta]:
    for manta in player.mantas:
        if (
            manta.ready
            and gain_matches(CAT.face(manta.kind), resource, target_type)
            and not manta_spent_for_payment(state, manta.id)
        ):
            yield manta


def _typed_power(effect: Effect | None) -> bool:
    return isinstance(effect, Gain) and effect.resource == "power" and effect.only_for_type is not None


def chain_exempt(state: State, bl: BoardLocation, payment_depths: tuple[str, ...]) -> bool:
    """§9.1 `grabber_typed_chain` ([FAQ] #41): during a Main action of a card with two Conquers (The
    Grabber), one Location may give a type-specific power Depth to each of the two payments."""
    if not state.rules.grabber_typed_chain or state.in_play is None or bl.location_id in payment_depths:
        return False
    conquers = sum(isinstance(e, Conquer) for e in CAT.card[state.in_play].effects)
    if conquers < 2 or state.resource_depth_used.count(bl.location_id) != 1 or bl.covered == 0:
        return False
    depths = CAT.locations[bl.location_id].depths
    return _typed_power(depths[bl.covered - 1]) and _typed_power(top_depth(bl))


def depth_usable_for_payment(
    state: State, bl: BoardLocation, resource: str, target_type: str | None, payment_depths: tuple[str, ...] = ()
) -> bool:
    if not gain_matches(top_depth(bl) or Empty(), resource, target_type):
        return False
    return bl.location_id not in state.resource_depth_used or chain_exempt(state, bl, payment_depths)


def avail(
    state: State, seat: int, resource: str, target_type: str | None,
    payment_depths: tuple[str, ...] = (), without_manta: str | None = None,
) -> int:
    """§5.6 maximum available: pool + usable resource Mantas + (Main action only) usable resource Depths,
    with the Wild Manta a last Depth would bring.  Bonus Mantas are capped by the reserve, so a `pay`
    prompt can never dead-end (the spec's formula counts one per Location; equal with the proposed data)."""
    player = state.players[seat]
    total = pool_for(state, resource, target_type)
    total += sum(
        cast(Gain, CAT.face(m.kind)).amount for m in payment_mantas(state, player, resource, target_type)
        if m.id != without_manta
    )
    if state.stage != "main":
        return total
    bonus: dict[str, int] = {}
    for bl in player.board:
        if bl is None or not depth_usable_for_payment(state, bl, resource, target_type, payment_depths):
            continue
        total += top_depth(bl).amount  # type: ignore[union-attr]
        kind = CAT.locations[bl.location_id].wild_manta
        if kind is not None and remaining_depths(bl) == 1:
            face = CAT.face(kind)
            if isinstance(face, Gain) and face.resource == resource and face.only_for_type is None:
                bonus[kind] = bonus.get(kind, 0) + 1
    for kind, count in bonus.items():
        total += min(count, state.wild_reserve[CAT.wild_index[kind]]) * CAT.face(kind).amount  # type: ignore[union-attr]
    return total


def affordable_acquisitions(state: State, seat: int, modes: tuple[str, ...]) -> list[tuple[str, str, str, int]]:
    """(location_id, mode, from_row, cost) of every Location affordable now by an allowed mode (§6.2-§6.4)."""
    out = []
    cache: dict[tuple[str, str | None], int] = {}
    for from_row, row in (("top", state.top_row), ("bottom", state.bottom_row)):
        for location_id in row:
            location = CAT.locations[location_id]
            for mode in modes:
                resource, target = ("coins", None) if mode == "buy" else ("power", location.type)
                key = (resource, target)
                if key not in cache:
                    cache[key] = avail(state, seat, resource, target)
                cost = acquisition_cost(location, mode, from_row)
                if cost <= cache[key]:
                    out.append((location_id, mode, from_row, cost))
    return out


def payment_reachable(state: State, seat: int, without_manta: str | None = None) -> bool:
    """The open payment can still be completed (optionally without one Manta)."""
    payment = state.payment
    assert payment is not None
    sources = avail(state, seat, payment.resource, payment.target_type, payment.depths_used, without_manta)
    return sources + payment.committed >= payment.cost


def acquisition_choices(s: State, seat: int) -> list[tuple[str, int, str]]:
    """(location_id, slot, mode) of every legal `acquire` for the head effect (R18 counts them)."""
    modes = ACQUISITION_MODES[type(head(s).effect)]
    slots = [i for i, bl in enumerate(s.players[seat].board) if bl is None]
    return [(location_id, slot, mode) for location_id, mode, _, _ in affordable_acquisitions(s, seat, modes)
            for slot in slots]


def recruit_choices(s: State, seat: int) -> list[int]:
    """The row slots a `recruit` of the head effect may take."""
    effect = head(s).effect
    assert isinstance(effect, Recruit)
    coins = None if effect.free else avail(s, seat, "coins", None)
    return [slot for slot, card in enumerate(s.character_row)
            if card is not None and (coins is None or CAT.row_cost(slot) <= coins)]

def payment_due(state: State) -> int:
    payment = state.payment
    assert payment is not None
    return payment.cost - pool_for(state, payment.resource, payment.target_type) - payment.committed


# --- opponents (§6.14) ---------------------------------------------------------------------------
def opponents(state: State) -> list[int]:
    """The other seats, in turn order from the active seat's left."""
    n = state.seats
    return [(state.active_seat + k) % n for k in range(1, n)]


def discard_eligible(state: State, seat: int) -> list[str]:
    hand = state.players[seat].hand
    if state.rules.matrona_never_discarded:
        return [c for c in hand if c not in CAT.matrona_ids]
    return list(hand)


def pending_opponents(state: State, effect: Effect) -> list[int]:
    """Opponents affected by the head's opponent effect who have not answered yet."""
    out = []
    for seat in opponents(state):
        if seat in state.answered:
            continue
        if isinstance(effect, OpponentsDiscard):
            if discard_eligible(state, seat):
                out.append(seat)
        elif raise_eligible(state.players[seat], None):
            out.append(seat)
    return out


# --- performability (§6.21) ----------------------------------------------------------------------
def skip_reason(state: State, item: QueueItem) -> str | None:
    """None when the effect can be performed at least in part, else why it is skipped."""
    effect, seat = item.effect, item.owner
    player = state.players[seat]
    if isinstance(effect, (Buy, Conquer, BuyOrConquer)):
        if not empty_slots(player):
            return "board_full"
        if not affordable_acquisitions(state, seat, ACQUISITION_MODES[type(effect)]):
            return "nothing_affordable"
        return None
    if isinstance(effect, Recruit):
        return None if any(state.character_row) else "row_empty"
    if isinstance(effect, (Raise, FullyRise)):
        return None if raise_eligible(player, source_location(item)) else "nothing_to_raise"
    if isinstance(effect, Score):
        return None if score_eligible(player, source_location(item)) else "nothing_to_score"
    if isinstance(effect, Scout):
        if state.rules.scout_rule == "first" and len(state.bottom_row) > CAT.board.top_row_size:
            return "scout_not_allowed"
        return None
    if isinstance(effect, (TakeBack, ReplayFromDiscard)):
        return None if player.discard else "discard_empty"
    if isinstance(effect, ReadyAllMantas):
        if item.source.kind == "card" or any(not m.ready for m in player.mantas):
            return None
        return "no_tired_manta"
    if isinstance(effect, Choice):
        return None if performable_options(state, item) else "no_performable_option"
    if isinstance(effect, (OpponentsDiscard, OpponentsRaise)):
        if state.seats == 1:
            return "no_opponents"
        return None if pending_opponents(state, effect) else "no_opponent_affected"
    if isinstance(effect, Empty):
        return "empty_depth"
    return None  # gain (from a card), take_back_all


def performable_options(state: State, item: QueueItem) -> list[int]:
    effect = item.effect
    assert isinstance(effect, Choice)
    return [
        index for index, option in enumerate(effect.options)
        if any(skip_reason(state, QueueItem(e, item.source, item.owner)) is None for e in option)
    ]


# --- goals (§3.2 conditions, §6.17) --------------------------------------------------------------
def goal_met(state: State, seat: int, goal_id: str) -> bool:
    condition = CAT.goals[goal_id].condition
    kind, n = condition.kind, condition.n
    p = state.players[seat]
    board = [bl for bl in p.board if bl is not None]
    if kind == "hand_size_at_least":
        return len(p.hand) >= n
    if kind == "hand_size_at_most":
        return len(p.hand) <= n
    if kind == "discard_size_at_least":
        return len(p.discard) >= n
    if kind == "same_type_at_least":
        counts: dict[str, int] = {}
        for location_id in [bl.location_id for bl in board] + list(p.scored):
            t = CAT.locations[location_id].type
            counts[t] = counts.get(t, 0) + 1
        return max(counts.values(), default=0) >= n
    if kind == "board_locations_at_least":
        return len(board) >= n
    if kind == "locations_total_at_least":
        return len(board) + len(p.scored) >= n
    if kind == "scored_count_at_least":
        return len(p.scored) >= n
    if kind == "scored_prosperity_at_least":
        return sum(CAT.locations[x].prosperity for x in p.scored) >= n
    if kind == "scored_distinct_types_at_least":
        return len({CAT.locations[x].type for x in p.scored}) >= n
    if kind == "fully_risen_on_board_at_least":
        return sum(remaining_depths(bl) == 0 for bl in board) >= n
    if kind == "tired_mantas_in_reserve_at_least":
        return sum(not m.ready for m in p.mantas) >= n
    if kind == "mantas_in_reserve_at_least":
        return len(p.mantas) >= n
    if kind == "wild_mantas_at_least":
        return wild_mantas_owned(state, seat) >= n
    if kind == "conquer_cards_at_least":
        return sum(c in CAT.conquer_cards for c in p.hand + p.discard) >= n
    assert kind == "recruited_paying_at_least"
    return p.max_paid_recruit_cost is not None and p.max_paid_recruit_cost >= n


def wild_mantas_owned(state: State, seat: int) -> int:
    """Wild Mantas never leave their owner and never go to a track, so they are all in the reserve."""
    return sum(m.kind in CAT.wild_index for m in state.players[seat].mantas)


def goals_claimed_by(state: State, seat: int) -> list[int]:
    return [g for g, track in enumerate(state.tracks) if any(spot.seat == seat for spot in track)]
