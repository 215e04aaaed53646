"""The engine contract (docs/ENGINE_CONTRACT.md), checked for every registered game and seat count."""

from __future__ import annotations

import random

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benthic.rules import KNOWN_GAME_TYPES, GameConfig, RuleViolation, game_types, get_engine
from benthic.rules.bots import GreedyBot, play_out
from tests.engine_harness import check_random_playout

GAMES = game_types()
GAME_SEATS = [
    (g, n) for g in GAMES for n in range(get_engine(g).min_seats, get_engine(g).max_seats + 1)
]


def test_the_built_in_games_are_registered() -> None:
    """Every test parametrized over the registered games would pass vacuously over an empty registry."""
    assert KNOWN_GAME_TYPES and set(KNOWN_GAME_TYPES) <= set(GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_engine_is_registered_under_its_name(game: str) -> None:
    engine = get_engine(game)
    assert engine.game_type == game
    assert engine.version and engine.min_seats >= 1 and engine.max_seats >= engine.min_seats
    assert engine.command_names


@pytest.mark.parametrize("game", GAMES)
def test_start_rejects_bad_seat_counts_and_unknown_options(game: str) -> None:
    engine = get_engine(game)
    for seats in (engine.min_seats - 1, engine.max_seats + 1):
        with pytest.raises(RuleViolation):
            engine.start(GameConfig(seats=seats, seed=1))
    with pytest.raises(RuleViolation):
        engine.start(GameConfig(seats=engine.max_seats, seed=1, options={"no_such_option": True}))


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_start_is_deterministic_and_seed_dependent(game: str, seats: int) -> None:
    engine = get_engine(game)
    a = engine.start(GameConfig(seats=seats, seed=11))
    b = engine.start(GameConfig(seats=seats, seed=11))
    assert [engine.encode_event(e) for e in a] == [engine.encode_event(e) for e in b]
    state = engine.replay(a)
    assert state.version == len(a)
    assert engine.prompt(state) is not None


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_decoding_rejects_malformed_commands(game: str, seats: int) -> None:
    from benthic.rules import CommandFormatError

    engine = get_engine(game)
    for body, code in [
        (b"{", "invalid_json"),
        (b"[]", "malformed_command"),
        (b'{"type": "no_such_command"}', "unknown_command_type"),
    ]:
        with pytest.raises(CommandFormatError) as info:
            engine.decode_command(body)
        assert info.value.code == code


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
@settings(max_examples=1, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_playout_keeps_every_promise(game: str, seats: int, seed: int) -> None:
    check_random_playout(get_engine(game), seats, seed)


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_greedy_bots_finish_a_game(game: str, seats: int) -> None:
    engine = get_engine(game)
    events = engine.start(GameConfig(seats=seats, seed=3))
    greedy = GreedyBot()
    state, _, commands = play_out(engine, events, {s: greedy for s in range(seats)}, random.Random(3))
    assert engine.is_over(state)
    assert 0 < commands <= engine.playout_bound


def _option_names(engine) -> set[str]:  # type: ignore[no-untyped-def]
    """The option names a game records in its setup events (under options / config / flags / rules)."""
    names: set[str] = set()
    for event in engine.start(GameConfig(seats=engine.max_seats, seed=1))[:3]:
        data = msgspec.to_builtins(event)
        for field in ("options", "config", "flags", "rules"):
            if isinstance(data.get(field), dict):
                names |= set(data[field])
    return names


@pytest.mark.parametrize("game", GAMES)
def test_start_rejects_any_bad_option_value_with_a_rule_violation(game: str) -> None:
    engine = get_engine(game)
    names = _option_names(engine)
    assert names, "the setup events should record the options in force"
    for name in sorted(names):
        for value in (None, -1, 7, "x", [], {}, [1, 2], {"a": 1}, 1.5, True):
            try:
                engine.start(GameConfig(seats=engine.max_seats, seed=1, options={name: value}))
            except RuleViolation:
                pass
