"""The harness that checks every engine must itself catch what it claims to catch."""

from __future__ import annotations

import random

import pytest

from benthic.rules import GameConfig
from benthic.rules.bots import GreedyBot, play_out
from tests.engine_harness import assert_rejects_cleanly, check_no_leak, random_commands, random_game
from tests.unit.toy_engine import LeakyToyEngine, ToyEngine


def _steps(engine):
    previous = engine.replay(engine.start(GameConfig(seats=3, seed=5)))
    for _state, _seat, _command, events, after in random_game(engine, 3, 5):
        step = previous
        for event in events:
            nxt = engine.evolve(step, event)
            yield step, event, nxt
            step = nxt
        previous = after


def test_harness_accepts_a_sound_engine() -> None:
    engine = ToyEngine()
    for before, event, after in _steps(engine):
        check_no_leak(engine, 3, before, event, after)


def test_harness_catches_a_leaking_view() -> None:
    engine = LeakyToyEngine()
    with pytest.raises(AssertionError, match="leaks"):
        for before, event, after in _steps(engine):
            check_no_leak(engine, 3, before, event, after)


def test_harness_catches_a_leaking_event() -> None:
    engine = ToyEngine()
    start = engine.start(GameConfig(seats=3, seed=5))[0]
    check_no_leak(engine, 3, engine.initial_state(), start, engine.replay([start]))
    engine.redact = lambda event, seat: {"hands": event.hands}  # type: ignore[method-assign]
    with pytest.raises(AssertionError, match="started redacted for 0 leaks"):
        check_no_leak(engine, 3, engine.initial_state(), start, engine.replay([start]))


def test_random_commands_are_rejected_cleanly_and_greedy_bot_plays() -> None:
    engine = ToyEngine()
    rng = random.Random(1)
    state = engine.replay(engine.start(GameConfig(seats=2, seed=1)))
    legal = engine.legal_commands(state, 0)
    outcomes = [assert_rejects_cleanly(engine, state, 0, c) for c in random_commands(engine, rng, 50, legal)]
    assert False in outcomes
    final, _events, commands = play_out(engine, engine.start(GameConfig(seats=2, seed=1)),
                                        {0: GreedyBot(), 1: GreedyBot()}, rng)
    assert engine.is_over(final) and commands >= 6


@pytest.mark.parametrize("seats", [2, 3])
def test_full_contract_check_passes_for_the_toy(seats: int) -> None:
    from tests.engine_harness import check_random_playout

    final = check_random_playout(ToyEngine(), seats, seed=9)
    assert ToyEngine().is_over(final)


def test_full_contract_check_catches_a_leak() -> None:
    from tests.engine_harness import check_random_playout

    with pytest.raises(AssertionError, match="leaks"):
        check_random_playout(LeakyToyEngine(), 2, seed=9)
