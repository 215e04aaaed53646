"""The greedy bot's evaluation: the seat's final score if the game ended now, with resources valued as
building material rather than at the 4:1 end conversion, plus what the network, claimed cards and
metropolises will still produce in the Production phases to come, plus a small option value for the
effect parts the seat is still resolving (a one-step look-ahead otherwise never chooses a building slot
over the always-available slot's immediate gain)."""

from __future__ import annotations

from .content import content
from .effects import (
    Build,
    BuildUpgrade,
    Choice,
    ConvertCity,
    Effect,
    GainDistinct,
    PerformSlot,
    StructureProduction,
    TakeSpecial,
    Upgrade,
    UseAction,
)
from .production import production_of
from .scoring import seat_breakdown
from .state import GameState
from .usability import side_slots, slot_parts, usable

RESOURCE_VALUE = 0.5  # a credit / kelp / steelplast / science while it can still be spent on building
CARD_IN_HAND = 0.25
CLAIMED_CARD = 1.0
MATCHED_CARD = 1.5  # a matched card whose effect or claim is still to come
OPTION_VALUE: dict[type, float] = {  # per piece / use still available in a part being resolved
    Build: 1.5, BuildUpgrade: 2.0, Upgrade: 0.75, UseAction: 1.5, TakeSpecial: 1.0, PerformSlot: 1.5,
    Choice: 1.0, GainDistinct: 1.0, StructureProduction: 1.0, ConvertCity: 1.0,
}
MAX_REPEATS = 2


def productions_left(state: GameState) -> int:
    """Production phases still to come (the era track's P spaces after the marker)."""
    track = content().info.era_track
    return sum(1 for pos, space in enumerate(track) if space.startswith("P") and pos > state.era_pos)


def _option(state: GameState, seat: int, node: Effect, repeats: int) -> float:
    value = OPTION_VALUE.get(type(node), 0.0)
    if value and usable(state, seat, node):
        return value * min(repeats, MAX_REPEATS)
    return 0.0


def options_pending(state: GameState, seat: int) -> float:
    """Option value of what the seat's turn still holds: the top frame's unresolved parts, a matched card
    not yet resolved, a slot action not yet started."""
    turn = state.turn
    if turn is None or turn.seat != seat:
        return 0.0
    value = 0.0
    if state.frames:
        top = state.frames[-1]
        if top.active is not None:
            value += _option(state, seat, top.active.node, top.active.remaining)
        else:
            value += sum(_option(state, seat, part, getattr(part, "n", 1))
                         for part, done in zip(top.parts, top.resolved, strict=True) if not done)
    if turn.matched and turn.card_id and not turn.card_done and not turn.card_frame:
        value += MATCHED_CARD
    if turn.slot_id and not turn.slot_frame:
        parts, _ = slot_parts(state.players[seat], side_slots(state)[turn.slot_id])
        value += sum(_option(state, seat, part, getattr(part, "n", 1)) for part in parts)
    return value


def evaluate(state: GameState, seat: int) -> float:
    if state.scores:
        return float(next(s.total for s in state.scores if s.seat == seat))
    b = seat_breakdown(state, seat)
    player = state.players[seat]
    res = player.res
    value = float(b["track"] + b["brown"] + b["end_cards"] + b["network"])
    value += RESOURCE_VALUE * (res.credit + res.kelp + res.steelplast + res.science + 2 * res.biomatter)
    phases = productions_left(state)
    if phases:
        _, y = production_of(state, seat, ())
        value += phases * (y.points + RESOURCE_VALUE * (y.credit + y.kelp + y.steelplast + y.science
                                                         + 2 * y.biomatter))
    value += CARD_IN_HAND * len(player.hand) + CLAIMED_CARD * (len(player.tableau) - 1)
    return value + options_pending(state, seat)
