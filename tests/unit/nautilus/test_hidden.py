"""§10.8 Hidden information, auto-pass, robustness (N-53 … N-56)."""

from __future__ import annotations

from typing import Any

from benthic.rules import GameConfig
from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from tests.engine_harness import strings_in
from tests.unit.nautilus.fixtures import ENGINE, ORANGE, RED, VIOLET, YELLOW, Game, names, of, one, ref


def _echo_scene() -> Game:
    game = ref(phase=3, seat=VIOLET, auto_pass=False)
    game.researchers(VIOLET, "training_2", 2)
    game.do(VIOLET, cmd.LaunchSub(station="training_2", cell=(10, 20)))
    return game


def test_n53_redaction_of_peeks_and_known_finds() -> None:
    game = _echo_scene()
    peeked = one(game.do(VIOLET, cmd.Echo(sub=1)), ev.FindsPeeked)
    cells = [(6, 20), (9, 22), (11, 20)]
    own = ENGINE.redact(peeked, VIOLET)
    assert [(tuple(c["cell"]), c["chip"], c["kind"]) for c in own["chips"]] == [
        (c, game.chip_at(c), C.chips[game.chip_at(c)].kind) for c in cells
    ]
    for viewer in (RED, ORANGE, YELLOW, None):
        assert ENGINE.redact(peeked, viewer) == {
            "type": "finds_peeked", "seat": VIOLET, "source": "echo", "cells": [list(c) for c in cells]
        }
    assert [tuple(k["cell"]) for k in ENGINE.view(game.state, VIOLET)["known_finds"]] == cells
    assert ENGINE.view(game.state, RED)["known_finds"] == []
    hidden = {s.token: s.visible_to for s in ENGINE.secrets(game.state)}
    assert all(hidden[game.chip_at(c)] == frozenset({VIOLET}) for c in cells)

    # the chip on [11,20] is recovered by someone else: it leaves every known_finds and is public
    chip = game.chip_at((11, 20))
    game.sub(RED, 1, (12, 20))
    game.turn(RED, 3)
    game.do(RED, cmd.MoveSub(sub=1, to=(11, 20)))
    assert [tuple(k["cell"]) for k in ENGINE.view(game.state, VIOLET)["known_finds"]] == [(6, 20), (9, 22)]
    assert chip in hidden and chip not in {s.token for s in ENGINE.secrets(game.state)}
    spectator = ENGINE.view(game.state, None)
    assert chip in strings_in(spectator)


def test_n53_game_end_reveals_the_board_but_never_the_undealt_cards() -> None:
    game = Game(2)
    for _ in range(2):
        game.do(game.prompt.seats[0], cmd.EndTurn())
    assert game.state.ended
    revealed = one(game.events, ev.GameEnded).board_revealed
    assert len(revealed) == 60 and {p.chip for p in revealed} == set(C.chips)
    undealt = set(C.card_ids) - {s.card for s in game.state.seats}
    assert len(undealt) == 2
    for viewer in (0, 1, None):
        view = ENGINE.view(game.state, viewer)
        assert all("chip" in f for f in view["finds"])
        assert not undealt & strings_in(view)
        for event in game.events:
            assert not undealt & strings_in(ENGINE.redact(event, viewer))
    assert {s.token for s in ENGINE.secrets(game.state)} == undealt


def _views(game: Game) -> dict[Any, Any]:
    out = {}
    for viewer in (0, 1, 2, 3, None):
        view = ENGINE.view(game.state, viewer)
        out[viewer] = (view, ENGINE.legal_commands(game.state, viewer) if viewer is not None else None)
    out["prompt"] = ENGINE.prompt(game.state)
    return out


