"""``determinize(state, seat, rng)`` (docs/ENGINE_CONTRACT.md), for every game type and seat count: the seat's
view, the public view and the seat's legal commands are kept; the result is a function of what the seat may
see and of the RNG only; hidden components really move; and the result is a state a game can be played on."""

from __future__ import annotations

import random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benthic.rules import get_engine
from benthic.rules.bots import RandomBot
from benthic.rules.determinize import redeal
from tests.determinize_cases import GAME_SEATS, hidden_twin, playout_states

pytestmark = pytest.mark.skipif(not GAME_SEATS, reason="no game engine registered")


def _hidden_from(engine: Any, state: Any, seat: int) -> set[str]:
    return {s.token for s in engine.secrets(state) if seat not in s.visible_to}


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_determinize_keeps_what_the_seat_sees_and_hides_the_same_things(game: str, seats: int) -> None:
    engine = get_engine(game)
    for k, state in enumerate(playout_states(game, seats, seed=seats, count=10)):
        for seat in range(seats):
            world = engine.determinize(state, seat, random.Random(k))
            assert engine.view(world, seat) == engine.view(state, seat)
            assert engine.view(world, None) == engine.view(state, None), "public information is kept"
            assert engine.prompt(world) == engine.prompt(state)
            assert engine.legal_commands(world, seat) == engine.legal_commands(state, seat)
            assert _hidden_from(engine, world, seat) == _hidden_from(engine, state, seat)
            assert world.seed != state.seed, "the seed tells every future draw"


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_determinize_depends_only_on_what_the_seat_may_see(game: str, seats: int) -> None:
    engine = get_engine(game)
    twins = 0
    for k, state in enumerate(playout_states(game, seats, seed=10 + seats, count=8)):
        for seat in range(seats):
            others = [engine.determinize(state, seat, random.Random(f"other:{k}"))]
            twin = hidden_twin(game, state, seat)
            if twin is not None:
                assert engine.view(twin, seat) == engine.view(state, seat), "the twin differs only in hidden things"
                others.append(twin)
                twins += 1
            for other in others:
                a, b = random.Random(k), random.Random(k)
                mine, theirs = engine.determinize(state, seat, a), engine.determinize(other, seat, b)
                assert engine.encode_state(mine) == engine.encode_state(theirs)
                assert a.getstate() == b.getstate(), "the RNG is consumed alike"
    assert twins, "some states have hidden components to swap"


@pytest.mark.parametrize(("game", "seats"), [gs for gs in GAME_SEATS if gs[1] > 1])
def test_hidden_components_are_resampled(game: str, seats: int) -> None:
    """Another seat's view of a determinization differs from its true view once it holds secrets from
    ``seat`` (its hand, its assignment ...), for some RNG."""
    engine = get_engine(game)
    checked = 0
    for state in playout_states(game, seats, seed=20 + seats, count=6):
        for seat in range(seats):
            other = (seat + 1) % seats
            secret = {s.token for s in engine.secrets(state) if other in s.visible_to and seat not in s.visible_to}
            if not secret:
                continue
            worlds = [engine.determinize(state, seat, random.Random(r)) for r in range(6)]
            assert any(engine.view(w, other) != engine.view(state, other) for w in worlds)
            checked += 1
    assert checked


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_a_game_goes_on_to_its_end_from_a_determinization(game: str, seats: int) -> None:
    engine = get_engine(game)
    states = list(playout_states(game, seats, seed=30 + seats, count=4))[1:-1]
    rng = random.Random(seats)
    for k, state in enumerate(states):
        seat = k % seats
        world = engine.determinize(state, seat, rng)
        prompt = engine.prompt(world)
        assert prompt is not None
        for s in prompt.seats:
            for command in engine.legal_commands(world, s)[:5]:
                engine.decide(world, s, command)
        engine.heuristic(world, seat)
        end = play_out_from(engine, world, rng)
        assert engine.is_over(end)
        engine.final_scores(end)


def play_out_from(engine: Any, state: Any, rng: random.Random) -> Any:
    """The end of a random game from ``state``."""
    bot = RandomBot()
    for _ in range(engine.playout_bound):
        prompt = engine.prompt(state)
        if prompt is None:
            return state
        seat = prompt.seats[0] if len(prompt.seats) == 1 else rng.choice(prompt.seats)
        state = engine.fold(state, engine.decide(state, seat, bot.choose(engine, state, seat, rng)))
    raise AssertionError(f"no end within {engine.playout_bound} commands")


@given(
    classes=st.lists(st.tuples(st.sampled_from("abc"), st.integers(0, 50)), min_size=0, max_size=30, unique=True),
    spare=st.lists(st.tuples(st.sampled_from("abc"), st.integers(51, 60)), max_size=5, unique=True),
    order=st.randoms(use_true_random=False),
    seed=st.integers(0, 2**32),
)
def test_redeal_is_a_function_of_classes_and_rng_only(
    classes: list[tuple[str, int]], spare: list[tuple[str, int]], order: random.Random, seed: int
) -> None:
    places = [(cls, f"{cls}{n}") for cls, n in classes]
    spares = [(cls, f"{cls}{n}") for cls, n in spare]
    shuffled = list(places)
    order.shuffle(shuffled)
    moved = _same_classes(places, shuffled)  # the same class place by place, the tokens lying elsewhere
    a = redeal(places, random.Random(seed), spares)
    b = redeal(moved, random.Random(seed), list(reversed(spares)))
    assert a == b
    for (cls, _), token in zip(places, a, strict=True):
        assert token.startswith(cls)
    assert len(set(a)) == len(a)


def _same_classes(places: list[tuple[str, str]], shuffled: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``places`` with the tokens of each class permuted as in ``shuffled``."""
    pools: dict[str, list[str]] = {}
    for cls, token in shuffled:
        pools.setdefault(cls, []).append(token)
    return [(cls, pools[cls].pop()) for cls, _ in places]
