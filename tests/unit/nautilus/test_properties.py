"""N-57 and the property tests: random playouts for every seat count and every flag value; every event finds
what it acts on (``preconditions.py``).

``BENTHIC_LONG_TESTS=1`` raises the number of examples for soak runs.
"""

from __future__ import annotations

import os
import random
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benthic.rules import GameConfig, RuleViolation
from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.state import State
from tests.engine_harness import assert_rejects_cleanly, check_random_playout, random_commands
from tests.unit.nautilus.fixtures import ENGINE
from tests.unit.nautilus.invariants import TurnOrder, check_state, check_step
from tests.unit.nautilus.preconditions import check_event_applies

LONG = os.environ.get("BENTHIC_LONG_TESTS") == "1"
EXAMPLES = 300 if LONG else 16
MAX_ROUNDS = 230  # §6.14

FLAG_VALUES: dict[str, list[Any]] = {
    "base_placement": ["first_game", "random", [10, 11]],
    "start_seat": ["random", 0, 1],
    "allow_withdraw_in_place": [True, False],
    "tiebreak": ["shared", "most_nemo"],
    "assignment_cashing": ["prompt", "auto_optimal"],
    "auto_pass": [True, False],
}

options_strategy = st.fixed_dictionaries({}, optional={k: st.sampled_from(v) for k, v in FLAG_VALUES.items()})


def canonical(command: Any) -> Any:
    """The form ``legal_commands`` lists (R-22 rotations; upgrades without zeros)."""
    if isinstance(command, cmd.BuildStation) and command.tile in C.tiles and command.rotation % 90 == 0:
        layouts = C.tiles[command.tile].board_locks
        first = layouts.index(layouts[command.rotation // 90 % 4])
        return cmd.BuildStation(tile=command.tile, anchor=command.anchor, rotation=first * 90)
    if isinstance(command, cmd.CashAssignment):
        return cmd.CashAssignment(upgrades={k: v for k, v in command.upgrades.items() if v})
    return command


def check_redactions(event: Any, state: State) -> None:
    """Structural redaction of §7.2 (token checks alone cannot see e.g. a kind shown at a cell)."""
    for viewer in [*range(state.player_count), None]:
        data = ENGINE.redact(event, viewer)
        assert data is not None
        msgspec.json.encode(data)
        assert "seed" not in data
        if isinstance(event, ev.SeaFindsDealt):
            assert all(set(p) == {"cell", "depth"} for p in data["placements"])
        elif isinstance(event, ev.AssignmentDealt) and viewer != event.seat:
            assert data == {"type": "assignment_dealt", "seat": event.seat}
        elif isinstance(event, ev.FindsPeeked) and viewer != event.seat:
            assert "chips" not in data
            if event.source == "trial":
                assert set(data) == {"type", "seat", "source", "count"}
            else:
                assert data["cells"] == [list(c.cell) for c in event.chips]


def check_views(state: State) -> None:
    for viewer in [*range(state.player_count), None]:
        view = ENGINE.view(state, viewer)
        if not state.ended:
            for f in view["finds"]:
                assert f["face_up"] or set(f) == {"cell", "depth", "face_up"}, f
        known = set(state.seats[viewer].known) if viewer is not None else set()
        shown = {C.find_space_at[C.cell(*k["cell"])] for k in view["known_finds"]}
        assert shown == known
        for s in view["seats"]:
            if s["seat"] != viewer and not s["cashed"]:
                assert s["assignment"] is None
        if state.turn is None or state.turn.seat != viewer:
            assert view["trial_peeked"] == []


PASSES = (cmd.EndTurn, cmd.SkipTempo, cmd.EndPeeks, cmd.SkipBonus)


def play_checked(
    seats: int, seed: int, options: dict[str, Any], every: int = 5, eager: bool = False
) -> tuple[State, int]:
    """A random game with every check of N-57; returns the final state and the number of commands.
    An ``eager`` player passes only when it has nothing else to do, which reaches deeper positions."""
    rng = random.Random(seed)
    events = ENGINE.start(GameConfig(seats=seats, seed=seed, options=options))
    order = TurnOrder()
    state = ENGINE.initial_state()

    def fold(new: list[Any]) -> None:
        nonlocal state
        for event in new:
            check_event_applies(state, event)
            after = ENGINE.evolve(state, event)
            assert after.version == state.version + 1
            check_state(after)
            check_step(state, after)
            check_redactions(event, after)
            if isinstance(event, ev.RoundStarted):
                order.round_started(event.round, event.start_seat, seats)
            elif isinstance(event, ev.TurnStarted):
                order.turn_started(event.round, event.phase, event.seat)
            elif isinstance(event, ev.RoundEnded):
                order.round_ended()
            state = after

    fold(events)
    commands = 0
    while (prompt := ENGINE.prompt(state)) is not None:
        assert commands < ENGINE.playout_bound and state.round <= MAX_ROUNDS
        seat = rng.choice(prompt.seats)
        legal = ENGINE.legal_commands(state, seat)
        encoded = [ENGINE.encode_command(c) for c in legal]
        assert legal and len(set(encoded)) == len(encoded), "legal_commands is empty or repeats itself"
        if commands % every == 0:
            for command in legal:
                assert assert_rejects_cleanly(ENGINE, state, seat, command), f"legal {command!r} rejected"
            for odd in random_commands(ENGINE, rng, 8, legal):
                if assert_rejects_cleanly(ENGINE, state, seat, odd):
                    assert canonical(odd) in legal, f"decide accepted {odd!r}, which legal_commands lacks"
            for other in range(seats):
                if other not in prompt.seats:
                    assert ENGINE.legal_commands(state, other) == []
                    with pytest.raises(RuleViolation):
                        ENGINE.decide(state, other, legal[0])
            check_views(state)
        active = [c for c in legal if not isinstance(c, PASSES)] if eager else legal
        command = rng.choice(active or legal)
        new = ENGINE.decide(state, seat, command)
        events.extend(new)
        fold(new)
        commands += 1
    assert state.ended and state.round <= MAX_ROUNDS
    check_views(state)
    replayed = ENGINE.replay(events)
    assert ENGINE.encode_state(replayed) == ENGINE.encode_state(state)
    assert ENGINE.decode_state(ENGINE.encode_state(state)) == state
    with pytest.raises(RuleViolation) as info:
        ENGINE.decide(state, 0, cmd.EndTurn())
    assert info.value.code == "game_over"
    return state, commands


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    seats=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**31),
    options=options_strategy,
    eager=st.booleans(),
)
def test_n57_random_playouts_keep_every_promise(
    seats: int, seed: int, options: dict[str, Any], eager: bool
) -> None:
    play_checked(seats, seed, options, eager=eager)


