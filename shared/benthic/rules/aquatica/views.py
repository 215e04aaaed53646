"""What leaves the engine (spec §7): per-viewer views, redacted events and the list of secrets.

Hidden: hands (counts public), discard piles below their top card (counts public), Scoring Piles (counts
public), a drafted King until it is played or exchanged, the draft offer (to others), both decks' order
and content, the boxed Kings and goal tokens, and the seed.  Everything is revealed at the end except the
decks and the box.
"""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.rules.aquatica import events as ev
from benthic.rules.aquatica.prompts import prompt_details, prompt_kind
from benthic.rules.aquatica.queries import CAT, payment_due, remaining_depths
from benthic.rules.aquatica.scoring import final_scores
from benthic.rules.aquatica.state import Player, State
from benthic.rules.core import Secret

to_builtins = msgspec.to_builtins


def _public_king(p: Player) -> str | None:
    return p.king_id if p.king_revealed else None


def _player_view(state: State, p: Player, viewer: int | None) -> dict[str, Any]:
    own = viewer == p.seat or state.phase == "ended"
    view: dict[str, Any] = {
        "seat": p.seat,
        "symbol": p.symbol,
        "turn_position": (p.seat - state.first_seat) % state.seats,
        "hand_count": len(p.hand),
        "discard_count": len(p.discard),
        "discard_top": p.discard[-1] if p.discard else None,
        "scoring_pile_count": len(p.scored),
        "board": [
            None if bl is None else {
                "slot": slot, "location_id": bl.location_id, "covered": bl.covered,
                "depth_count": len(CAT.locations[bl.location_id].depths), "fully_risen": remaining_depths(bl) == 0,
            }
            for slot, bl in enumerate(p.board)
        ],
        "mantas": [{"manta_id": m.id, "kind": m.kind, "ready": m.ready} for m in p.mantas],
        "goals_claimed": [g for g, track in enumerate(state.tracks) if any(s.seat == p.seat for s in track)],
        "max_paid_recruit_cost": p.max_paid_recruit_cost,
        "king_id": p.king_id if own else _public_king(p),
        "king_number": p.king_number if own or p.king_revealed else None,
    }
    if own:
        view["hand"] = list(p.hand)
        view["discard"] = list(p.discard)
        view["scoring_pile"] = list(p.scored)
        view["scoring_pile_pp"] = sum(CAT.locations[x].prosperity for x in p.scored)
    return view


