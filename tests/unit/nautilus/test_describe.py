"""Labels of Nautilus commands (``ENGINE.describe``) in the scenes of the acceptance scenarios, including the
commands random playouts seldom reach (Tempo, Trial peeks, cashing the assignment), each checked by the
generic contract checker too."""

from __future__ import annotations

import pytest

from benthic.rules.nautilus import commands as cmd
from tests.unit.nautilus.fixtures import ENGINE, ORANGE, RED, ref
from tests.unit.nautilus.test_end import _82
from tests.unit.nautilus.test_phase3 import MANUAL, _trial_scene
from tests.unit.test_engine_presentation import Checker


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker(ENGINE)


def described(game, seat):  # type: ignore[no-untyped-def]
    legal = game.legal(seat)
    return dict(zip(legal, ENGINE.describe_all(game.state, legal, seat), strict=True))


def test_tempo_move_and_its_skip(checker: Checker) -> None:
    game = ref(chips={(7, 23): "D20", (9, 22): "S08"}, phase=3, seat=RED)
    game.sub(RED, 1, (7, 20))
    game.do(RED, cmd.MoveSub(sub=1, to=(7, 23)))
    assert game.prompt.kind == "tempo_move"
    checker.labels(game.state, RED, game.legal(RED))
    labels = described(game, RED)
    assert labels[cmd.SkipTempo()].label == "Skip the Tempo move"
    tempo = labels[cmd.TempoMove(sub=1, to=(9, 22))]
    assert tempo.label == "Tempo: move submarine 1 to J-23 and recover the face-down Slope find there " \
                          "(1 Nemo if blue-front)"
    assert tempo.highlights == ["7,23", "9,22"]  # the chip's id stays hidden


def test_trial_peeks_name_the_depth_only_and_a_peeked_find_only_to_its_peeker(checker: Checker) -> None:
    game = _trial_scene()
    game.do(RED, cmd.MoveSub(sub=1, to=(6, 20)))
    assert game.prompt.kind == "trial_peek"
    checker.labels(game.state, RED, game.legal(RED))
    labels = described(game, RED)
    assert labels[cmd.Peek(cell=(9, 22))].label == "Look at the face-down Slope find at J-23"
    assert labels[cmd.EndPeeks()].label == "Stop looking at finds"
    game.do(RED, cmd.Peek(cell=(9, 22)))
    game.do(RED, cmd.Peek(cell=(10, 0)))
    sub_at = game.state.seats[RED].subs
    assert game.prompt.kind == "phase3_turn" and sub_at
    kind = ENGINE.catalogue()["components"][game.chip_at((9, 22))]["name"]
    moves = [d.label for c, d in described(game, RED).items() if isinstance(c, cmd.MoveSub) and c.to == (9, 22)]
    assert all(f"you peeked: {kind}" in label for label in moves)


def test_cashing_the_assignment_is_described_to_each_seat(checker: Checker) -> None:
    game = _82(**MANUAL)
    assert game.prompt.kind == "cash_assignment" and len(game.prompt.seats) > 1
    for seat in game.prompt.seats:
        checker.labels(game.state, seat, game.legal(seat))
    legal = game.legal(RED)
    three, none = cmd.CashAssignment(upgrades={"shell": 3}), cmd.CashAssignment()
    assert three in legal and none in legal
    assert ENGINE.describe(game.state, three, RED).label == "Raise 3 × Shell by 1 point each for 3 Nemo"
    assert ENGINE.describe(game.state, three, RED).highlights == ["A1"]
    assert ENGINE.describe(game.state, none, RED).label == "Cash your special assignment without raising any chip"
    with pytest.raises(ValueError):
        ENGINE.describe(game.state, none)  # several seats are prompted: whose command?


def test_building_and_moving_researchers_name_stations_steps_and_fees(checker: Checker) -> None:
    game = ref(phase=2, seat=ORANGE)
    checker.labels(game.state, ORANGE, game.legal(ORANGE))
    for command, description in described(game, ORANGE).items():
        if isinstance(command, cmd.MoveResearcher):
            assert description.label.startswith("Researcher: ") and " → " in description.label
            assert description.highlights == [command.from_, command.to]
    build = ref(phase=1, seat=RED)
    for command, description in described(build, RED).items():
        if isinstance(command, cmd.BuildStation):
            assert description.highlights[0] == command.tile and len(description.highlights) == 10
            assert f"at {command.anchor[0]},{command.anchor[1]}" in description.label
