"""Who must decide what now (spec §5.3), derived from the state.

``prompt_kind`` is the cheap part decide and enumeration need; ``prompt_details`` adds the public details
a client shows.  Between two events of one command the state may be mid-resolution (the head effect needs
no decision yet): the kind is then ``resolving``, a transient no command can answer.
"""

from __future__ import annotations

from typing import Any

from benthic.rules.aquatica.effects import (
    Buy,
    BuyOrConquer,
    Choice,
    Conquer,
    FullyRise,
    OpponentsDiscard,
    OpponentsRaise,
    Raise,
    Recruit,
    ReplayFromDiscard,
    Score,
    Scout,
    TakeBack,
    effect_name,
)
from benthic.rules.aquatica.queries import CAT, payment_due, pending_opponents, performable_options
from benthic.rules.aquatica.state import ICHTHYANDERS, State

HEAD_PROMPTS: dict[type, str] = {
    Choice: "choose_option",
    Buy: "choose_acquisition",
    Conquer: "choose_acquisition",
    BuyOrConquer: "choose_acquisition",
    Recruit: "choose_recruit",
    Raise: "choose_raise",
    FullyRise: "choose_fully_rise",
    Score: "choose_score",
    TakeBack: "choose_take_back",
    ReplayFromDiscard: "choose_replay",
    OpponentsDiscard: "opponent_discard",
    OpponentsRaise: "opponent_raise",
}
OPPONENT_PROMPTS = frozenset({"opponent_discard", "opponent_raise"})
# §5.3: every prompt of the active seat in PLAY accepts claim_goal, except choose_king and opponent_*.
NO_CLAIM_PROMPTS = OPPONENT_PROMPTS | {"choose_king", "setup", "resolving"}


def prompt_kind(state: State) -> tuple[str, tuple[int, ...]] | None:
    phase = state.phase
    if phase == "play":
        active = (state.active_seat,)
        if state.ichthyander_pending:
            return "place_ichthyander", active
        if state.payment is not None:
            return "pay", active
        if not state.queue:
            return "turn", active
        head = state.queue[0]
        effect = head.effect
        if isinstance(effect, Scout):
            if state.scout is not None:
                return "scout_discard", active
            if state.rules.scout_rule == "updated" and head.source.kind == "card":
                return "scout_decide", active
            return "resolving", active
        kind = HEAD_PROMPTS.get(type(effect), "resolving")
        if kind in OPPONENT_PROMPTS:
            return kind, tuple(pending_opponents(state, effect))
        return kind, active
    if phase == "king_selection":
        return "choose_king", (state.king_offer_seat,)
    if phase == "setup":
        return "setup", ()
    return None


def prompt_details(state: State, kind: str) -> dict[str, Any]:
    """Public details of the prompt (never hidden information)."""
    if kind == "turn":
        return {"stage": state.stage}
    if kind == "choose_king":
        return {"count": len(state.king_offer)}
    if kind == "place_ichthyander":
        return {"free_tracks": [g for g, t in enumerate(state.tracks) if all(s.seat != ICHTHYANDERS for s in t)]}
    if kind == "pay":
        p = state.payment
        assert p is not None
        return {"purpose": p.purpose, "resource": p.resource, "cost": p.cost, "committed": p.committed,
                "due": payment_due(state), "location_id": p.location_id, "mode": p.mode, "slot": p.slot,
                "row_slot": p.row_slot, "card_id": p.card_id}
    if not state.queue:
        return {}
    head = state.queue[0]
    details: dict[str, Any] = {"effect": effect_name(head.effect), "source": {"kind": head.source.kind,
                                                                              "id": head.source.id}}
    effect = head.effect
    if kind == "choose_option":
        details["performable"] = performable_options(state, head)
    elif isinstance(effect, (Buy, Conquer, BuyOrConquer)):
        details["modes"] = ["buy"] if isinstance(effect, Buy) else ["conquer"] if isinstance(effect, Conquer) \
            else ["buy", "conquer"]
    elif isinstance(effect, Recruit):
        details["free"] = effect.free
        details["costs"] = list(CAT.board.character_row_costs)
    elif isinstance(effect, Raise):
        details.update(amount=effect.amount, split=effect.split)
    elif isinstance(effect, (Score, TakeBack)):
        details["remaining"] = effect.count - state.head_progress
    elif kind == "scout_discard":
        details["excess"] = len(state.bottom_row) - CAT.board.top_row_size
    elif kind in OPPONENT_PROMPTS:
        details.update(active_seat=state.active_seat, answered=list(state.answered))
    return details