def view(state: State, viewer: int | None) -> dict[str, Any]:
    found = prompt_kind(state)
    prompt = None if found is None else {
        "kind": found[0], "seats": list(found[1]), "details": prompt_details(state, found[0]),
    }
    points = CAT.board.goal_track_points
    out: dict[str, Any] = {
        "game": "aquatica",
        "version": state.version,
        "viewer": viewer,
        "phase": state.phase,
        "rules": to_builtins(state.rules),
        "seats": state.seats,
        "turn_order": [(state.first_seat + k) % state.seats for k in range(state.seats)] if state.seats else [],
        "prompt": prompt,
        "turn": {
            "active_seat": state.active_seat,
            "turn_number": state.turn_number,
            "stage": state.stage,
            "pool": {"coins": state.pool_coins, "power": state.pool_power,
                     "typed_power": [to_builtins(t) for t in state.pool_typed]},
            "in_play": state.in_play,
            "replaying": list(state.replaying),
            "queue": [{"effect": to_builtins(i.effect), "source": to_builtins(i.source), "owner": i.owner}
                      for i in state.queue],
            "payment": None if state.payment is None else {**to_builtins(state.payment), "due": payment_due(state)},
            "scout": None if state.scout is None else to_builtins(state.scout),
            "resource_depth_used": list(state.resource_depth_used),
            "resource_mantas_used": list(state.resource_mantas_used),
            "effect_mantas_used": list(state.effect_mantas_used),
        },
        "locations": {
            "deck_count": len(state.location_deck),
            "top_row": list(state.top_row),
            "bottom_row": list(state.bottom_row),
            "discard": list(state.location_discard),
        },
        "characters": {
            "deck_count": len(state.ocean_deck),
            "row": [{"slot": slot, "card_id": card, "cost": CAT.row_cost(slot)}
                    for slot, card in enumerate(state.character_row)],
            "removed": list(state.removed_characters),
        },
        "goals": [
            {"index": g, "goal_id": goal_id, "text": CAT.goals[goal_id].text,
             "token": state.goal_tokens[g] if state.goal_tokens else None,
             "track": [{"spot": i + 1, "seat": spot.seat, "manta_id": spot.manta_id, "points": points[i]}
                       for i, spot in enumerate(state.tracks[g])]}
            for g, goal_id in enumerate(state.goals)
        ],
        "wild_reserve": dict(zip(CAT.wild_kinds, state.wild_reserve, strict=False)),
        "players": [_player_view(state, p, viewer) for p in state.players],
        "end": {"reason": state.end_reason, "final_turns_remaining": state.final_turns_remaining},
    }
    if state.seats == 1:
        out["ichthyanders"] = {"unplaced": list(state.ichthyanders), "placement_pending": state.ichthyander_pending}
    if state.phase == "king_selection":
        offer: dict[str, Any] = {"seat": state.king_offer_seat, "count": len(state.king_offer)}
        if viewer == state.king_offer_seat:
            offer["king_ids"] = list(state.king_offer)
        out["king_offer"] = offer
    if state.phase == "ended":
        out["final_scores"] = to_builtins(final_scores(state))
    return out


# --- events (§5.8 visibility) ----------------------------------------------------------------------
def redact(event: Any, viewer: int | None) -> dict[str, Any] | None:
    if isinstance(event, ev.DeckShuffled):
        return None  # server only
    data: dict[str, Any] = to_builtins(event)
    if isinstance(event, ev.GameCreated):
        del data["seed"]  # the seed would reveal every hidden thing
        return data
    owner = getattr(event, "seat", None)
    if viewer == owner:
        return data
    if isinstance(event, ev.KingDraftOffered):
        return {"type": data["type"], "seat": event.seat, "count": len(event.king_ids)}
    if isinstance(event, ev.KingChosen):
        return {"type": data["type"], "seat": event.seat, "auto": event.auto}
    if isinstance(event, ev.LocationScored):
        return {"type": data["type"], "seat": event.seat, "slot": event.slot, "auto": event.auto}
    if isinstance(event, ev.CardsTakenBack):
        return {"type": data["type"], "seat": event.seat, "count": len(event.card_ids),
                "new_discard_top": event.new_discard_top, "auto": event.auto}
    if isinstance(event, ev.DiscardReturnedToHand):
        return {"type": data["type"], "seat": event.seat, "count": len(event.card_ids), "cause": event.cause}
    return data


def secrets(state: State) -> list[Secret]:
    out: list[Secret] = []
    if state.phase != "ended":
        for p in state.players:
            mine = frozenset({p.seat})
            public_king = _public_king(p)
            hidden = [c for c in p.hand + p.discard[:-1] if c != public_king]
            out.extend(Secret(c, mine) for c in hidden)
            out.extend(Secret(x, mine) for x in p.scored)
            if public_king is None and p.king_id is not None and p.king_id not in p.hand + p.discard:
                out.append(Secret(p.king_id, mine))  # a drafted setup-exchange King before its exchange
    nobody: frozenset[int] = frozenset()
    out.extend(Secret(x, nobody) for x in state.location_deck)
    out.extend(Secret(c, nobody) for c in state.ocean_deck)
    out.extend(Secret(k, nobody) for k in state.kings_boxed)
    out.extend(Secret(t, nobody) for t in state.tokens_boxed)
    out.extend(Secret(k, frozenset({state.king_offer_seat})) for k in state.king_offer)
    return out
