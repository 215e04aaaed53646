"""Building the fixtures of the acceptance scenarios (spec §10): a real game is started, then its state is
rewritten to the scenario's position (boards, hands, resources, pieces, claimed cards...), keeping card
conservation (cards put in hands or tableaux are taken out of the decks).  Helpers to play commands and to
assert rejections."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from benthic.rules import GameConfig, RuleViolation
from benthic.rules.underwater_cities import ENGINE
from benthic.rules.underwater_cities import commands as cmd
from benthic.rules.underwater_cities.board import network_of
from benthic.rules.underwater_cities.content import content
from benthic.rules.underwater_cities.effects import Res
from benthic.rules.underwater_cities.state import GameState, Piece, Player, Turn
from benthic.rules.underwater_cities.usability import hand_limit

A, B, C, D = 0, 1, 2, 3


def card(n: int) -> str:
    return f"c{n:03d}"


def started(seats: int = 4, seed: int = 1, options: dict[str, Any] | None = None) -> tuple[GameState, list[Any]]:
    events = ENGINE.start(GameConfig(seats=seats, seed=seed, options=options or {}))
    return ENGINE.replay(events), events


def res(**amounts: int) -> Res:
    return Res(**amounts)


def _pieces(spec: Mapping[str, Any], start: str) -> dict[str, Piece]:
    pieces = {start: Piece("city_nonsym")}
    for site, value in spec.items():
        if value is None:
            pieces.pop(site, None)
            continue
        kind, upgraded = (value, False) if isinstance(value, str) else value
        pieces[site] = Piece(kind, upgraded)
    return pieces


def fixture(
    seats: int = 4,
    *,
    seed: int = 1,
    options: dict[str, Any] | None = None,
    boards: Iterable[int] | None = None,
    order: Iterable[int] | None = None,
    active: int = A,
    round_no: int = 2,
    era: int = 1,
    hands: Mapping[int, Iterable[str]] | None = None,
    resources: Mapping[int, Res] | None = None,
    points: Mapping[int, int] | None = None,
    pieces: Mapping[int, Mapping[str, Any]] | None = None,
    tableau: Mapping[int, Iterable[str]] | None = None,
    used: Mapping[int, Iterable[str]] | None = None,
    fed: Mapping[int, int] | None = None,
    metros: Mapping[int, Mapping[str, str]] | None = None,
    slots: Mapping[str, tuple[int, ...]] | None = None,
    special_row: Iterable[str] | None = None,
    special_deck: Iterable[str] | None = None,
    open_contracts: Iterable[str] | None = None,
    stage: str | None = None,
    purple_left: int | None | str = "unchanged",
    tunnels_left: int | None = None,
) -> GameState:
    """A position of the scenarios: by default 4 seats A-D in play order A, B, C, D, boards #1-#4 (basic),
    round 2, Federation markers below the track, only starting cities, no resources, empty hands plus the
    given ones, active seat at choose_play."""
    state, _ = started(seats, seed, options)
    data = content()
    advanced = state.board_side == "advanced"
    board_ids = list(boards) if boards is not None else [
        (s + 1 + (4 if advanced else 0)) for s in range(seats)]
    order_t = tuple(order) if order is not None else tuple(range(seats))
    hands = hands or {}
    tableau = tableau or {}
    used_cards: set[str] = set()
    players = []
    for s in range(seats):
        geom = data.boards[board_ids[s]]
        ps = _pieces((pieces or {}).get(s, {}), geom.start)
        hand = tuple(hands.get(s, ()))
        claimed = ("PA", *tableau.get(s, ()))
        used_cards.update(hand)
        used_cards.update(c for c in claimed if c != "PA")
        players.append(Player(
            seat=s, board=board_ids[s], res=(resources or {}).get(s, Res()), points=(points or {}).get(s, 0),
            hand=hand, pieces=ps, network=network_of(geom, ps),
            metros=dict((metros or {}).get(s, state.players[s].metros)), tableau=claimed,
            used_actions=tuple((used or {}).get(s, ())), fed_space=(fed or {}).get(s, 0),
        ))
    # Cards put in hands or tableaux leave the decks, the special row and the box.
    row = tuple("" if c in used_cards else c for c in (special_row if special_row is not None else state.special_row))
    deck = tuple(c for c in (special_deck if special_deck is not None else state.special_deck) if c not in used_cards)
    box_specials = tuple(c for c in data.specials_three if c not in used_cards and c not in row)
    era_deck = tuple(c for c in data.era_decks[era] if c not in used_cards)
    stacks = tuple(tuple(s for s in order_t if (fed or {}).get(s, 0) == space) for space in (1, 2, 3, 4))
    hand_size = len(players[active].hand)
    turn_stage = stage or ("discard" if hand_size > hand_limit(players[active]) else "choose_play")
    changes: dict[str, Any] = {}
    if purple_left != "unchanged":
        changes["purple_left"] = purple_left
    if tunnels_left is not None:
        changes["tunnels_left"] = tunnels_left
    if open_contracts is not None:
        changes["open_contracts"] = tuple(open_contracts)
    track_pos = {1: 0, 2: 5, 3: 9}[era] + (round_no - {1: 1, 2: 5, 3: 8}[era])
    return replace(
        state,
        players=tuple(players),
        play_order=order_t if seats > 1 else (),
        fed_stacks=stacks,
        era=era,
        round=round_no,
        era_pos=track_pos,
        era_deck=era_deck,
        era_discard=(),
        special_row=row,
        special_deck=deck,
        special_public=(),
        box_specials=box_specials,
        slots=dict(slots or {}),
        phase="turn",
        prompt_seats=(),
        answered=(),
        turn=Turn(active, order_t.index(active) if seats > 1 else 0, 0, turn_stage),
        frames=(),
        **changes,
    )


def play(state: GameState, seat: int, *commands: Any) -> tuple[GameState, list[Any]]:
    """Apply commands in turn (each must be accepted); returns the final state and all events."""
    events: list[Any] = []
    for command in commands:
        new = ENGINE.decide(state, seat, command)
        state = ENGINE.fold(state, new)
        events.extend(new)
    return state, events


def rejects(state: GameState, seat: int, command: Any, code: str) -> RuleViolation:
    before = ENGINE.encode_state(state)
    with pytest.raises(RuleViolation) as info:
        ENGINE.decide(state, seat, command)
    assert info.value.code == code, f"expected {code}, got {info.value.code}: {info.value.message}"
    assert ENGINE.encode_state(state) == before
    return info.value


def kind(state: GameState) -> str:
    prompt = ENGINE.prompt(state)
    assert prompt is not None
    return prompt.kind


def event_types(events: Iterable[Any]) -> list[str]:
    return [ENGINE.event_name(e) for e in events]


def of_type(events: Iterable[Any], name: str) -> list[Any]:
    return [e for e in events if ENGINE.event_name(e) == name]


def resources(state: GameState, seat: int) -> dict[str, int]:
    return msgspec.to_builtins(state.players[seat].res)


def with_turn(state: GameState, **changes: Any) -> GameState:
    assert state.turn is not None
    return replace(state, turn=replace(state.turn, **changes))


def with_player(state: GameState, seat: int, **changes: Any) -> GameState:
    players = list(state.players)
    players[seat] = replace(players[seat], **changes)
    if "pieces" in changes:
        geom = content().boards[players[seat].board]
        players[seat] = replace(players[seat], network=network_of(geom, players[seat].pieces))
    return replace(state, players=tuple(players))


__all__ = ["A", "B", "C", "D", "cmd", "card", "fixture", "play", "rejects", "kind", "res", "started"]