FLAG_CASES = [(flag, value) for flag, values in FLAG_VALUES.items() for value in values]


@pytest.mark.parametrize(("flag", "value"), FLAG_CASES, ids=[f"{f}={v}" for f, v in FLAG_CASES])
def test_n57_every_flag_value_with_every_seat_count(flag: str, value: Any) -> None:
    for seats in (2, 3, 4):
        seed = sum(map(ord, f"{flag}{value}")) * seats
        play_checked(seats, seed, {flag: value}, every=9, eager=seats != 3)


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize(
    "options",
    [{}, {"auto_pass": False, "allow_withdraw_in_place": False}, {"assignment_cashing": "auto_optimal",
                                                                   "base_placement": "random"}],
    ids=["defaults", "manual", "auto_cash"],
)
def test_harness_playout_no_leaks(seats: int, options: dict[str, Any]) -> None:
    """The generic contract checks (leak rule, codecs, replay, scores) under the game's flags."""
    check_random_playout(ENGINE, seats, 97 * seats + len(options), options)


def test_playouts_exercise_the_rules() -> None:
    """The random playouts are not vacuous: over a few games every kind of command and event happens."""
    seen_commands: set[str] = set()
    seen_events: set[str] = set()
    rng = random.Random(5)
    for game in range(40):
        seats = 2 + game % 3
        options = {"auto_pass": game % 2 == 0, "assignment_cashing": "prompt"}
        events = ENGINE.start(GameConfig(seats=seats, seed=game, options=options))
        state = ENGINE.replay(events)
        seen_events.update(ENGINE.event_name(e) for e in events)
        while (prompt := ENGINE.prompt(state)) is not None:
            seat = rng.choice(prompt.seats)
            legal = ENGINE.legal_commands(state, seat)
            # prefer anything but passing, to get deep into the game
            choices = [c for c in legal if not isinstance(c, (cmd.EndTurn, cmd.SkipBonus, cmd.SkipTempo,
                                                                cmd.EndPeeks))] or legal
            command = rng.choice(choices)
            seen_commands.add(type(command).__struct_config__.tag)
            new = ENGINE.decide(state, seat, command)
            seen_events.update(ENGINE.event_name(e) for e in new)
            state = ENGINE.fold(state, new)
    expected_commands = set(ENGINE.command_names) - {"end_turn", "skip_bonus", "skip_tempo", "end_peeks"}
    assert expected_commands <= seen_commands, expected_commands - seen_commands
    missing = {t.__struct_config__.tag for t in ev.Event.__args__} - seen_events
    assert missing <= {"option_declined"}, missing  # declining is never chosen here
