"""Property tests over random playouts, for every seat count and every mode / rule flag.

Each playout checks, at every state: every legal command is accepted by ``decide`` (all of them, not a
sample) and random mutated commands are rejected with a RuleViolation code; after every event: the game
invariants, that the event found what it acts on (``preconditions.py``), the contract's leak rule and the
structural visibility rules of §7.  At the end: the game is
over within the bound and ``replay`` equals the step-by-step fold.

``BENTHIC_LONG_TESTS=1`` raises the number of seeds per case for soak runs.
"""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from msgspec.structs import replace

from benthic.rules import GameConfig, RuleViolation
from benthic.rules.aquatica.state import State
from benthic.rules.bots import GreedyBot, play_out
from tests.engine_harness import assert_rejects_cleanly, check_no_leak, random_commands
from tests.unit.aquatica.helpers import CAT, ENGINE
from tests.unit.aquatica.preconditions import check_event_applies
from tests.unit.aquatica.test_views import check_event_twin, check_structure

LONG = os.environ.get("BENTHIC_LONG_TESTS") == "1"
EXAMPLES = 20 if LONG else 1

OPTION_SETS: list[dict[str, Any]] = [
    {},
    {"printing": "updated"},
    {"mode": "advanced"},
    {"mode": "advanced", "printing": "updated"},
    {"use_kings": False},
    {"manta_once_per_turn": "all", "grabber_typed_chain": True},
    {"scout_rule": "updated", "matrona_never_discarded": True, "two_player_matrona_row_discard": True},
    {"solo_trigger": "matrona_or_scout", "solo_ranks": "updated", "printed_goals": "updated"},
    {"variable_goals": True, "first_seat": 0},
    {"max_rounds": 2},
    {"healer_replays": True},  # §11 Q2
    {"printing": "updated", "components": "first", "healer_replays": True},  # §11 Q4: components apart
    {"mode": "advanced", "goal_tokens": [{"token": "TOK6", "side": "back"}, {"token": "TOK2", "side": "front"},
                                         {"token": "TOK4", "side": "front"}, {"token": "TOK1", "side": "back"}]},
]
CASES = [(seats, options) for seats in (1, 2, 3, 4) for options in OPTION_SETS]


def check_invariants(state: State) -> None:
    """Resources never negative, components conserved, turn order valid."""
    n = state.seats
    assert min(state.pool_coins, state.pool_power) >= 0
    assert state.payment is None or state.payment.committed >= 0
    if state.phase == "setup":  # the setup events of `start` are still laying out the components
        return
    # Locations: each of the 56 in exactly one place
    places = list(state.location_deck + state.top_row + state.bottom_row + state.location_discard)
    for p in state.players:
        places += [bl.location_id for bl in p.board if bl is not None] + list(p.scored)
        for bl in p.board:
            if bl is not None:
                assert 0 <= bl.covered <= len(CAT.locations[bl.location_id].depths)
    assert Counter(places) == Counter(CAT.location_ids), "a Location was lost or duplicated"
    assert len(state.top_row) <= CAT.board.top_row_size and len(state.bottom_row) <= CAT.board.bottom_row_size
    # Characters: no card in two places; every starting and Ocean card of this game somewhere
    cards = list(state.ocean_deck) + [c for c in state.character_row if c] + list(state.removed_characters)
    cards += list(state.king_offer + state.kings_boxed) + ([state.in_play] if state.in_play else [])
    cards += list(state.replaying)
    for p in state.players:
        cards += list(p.hand + p.discard)
    counts = Counter(cards)
    assert max(counts.values()) == 1, "a card is in two places"
    removed, kept = CAT.ocean_cards(state.rules.components, n)  # the printing's Ocean Characters (§11 Q4)
    expected = {c for seat in range(n) for c in CAT.starting_ids[seat]} | set(removed + kept)
    assert expected <= set(counts), "a card was lost"
    # Mantas: trained ones on a track or in the reserve, once; Wild ones taken + reserve = printed
    mantas = [m.id for p in state.players for m in p.mantas]
    mantas += [spot.manta_id for track in state.tracks for spot in track]
    assert max(Counter(mantas).values(), default=1) == 1
    assert {CAT.trained_ids[s][k] for s in range(n) for k in range(4)} <= set(mantas)
    taken = Counter(m.split("#")[0] for m in mantas if "#" in m)
    for kind, printed, left in zip(CAT.wild_kinds, CAT.wild_counts, state.wild_reserve, strict=True):
        assert left >= 0 and taken[kind] + left == printed
    for track in state.tracks:
        seats_on = [spot.seat for spot in track]
        assert len(track) <= len(CAT.board.goal_track_points) and len(seats_on) == len(set(seats_on))
    # the turn
    if state.phase == "play" and state.turn_number:  # game_started comes just before the first turn_started
        assert state.active_seat == (state.first_seat + state.turn_number - 1) % n
        assert state.stage in ("before_main", "main", "after_main")
        assert (state.in_play is not None) <= (state.stage == "main")
        assert state.turn_number <= state.rules.max_rounds * n + n


