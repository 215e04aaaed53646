"""§10.2 Setup and configuration (N-01 … N-04)."""

from __future__ import annotations

import random

import msgspec
import pytest

from benthic.rules import GameConfig, RuleViolation
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.state import NO_CELL
from tests.engine_harness import strings_in
from tests.unit.nautilus.fixtures import ENGINE, RED, Game, of, one


def test_n01_setup_4_players(monkeypatch: pytest.MonkeyPatch) -> None:
    events = ENGINE.start(GameConfig(seats=4, seed=12345, options={"start_seat": 0}))
    started = one(events, ev.GameStarted)
    assert started.starting_nemo == 45 and started.atlantis_points == (5, 4, 2, 1)
    assert started.base_anchor == (11, 14) and started.start_seat == 0 and started.player_count == 4
    assert [s.colour for s in started.seats] == ["red", "orange", "violet", "yellow"]
    state = ENGINE.replay(events)
    for seat in state.seats:
        assert seat.nemo == 45 and seat.supply == 15 and seat.subs == (NO_CELL,) * 3
        assert seat.counts == (0,) * 5 and not seat.held and not seat.tableau
    assert {k: len(v) for k, v in state.stacks.items()} == {
        "residential_green": 10, "residential_blue": 10,
        "training": 4, "technology": 4, "echo": 4, "trial": 4, "analysis": 4,
    }
    dealt = one(events, ev.SeaFindsDealt).placements
    assert len(dealt) == 60 and len({p.chip for p in dealt}) == 60
    for p in dealt:
        assert C.chips[p.chip].depth == C.zone[C.cell(*p.cell)]
    assert not any(state.face_up) and sum(1 for f in state.finds if f) == 60
    cards = [e.card for e in of(events, ev.AssignmentDealt)]
    assert sorted(cards) == sorted(C.card_ids)
    assert [e.seat for e in of(events, ev.AssignmentDealt)] == [0, 1, 2, 3]
    assert state.three_chips == (None,) * 5 and not state.gorge_open
    prompt = ENGINE.prompt(state)
    assert (prompt.kind, prompt.seats, state.round) == ("phase1_turn", (0,), 1)
    # evolve never draws: replaying with every RNG broken gives the same state
    monkeypatch.setattr(random, "Random", None)
    assert ENGINE.encode_state(ENGINE.replay(events)) == ENGINE.encode_state(state)


def test_n01_setup_is_seeded() -> None:
    a = ENGINE.start(GameConfig(seats=4, seed=1))
    b = ENGINE.start(GameConfig(seats=4, seed=2))
    assert one(a, ev.SeaFindsDealt) != one(b, ev.SeaFindsDealt)
    assert one(a, ev.GameStarted).seed == 1


@pytest.mark.parametrize(
    ("seats", "nemo", "points", "cap"), [(2, 55, (4, 2), 3), (3, 50, (5, 3, 1), 3), (4, 45, (5, 4, 2, 1), 4)]
)
def test_n02_player_counts(seats: int, nemo: int, points: tuple[int, ...], cap: int) -> None:
    game = Game(seats)
    started = one(game.events, ev.GameStarted)
    assert started.starting_nemo == nemo and started.atlantis_points == points
    assert all(s.nemo == nemo for s in game.state.seats)
    assert C.player_counts[seats].residential_cap == cap
    dealt = {e.card for e in of(game.events, ev.AssignmentDealt)}
    assert len(dealt) == seats
    undealt = set(C.card_ids) - dealt
    assert len(undealt) == 4 - seats
    hidden = {s.token for s in ENGINE.secrets(game.state) if not s.visible_to}
    assert undealt <= hidden
    for viewer in [*range(seats), None]:
        assert not undealt & strings_in(ENGINE.view(game.state, viewer))
        for event in game.events:
            assert not undealt & strings_in(ENGINE.redact(event, viewer))


@pytest.mark.parametrize("seats", [0, 1, 5])
def test_n02_invalid_player_count(seats: int) -> None:
    with pytest.raises(RuleViolation) as info:
        ENGINE.start(GameConfig(seats=seats, seed=1))
    assert info.value.code == "invalid_player_count"


def test_n03_base_placement_option() -> None:
    from benthic.rules.nautilus import commands as cmd

    game = Game(options={"base_placement": [10, 11]})
    assert game.state.base_anchor == (10, 11) and game.state.stations[0].anchor == (10, 11)
    game.hold(RED, "training_1")
    off_lattice = cmd.BuildStation(tile="training_1", anchor=(14, 11), rotation=0)
    assert game.reject(RED, off_lattice) == "no_matching_lock"
    game.do(RED, cmd.BuildStation(tile="training_1", anchor=(13, 11), rotation=0))
    assert game.state.stations[-1].anchor == (13, 11)


@pytest.mark.parametrize(
    "options",
    [
        {"base_placement": [14, 11]},
        {"base_placement": [10, 11, 1]},
        {"base_placement": "middle"},
        {"start_seat": 4},
        {"start_seat": True},
        {"tiebreak": "coin"},
        {"auto_pass": 1},
        {"allow_withdraw_in_place": "yes"},
        {"assignment_cashing": "manual"},
        {"no_such_option": True},
    ],
)
def test_n03_invalid_options(options: dict) -> None:
    with pytest.raises(RuleViolation) as info:
        ENGINE.start(GameConfig(seats=4, seed=1, options=options))
    assert info.value.code == "invalid_option"


def test_n03_random_base_is_recorded() -> None:
    anchors = set()
    for seed in range(12):
        events = ENGINE.start(GameConfig(seats=3, seed=seed, options={"base_placement": "random"}))
        anchor = one(events, ev.GameStarted).base_anchor
        assert anchor in C.base_anchors
        assert ENGINE.replay(events).stations[0].anchor == anchor
        anchors.add(anchor)
    assert len(anchors) > 1


def test_n04_setup_secrecy() -> None:
    game = Game(4)
    cards = [s.card for s in game.state.seats]
    own = ENGINE.view(game.state, 0)
    assert own["seats"][0]["assignment"] == cards[0]
    assert [s["assignment"] for s in own["seats"][1:]] == [None, None, None]
    assert not set(cards[1:]) & strings_in(own)
    spectator = ENGINE.view(game.state, None)
    assert all(s["assignment"] is None for s in spectator["seats"]) and not set(cards) & strings_in(spectator)
    chip_ids = set(C.chips)
    for viewer in (0, 1, 2, 3, None):
        view = ENGINE.view(game.state, viewer)
        assert len(view["finds"]) == 60
        assert all(set(f) == {"cell", "depth", "face_up"} and not f["face_up"] for f in view["finds"])
        assert not chip_ids & strings_in(view)
        dealt = ENGINE.redact(one(game.events, ev.SeaFindsDealt), viewer)
        assert len(dealt["placements"]) == 60
        assert all(set(p) == {"cell", "depth"} for p in dealt["placements"])
        assert not chip_ids & strings_in(dealt) and not {k for k in C.kind_front} & strings_in(dealt)
        assert "seed" not in ENGINE.redact(one(game.events, ev.GameStarted), viewer)
        assert "seed" not in msgspec.json.encode(view).decode()
    deal_1 = of(game.events, ev.AssignmentDealt)[1]
    assert ENGINE.redact(deal_1, 0) == {"type": "assignment_dealt", "seat": 1}
    assert ENGINE.redact(deal_1, 1) == {"type": "assignment_dealt", "seat": 1, "card": cards[1]}
