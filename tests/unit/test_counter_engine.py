"""The counter engine of the peer benchmark (bench/counter_engine.py) keeps the engine contract: every generic
check of test_engine_contract.py runs on it, registered for the time of the test, then its own rules."""

from __future__ import annotations

import inspect
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.counter_engine import ENGINE, Increment, Incremented
from benthic import rules
from benthic.rules import GameConfig, RuleViolation, register_engine
from tests.engine_harness import check_random_playout
from tests.unit import test_engine_contract as contract

GENERIC_CHECKS = sorted(n for n, _ in inspect.getmembers(contract, inspect.isfunction) if n.startswith("test_"))


@pytest.fixture
def registered() -> Iterator[str]:
    """The counter engine registered under its name for one test (the product never registers it)."""
    if ENGINE.game_type in rules.game_types():  # BENTHIC_EXTRA_ENGINES named it for the whole run
        yield ENGINE.game_type
        return
    register_engine(ENGINE)
    try:
        yield ENGINE.game_type
    finally:
        rules._EXTRA.pop(ENGINE.game_type, None)
        rules.game_types.cache_clear()


@pytest.mark.parametrize("check", GENERIC_CHECKS)
def test_generic_contract_check(registered: str, check: str) -> None:
    function = getattr(contract, check)
    parameters = inspect.signature(function).parameters
    arguments = {"game": registered, "seats": 2}
    function(**{name: value for name, value in arguments.items() if name in parameters})


def test_the_generic_checks_are_found() -> None:
    assert "test_random_playout_keeps_every_promise" in GENERIC_CHECKS
    assert len(GENERIC_CHECKS) >= 5


@pytest.mark.parametrize("moves", [1, 2, 7])
def test_random_playout_with_a_moves_option(moves: int) -> None:
    state = check_random_playout(ENGINE, 2, seed=5, options={"moves": moves})
    assert state.count == moves


def _started(moves: int = 3):  # type: ignore[no-untyped-def]
    return ENGINE.replay(ENGINE.start(GameConfig(seats=2, seed=1, options={"moves": moves})))


def test_seats_alternate_and_the_game_ends_after_its_moves() -> None:
    state = _started(moves=3)
    seats = []
    while not ENGINE.is_over(state):
        (seat,) = ENGINE.prompt(state).seats
        seats.append(seat)
        assert ENGINE.legal_commands(state, seat) == [Increment()]
        assert ENGINE.legal_commands(state, 1 - seat) == []
        events = ENGINE.decide(state, seat, Increment())
        assert events == [Incremented(seat, state.count + 1)]
        state = ENGINE.fold(state, events)
    assert seats == [0, 1, 0]
    assert state.count == 3 and state.increments == (2, 1)
    with pytest.raises(RuleViolation) as over:
        ENGINE.decide(state, 1, Increment())
    assert over.value.code == "game_over"


def test_a_seat_cannot_move_out_of_turn() -> None:
    with pytest.raises(RuleViolation) as violation:
        ENGINE.decide(_started(), 1, Increment())
    assert violation.value.code == "not_your_turn"
    assert "seat 0" in violation.value.message


def test_default_and_bad_moves_option() -> None:
    assert _started(moves=100).moves == ENGINE.replay(ENGINE.start(GameConfig(seats=2, seed=1))).moves == 100
    for bad in (0, 10_001, -1, "3", 2.0, True, None):
        with pytest.raises(RuleViolation) as violation:
            ENGINE.start(GameConfig(seats=2, options={"moves": bad}))
        assert violation.value.code == "invalid_option"


@pytest.mark.parametrize(("moves", "scores", "ranks"), [(3, [2, 1], [1, 2]), (4, [2, 2], [1, 1])])
def test_final_scores_count_each_seats_increments(moves: int, scores: list[int], ranks: list[int]) -> None:
    state = _started(moves)
    while not ENGINE.is_over(state):
        state = ENGINE.fold(state, ENGINE.decide(state, ENGINE.prompt(state).seats[0], Increment()))
    results = ENGINE.final_scores(state).results
    assert [r.score for r in results] == scores
    assert [r.rank for r in results] == ranks
    assert [r.seat for r in results] == [0, 1]


def test_the_services_register_it_through_the_environment() -> None:
    """What every service process does at start: BENTHIC_EXTRA_ENGINES names it, game_types() lists it."""
    root = Path(__file__).resolve().parents[2]
    probe = "from benthic.rules import game_types, get_engine; print(game_types()[-1], get_engine('counter').version)"
    env = {**os.environ, "BENTHIC_EXTRA_ENGINES": "bench.counter_engine:ENGINE",
           "PYTHONPATH": os.pathsep.join([str(root), str(root / "shared")])}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["counter", ENGINE.version]