def check_at_rest(state: State) -> None:
    """What holds between commands (not between the events of one command)."""
    row = state.character_row
    assert all(row[i] is not None for i in range(sum(c is not None for c in row))), "the row is not compact"
    assert state.phase == "ended" or ENGINE.prompt(state).kind not in ("resolving", "setup")
    if state.phase == "play" and state.payment is None and not state.queue and not state.ichthyander_pending:
        assert state.in_play is None and (state.pool_coins, state.pool_power) == (0, 0) or state.stage == "main"


def playout(seats: int, seed: int, options: dict[str, Any]) -> State:
    rng = random.Random(seed)
    events = ENGINE.start(GameConfig(seats=seats, seed=seed, options=options))
    viewers = [*range(seats), None]
    state, seen = ENGINE.initial_state(), None
    all_events: list[Any] = []

    def fold(new: list[Any]) -> None:
        nonlocal state, seen
        for event in new:
            check_event_applies(state, event)
            after = ENGINE.evolve(state, event)
            check_invariants(after)
            seen = check_no_leak(ENGINE, seats, state, event, after, seen)
            for viewer in viewers:
                check_structure(after, viewer)
                check_event_twin(event, viewer)
            state = after
            all_events.append(event)

    fold(events)
    for step in range(ENGINE.playout_bound):
        check_at_rest(state)
        prompt = ENGINE.prompt(state)
        if prompt is None:
            break
        for other in range(seats):
            if other not in prompt.seats:
                assert ENGINE.legal_commands(state, other) == []
        seat = rng.choice(prompt.seats)
        legal = ENGINE.legal_commands(state, seat)
        assert legal, f"{prompt.kind}: no legal command for seat {seat}"
        assert len({ENGINE.encode_command(c) for c in legal}) == len(legal), "duplicate legal commands"
        for command in legal:  # all of them
            assert ENGINE.decide(state, seat, command), command
        if step % 5 == 0:
            for odd in random_commands(ENGINE, rng, 8, legal):
                assert_rejects_cleanly(ENGINE, state, seat, odd)
        fold(ENGINE.decide(state, seat, rng.choice(legal)))
    else:
        raise AssertionError(f"no end within {ENGINE.playout_bound} commands")
    assert ENGINE.is_over(state) and ENGINE.legal_commands(state, 0) == []
    with pytest.raises(RuleViolation) as info:
        ENGINE.decide(state, 0, ENGINE.decode_command({"type": "end_turn"}))
    assert info.value.code == "game_over"
    replayed = ENGINE.replay(all_events)
    assert ENGINE.encode_state(replayed) == ENGINE.encode_state(state) and replayed == state
    assert ENGINE.decode_state(ENGINE.encode_state(state)) == state
    scores = ENGINE.final_scores(state)
    assert sorted(r.seat for r in scores.results) == list(range(seats))
    assert [r.rank for r in scores.results] == sorted(r.rank for r in scores.results)
    return state


@pytest.mark.parametrize(("seats", "options"), CASES, ids=[f"{s}p-{'-'.join(o) or 'default'}" for s, o in CASES])
@settings(max_examples=EXAMPLES, deadline=None, derandomize=not LONG, suppress_health_check=list(HealthCheck))
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_playouts_keep_every_invariant(seats: int, options: dict[str, Any], seed: int) -> None:
    playout(seats, seed, options)


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_greedy_bots_finish_advanced_games(seats: int) -> None:
    events = ENGINE.start(GameConfig(seats=seats, seed=seats, options={"mode": "advanced"}))
    greedy = GreedyBot()
    state, _, commands = play_out(ENGINE, events, {s: greedy for s in range(seats)}, random.Random(seats))
    assert ENGINE.is_over(state) and commands <= ENGINE.playout_bound
    assert ENGINE.final_scores(state).results[0].score > 0


def test_the_invariant_checks_can_fail() -> None:
    state = ENGINE.replay(ENGINE.start(GameConfig(seats=2, seed=1)))
    check_invariants(state)
    broken = [
        replace(state, location_deck=state.location_deck[1:]),
        replace(state, pool_coins=-1),
        replace(state, ocean_deck=state.ocean_deck + state.ocean_deck[:1]),
        replace(state, wild_reserve=(9, *state.wild_reserve[1:])),
        replace(state, active_seat=1),
    ]
    for bad in broken:
        with pytest.raises(AssertionError):
            check_invariants(bad)
