"""What leaves the engine (spec §7): views, redacted events, the list of secrets, prompt details.

Hidden: the identity of every face-down chip (except to the seats that peeked at it), each seat's
special assignment until it is cashed, the undealt assignment cards (forever), the seed.
"""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.rules.core import Prompt, Secret
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.derived import budget, research_points, research_value
from benthic.rules.nautilus.flow import prompt_of
from benthic.rules.nautilus.scoring import atlantis_holdings, final_scores
from benthic.rules.nautilus.state import NO_CELL, State


def prompt(state: State) -> Prompt | None:
    found = prompt_of(state)
    if found is None:
        return None
    kind, seats = found
    return Prompt(kind=kind, seats=seats, details=prompt_details(state, kind))


def prompt_details(state: State, kind: str) -> dict[str, Any]:
    turn, sp = state.turn, state.sub_prompt
    if kind == "phase1_turn" and turn is not None:
        return {
            "bought_this_turn": turn.bought,
            "built_this_turn": list(turn.built),
            "cost_level_paid": turn.cost_level_paid,
            "held": [h.tile for h in state.seats[turn.seat].held],
        }
    if kind == "phase2_turn" and turn is not None:
        return {
            "budget": budget(state, turn.seat),
            "steps_used": turn.steps_used,
            "researchers_moved": turn.researchers_moved,
        }
    if kind == "phase3_turn" and turn is not None:
        return {
            "launch_open": turn.launch_open,
            "echo_open": turn.echo_open,
            "echoed": list(turn.echoed),
            "moved": list(turn.moved),
        }
    if kind == "tempo_move" and sp is not None:
        return {"sub": sp.sub}
    if kind == "trial_peek" and sp is not None:
        return {"peeks_left": sp.peeks_left}
    if kind == "atlantis_bonus" and sp is not None:
        return {"atlantis_number": sp.atlantis_number}
    return {}


def _chip_info(chip_id: str) -> dict[str, Any]:
    chip = C.chips[chip_id]
    return {"chip": chip.id, "kind": chip.kind, "atlantis_number": chip.atlantis_number}


def _card_visible(state: State, owner: int, viewer: int | None) -> bool:
    return viewer == owner or state.seats[owner].upgrades is not None


def view(state: State, viewer: int | None) -> dict[str, Any]:
    p = prompt(state)
    finds = []
    for space, chip in enumerate(state.finds):
        if not chip:
            continue
        entry: dict[str, Any] = {
            "cell": list(C.xy(C.find_space_cell[space])),
            "depth": C.find_space_depth[space],
            "face_up": state.face_up[space],
        }
        if state.face_up[space] or state.ended:
            entry.update(_chip_info(chip))
        finds.append(entry)
    seats = []
    for i, s in enumerate(state.seats):
        seats.append(
            {
                "seat": i,
                "colour": C.colours[i],
                "nemo": s.nemo,
                "supply": s.supply,
                "subs": [None if c == NO_CELL else list(C.xy(c)) for c in s.subs],
                "held": [{"tile": h.tile, "staff": h.staff} for h in s.held],
                "research": {
                    t: {"count": s.counts[k], "value": research_value(state, i, k)}
                    for k, t in enumerate(C.research_types)
                },
                "research_points": research_points(state, i),
                "tableau": [_chip_info(chip) for chip in s.tableau],
                "atlantis": atlantis_holdings(state, i),
                "assignment": s.card if _card_visible(state, i, viewer) else None,
                "cashed": s.upgrades is not None,
                "upgrades": dict(s.upgrades) if s.upgrades is not None else None,
            }
        )
    out: dict[str, Any] = {
        "version": state.version,
        "prompt": None if p is None else {"kind": p.kind, "seats": list(p.seats), "details": p.details},
        "viewer": viewer,
        "player_count": state.player_count,
        "options": msgspec.to_builtins(state.options),
        "round": state.round,
        "start_seat": state.start_seat,
        "phase": state.turn.phase if state.turn is not None else None,
        "final_round": state.final_round,
        "end_reason": state.end_reason,
        "gorge_open": state.gorge_open,
        "base_anchor": list(state.base_anchor),
        "stacks": {k: list(v) for k, v in state.stacks.items()},
        "stations": [
            {
                "tile": st.tile,
                "kind": C.tiles[st.tile].kind,
                "research_type": C.tiles[st.tile].research_type,
                "anchor": list(st.anchor),
                "rotation": st.rotation,
                "owner": st.owner,
                "locks": list(st.locks),
                "researchers": list(state.occupancy[k]),
            }
            for k, st in enumerate(state.stations)
        ],
        "finds": finds,
        "box": [_chip_info(chip) for chip in state.box],
        "atlantis_tracker": [
            {"number": n + 1, "out": state.atlantis_out[n], "seat": state.atlantis_finder[n]}
            for n in range(len(state.atlantis_out))
        ],
        "atlantis_points": list(state.atlantis_points),
        "three_chips": dict(zip(C.research_types, state.three_chips, strict=False)),
        "seats": seats,
        "known_finds": [],
        "trial_peeked": [],
        "final_scores": None,
    }
    if viewer is not None and 0 <= viewer < state.player_count:
        out["known_finds"] = [
            {"cell": list(C.xy(C.find_space_cell[space])), **_chip_info(state.finds[space])}
            for space in state.seats[viewer].known
        ]
        sp = state.sub_prompt
        if sp is not None and state.turn is not None and state.turn.seat == viewer:
            out["trial_peeked"] = [list(C.xy(C.find_space_cell[space])) for space in sp.peeked]
    if state.ended:
        out["final_scores"] = msgspec.to_builtins(final_scores(state))
    return out


def redact(event: Any, viewer: int | None) -> dict[str, Any] | None:
    data: dict[str, Any] = msgspec.to_builtins(event)
    if isinstance(event, ev.GameStarted):
        del data["seed"]
    elif isinstance(event, ev.SeaFindsDealt):
        data["placements"] = [{"cell": list(p.cell), "depth": p.depth} for p in event.placements]
    elif isinstance(event, ev.AssignmentDealt):
        if viewer != event.seat:
            del data["card"]
    elif isinstance(event, ev.FindsPeeked):
        if viewer != event.seat:
            del data["chips"]
            if event.source == "echo":
                data["cells"] = [list(c.cell) for c in event.chips]
            else:
                data["count"] = len(event.chips)
    return data


def secrets(state: State) -> list[Secret]:
    out = []
    if not state.ended:
        for space, chip in enumerate(state.finds):
            if chip and not state.face_up[space]:
                peekers = frozenset(i for i, s in enumerate(state.seats) if space in s.known)
                out.append(Secret(chip, peekers))
    dealt = set()
    for i, s in enumerate(state.seats):
        if s.card is not None:
            dealt.add(s.card)
            if s.upgrades is None:
                out.append(Secret(s.card, frozenset({i})))
    out.extend(Secret(card, frozenset()) for card in C.card_ids if card not in dealt)
    return out
