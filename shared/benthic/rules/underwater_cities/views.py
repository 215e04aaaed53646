"""What leaves the engine (§7): ``view`` (the state as one seat may see it), ``redact`` (an event as one seat
may see it), ``secrets`` (every hidden thing, for the leak tests) and the public prompt details."""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.rules.core import Prompt, Secret

from . import events as ev
from .board import connected_city_sites, geometry
from .content import content
from .prompts import RUNNING, describe, node_json, prompt_of
from .state import NEUTRAL, GameState, Player
from .usability import hand_limit, usable


def draw3_pending(state: GameState) -> tuple[str, ...]:
    if state.frames and state.frames[-1].active is not None:
        return state.frames[-1].active.drawn
    return ()


def special_top_visible(state: GameState) -> bool:
    """The top of the one-/two-credit deck is face up, except while a draw3 is being decided."""
    return bool(state.special_deck) and not draw3_pending(state)


# --- secrets ------------------------------------------------------------------------------------------------

def secrets(state: GameState) -> list[Secret]:
    out: list[Secret] = []
    for p in state.players:
        public = set(p.public_hand)
        out.extend(Secret(c, frozenset({p.seat})) for c in p.hand if c not in public)
    out.extend(Secret(c) for c in state.era_deck)
    out.extend(Secret(c) for c in state.buried)
    known_to: dict[str, set[int]] = {}
    for card_id, seat in state.special_private:
        known_to.setdefault(card_id, set()).add(seat)
    public = set(state.special_public)
    for i, card_id in enumerate(state.special_deck):
        if (i == 0 and special_top_visible(state)) or card_id in public:
            continue
        out.append(Secret(card_id, frozenset(known_to.get(card_id, ()))))
    drawn = draw3_pending(state)
    if drawn and state.turn is not None:
        out.extend(Secret(c, frozenset({state.turn.seat})) for c in drawn)
    out.extend(Secret(c) for c in (*state.box_specials, *state.box_contracts, *state.box_metros))
    return out


# --- redact -------------------------------------------------------------------------------------------------

def redact(event: Any, seat: int | None) -> dict[str, Any] | None:
    if isinstance(event, ev.HIDDEN):
        return None
    if isinstance(event, ev.OWNER_ONLY):
        return msgspec.to_builtins(event) if seat == event.seat else None
    data: dict[str, Any] = msgspec.to_builtins(event)
    if isinstance(event, ev.GameStarted):
        del data["seed"]
    return data


# --- prompt -------------------------------------------------------------------------------------------------

def prompt(state: GameState) -> Prompt | None:
    found = prompt_of(state)
    if found is None:
        return None
    kind, seats = found
    return Prompt(kind, seats, prompt_details(state, kind, seats))


def _hidden_from(state: GameState, viewer: int | None) -> set[str]:
    return {x.token for x in secrets(state) if viewer is None or viewer not in x.visible_to}


def _named_card(card_id: str, hidden: set[str]) -> str:
    """A card named by the turn or a frame, unless it is now hidden from the viewer: a played card that went
    to the discard pile can be reshuffled into the deck, even drawn, while its turn or effect goes on."""
    return "" if card_id in hidden else card_id


def _frame_view(state: GameState, frame_index: int, viewer: int | None, hidden: set[str]) -> dict[str, Any]:
    frame = state.frames[frame_index]
    owner = state.turn.seat if state.turn is not None else None
    is_top = frame_index == len(state.frames) - 1
    parts = []
    for i, part in enumerate(frame.parts):
        entry: dict[str, Any] = {"index": i, "summary": describe(part), "node": node_json(part),
                                 "resolved": frame.resolved[i]}
        if is_top and owner is not None and not frame.resolved[i]:
            entry["usable"] = usable(state, owner, part)
        parts.append(entry)
    out: dict[str, Any] = {"frame_id": frame.id, "source": frame.source, "card_id": _named_card(frame.card_id, hidden),
                           "slot_id": frame.slot_id, "is_all": frame.is_all, "parts": parts}
    if frame.active is not None:
        a = frame.active
        active: dict[str, Any] = {"part": a.part, "node": node_json(a.node), "summary": describe(a.node),
                                  "remaining": a.remaining}
        if a.drawn:
            active["drawn_count"] = len(a.drawn)
            if viewer == owner:
                active["drawn"] = list(a.drawn)
        out["active"] = active
    return out


def prompt_details(state: GameState, kind: str, seats: tuple[int, ...]) -> dict[str, Any]:
    """Public details of the prompt (never hidden information)."""
    if kind == RUNNING:
        return {}
    if kind == "keep_cards":
        return {"limits": {str(s): hand_limit(state.players[s]) for s in seats}, "answered": list(state.answered)}
    if kind in ("production_options", "final_purchases"):
        return {"answered": list(state.answered)}
    turn = state.turn
    assert turn is not None
    details: dict[str, Any] = {"seat": turn.seat, "round": state.round, "pass": turn.pass_no + 1}
    if kind == "discard_to_limit":
        player = state.players[turn.seat]
        details["discard_count"] = len(player.hand) - hand_limit(player)
    elif kind in ("choose_order", "pay_special", "action_limit"):
        details.update(card_id=turn.card_id, slot_id=turn.slot_id)  # the card is in play, face up
    elif kind == "use_discarded_action":
        details["card_id"] = turn.discarded_action  # just discarded face up
    elif state.frames and kind not in ("choose_play", "end_of_turn"):
        details["frame"] = _frame_view(state, len(state.frames) - 1, None, _hidden_from(state, None))
    return details