def test_n54_no_leak_through_legal_commands() -> None:
    # [9,22] and [5,18] are two face-down Slope chips; swap their identities
    scenes = []
    for chips in ({(9, 22): "S08", (5, 18): "S01"}, {(9, 22): "S01", (5, 18): "S08"}):
        game = ref(chips=chips, phase=3, seat=RED)
        game.researchers(RED, "trial_1")
        game.sub(RED, 1, (7, 20))
        game.sub(ORANGE, 1, (8, 22))
        game.turn(RED, 3)
        scenes.append(game)
    a, b = (_views(g) for g in scenes)
    assert a["prompt"] == b["prompt"]
    for viewer in (0, 1, 2, 3, None):
        assert a[viewer] == b[viewer], viewer
    # the same command has the same public outcome too, up to the move
    moves = [ENGINE.decide(g.state, RED, cmd.MoveSub(sub=1, to=(7, 21))) for g in scenes]
    assert moves[0] == moves[1]


def test_n55_auto_pass_and_the_shortest_game() -> None:
    game = Game(4)
    events: list[Any] = []
    for seat in (0, 1, 2, 3):
        events = game.do(seat, cmd.EndTurn())
    assert [e.auto for e in of(events, ev.TurnEnded)][:1] == [False]
    assert all(e.auto for e in of(events, ev.TurnEnded)[1:]) and len(of(events, ev.TurnEnded)) == 9
    ended = one(events, ev.RoundEnded)
    assert (ended.round, ended.bought, ended.built, ended.recovered) == (1, False, False, False)
    trigger = one(events, ev.EndTriggered)
    assert (trigger.trigger, trigger.final_round) == ("no_activity", 1)
    cashed = of(events, ev.AssignmentCashed)
    assert [(c.seat, c.upgrades, c.auto) for c in cashed] == [(s, {}, True) for s in range(4)]
    assert names(events)[-2:] == ["atlantis_points_awarded", "game_ended"]
    scores = ENGINE.final_scores(game.state)
    assert [(r.score, r.rank) for r in scores.results] == [(45, 1)] * 4


def test_n56_generic_errors() -> None:
    game = Game(4)
    assert game.reject(1, cmd.EndTurn()) == "not_your_turn"
    assert game.reject(7, cmd.EndTurn()) == "not_your_turn"
    assert game.reject(0, cmd.MoveResearcher(from_="base", to="base")) == "wrong_prompt"
    assert game.reject(0, cmd.BuildStation(tile="nope", anchor=(8, 14), rotation=0)) == "invalid_argument"
    for seat in (0, 1, 2, 3):
        game.do(seat, cmd.EndTurn())
    for seat in (0, 1):
        assert game.reject(seat, cmd.EndTurn()) == "game_over"
        assert game.reject(seat, cmd.CashAssignment()) == "game_over"
    assert ENGINE.legal_commands(game.state, 0) == []


def test_command_json_round_trip_and_field_names() -> None:
    body = b'{"type":"move_researcher","from":"green_01","to":"training_1"}'
    command = ENGINE.decode_command(body)
    assert command == cmd.MoveResearcher(from_="green_01", to="training_1")
    assert ENGINE.encode_command(command) == body
    moved = ev.SubMoved(seat=0, sub=1, from_=(1, 2), to=(1, 3), steps=1, path=((1, 2), (1, 3)), mode="normal")
    assert b'"from":[1,2]' in ENGINE.encode_event(moved)
    assert ENGINE.decode_event(ENGINE.encode_event(moved)) == moved
    assert ENGINE.start(GameConfig(seats=2, seed=3)) == ENGINE.start(GameConfig(seats=2, seed=3))


def test_view_carries_version_prompt_and_public_state() -> None:
    game = ref(phase=2, seat=VIOLET)
    view = ENGINE.view(game.state, VIOLET)
    assert view["version"] == game.state.version
    assert view["prompt"] == {"kind": "phase2_turn", "seats": [VIOLET],
                              "details": {"budget": 3, "steps_used": 0, "researchers_moved": 0}}
    stations = {s["tile"]: s for s in view["stations"]}
    assert stations["green_01"]["researchers"] == [0, 0, 4, 0] and stations["trial_1"]["owner"] == RED
    assert view["seats"][VIOLET]["assignment"] == game.state.seats[VIOLET].card
    assert view["seats"][RED]["research"]["trial"] == {"count": 1, "value": 0}
    assert len(view["finds"]) == 57 and view["gorge_open"] is False and view["round"] == 5