# --- view ---------------------------------------------------------------------------------------------------

def _player_view(state: GameState, p: Player, viewer: int | None) -> dict[str, Any]:
    own = viewer == p.seat
    out: dict[str, Any] = {
        "seat": p.seat,
        "board": p.board,
        "resources": msgspec.to_builtins(p.res),
        "points": p.points,
        "hand_count": len(p.hand),
        "hand_limit": hand_limit(p),
        "known_hand": list(p.public_hand),
        "pieces": {site: {"kind": piece.kind, "upgraded": piece.upgraded} for site, piece in p.pieces.items()},
        "network": list(p.network),
        "connected_cities": connected_city_sites(geometry(p), p) if p.board else [],
        "metropolises": dict(p.metros),
        "gained_metropolises": list(p.gained_metros),
        "tableau": list(p.tableau),
        "used_actions": list(p.used_actions),
        "under_board": list(p.under_board),
        "federation_space": p.fed_space,
        "contracts": list(p.contracts),
    }
    if own:
        out["hand"] = list(p.hand)
    return out


def view(state: GameState, viewer: int | None) -> dict[str, Any]:
    p = prompt(state)
    hidden = _hidden_from(state, viewer)
    track = content().info.era_track
    out: dict[str, Any] = {
        "version": state.version,
        "game": "underwater_cities",
        "phase": state.phase,
        "prompt": {"kind": p.kind, "seats": list(p.seats), "details": p.details} if p is not None else None,
        "seats": state.seats,
        "main_side": state.main_side,
        "board_side": state.board_side,
        "round": state.round,
        "era": state.era,
        "era_track_space": track[state.era_pos] if state.era_pos < len(track) else "",
        "play_order": list(state.play_order),
        "federation_stacks": {str(space): list(stack)
                              for space, stack in zip((1, 2, 3, 4), state.fed_stacks, strict=False)},
        "supplies": {"tunnels": state.tunnels_left, "white_domes": state.white_left,
                     "purple_domes": state.purple_left},
        "slots": {slot: ["neutral" if t == NEUTRAL else t for t in tiles] for slot, tiles in state.slots.items()},
        "cloning_tile": {"in_game": state.cloning_tile, "available": state.cloning_tile and not state.clone_used},
        "era_deck_count": len(state.era_deck),
        "special_row": list(state.special_row),
        "special_deck": _special_deck_view(state, viewer),
        "players": [_player_view(state, pl, viewer) for pl in state.players],
    }
    if state.rules.discard_pile_public:
        out["era_discard"] = list(state.era_discard)
    out["era_discard_count"] = len(state.era_discard)
    if state.contracts_variant:
        out["open_contracts"] = list(state.open_contracts)
    if state.turn is not None:
        t = state.turn
        out["turn"] = {"seat": t.seat, "pass": t.pass_no + 1, "stage": t.stage,
                       "card_id": _named_card(t.card_id, hidden),
                       "slot_id": t.slot_id, "matched": t.matched, "clone": t.clone, "block": t.block,
                       "blocks_left": list(t.blocks), "tunnels_built": t.tunnels_built,
                       "once_used": list(t.once_used)}
    out["frames"] = [_frame_view(state, i, viewer, hidden) for i in range(len(state.frames))]
    if state.phase == "keep":
        out["keep"] = {"pending": list(state.prompt_seats), "answered": list(state.answered)}
        if viewer is not None and state.keep_choices[viewer]:
            out["keep"]["my_choice"] = list(state.keep_choices[viewer])
    if state.phase == "production_options":
        out["production_options"] = {"pending": list(state.prompt_seats), "answered": list(state.answered)}
        if viewer is not None and viewer in state.answered:
            out["production_options"]["my_choice"] = list(state.production_choices[viewer])
    if state.phase == "final_purchases" and viewer is not None:
        out["final_purchases"] = {"pending": list(state.prompt_seats), "answered": list(state.answered),
                                  "my_purchases": [[x.card_id, x.times] for x in state.purchases[viewer]]}
    if state.scores:
        out["final_scores"] = [msgspec.to_builtins(s) for s in state.scores]
        out["tie_break_order"] = list(state.tie_break_order)
        if state.solo_result:
            out["solo_result"] = state.solo_result
    return out


def _special_deck_view(state: GameState, viewer: int | None) -> dict[str, Any]:
    public = set(state.special_public)
    mine = {c for c, s in state.special_private if s == viewer}
    known = {card_id: i for i, card_id in enumerate(state.special_deck) if card_id in public or card_id in mine}
    return {
        "count": len(state.special_deck),
        "top": state.special_deck[0] if special_top_visible(state) else None,
        "known_positions": known,
    }
