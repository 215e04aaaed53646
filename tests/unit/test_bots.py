"""The bots by name (``make_bot``, ``BOT_NAMES``) and the no-peeking property: for every game type and seat
count, a bot's choice (same RNG seed) is the same on the true state and on a state that differs from it only
in what the bot's seat may not see: another determinization of it, or the true state with two hidden
components swapped and another seed."""

from __future__ import annotations

import random
from typing import Any

import pytest

from benthic.rules import get_engine
from benthic.rules.bot_settings import bot_settings
from benthic.rules.bots import BOT_NAMES, GreedyBot, RandomBot, make_bot
from benthic.rules.search import DEFAULT_LEVEL, LEVELS, SearchBot
from tests.determinize_cases import GAME_SEATS, GAMES, hidden_twin, prompted_states

pytestmark = pytest.mark.skipif(not GAME_SEATS, reason="no game engine registered")


def test_every_name_makes_its_bot() -> None:
    assert set(BOT_NAMES) == {"random", "greedy", "mcts"}
    for name in BOT_NAMES:
        assert make_bot(name).name == name
    assert isinstance(make_bot("random"), RandomBot) and isinstance(make_bot("greedy", 3), GreedyBot)
    assert make_bot("mcts").level == DEFAULT_LEVEL == 2
    assert [make_bot("mcts", level).level for level in LEVELS] == [1, 2, 3]


@pytest.mark.parametrize(("name", "level"), [("nobody", None), ("mcts", 0), ("mcts", 4), ("MCTS", None)])
def test_unknown_bots_and_levels_are_refused(name: str, level: int | None) -> None:
    with pytest.raises(ValueError, match="mcts|unknown bot"):
        make_bot(name, level)


@pytest.mark.parametrize("game", GAMES)
def test_every_game_has_bot_settings_and_levels_grow(game: str) -> None:
    settings = bot_settings(game)
    assert list(settings.levels) == sorted(settings.levels) and settings.levels[0] >= 1


def _bots() -> list[Any]:
    return [make_bot("random"), make_bot("greedy"), make_bot("mcts", 1)]


def _choice(engine: Any, bot: Any, state: Any, seat: int, seed: int) -> Any:
    return engine.command_to_builtins(bot.choose(engine, state, seat, random.Random(seed)))


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_bots_do_not_peek(game: str, seats: int) -> None:
    engine = get_engine(game)
    checked = 0
    for k, (state, seat) in enumerate(prompted_states(game, seats, seed=40 + seats, count=4)):
        twins = [engine.determinize(state, seat, random.Random(f"twin:{k}"))]
        twin = hidden_twin(game, state, seat)
        if twin is not None:
            twins.append(twin)
        for bot in _bots():
            mine = _choice(engine, bot, state, seat, k)
            for other in twins:
                assert _choice(engine, bot, other, seat, k) == mine, f"{bot.name} peeked"
            checked += 1
    assert checked


@pytest.mark.parametrize("game", GAMES)
def test_every_level_of_the_search_bot_plays_a_legal_move(game: str) -> None:
    engine = get_engine(game)
    for state, seat in prompted_states(game, 2, seed=3, count=2):
        legal = [engine.command_to_builtins(c) for c in engine.legal_commands(state, seat)]
        for level in LEVELS:
            command = SearchBot(level).choose(engine, state, seat, random.Random(level))
            assert engine.command_to_builtins(command) in legal
            engine.decide(state, seat, command)


@pytest.mark.parametrize("game", GAMES)
def test_a_bot_of_a_seat_that_is_not_prompted_says_so(game: str) -> None:
    engine = get_engine(game)
    state, seat = next((s, seat) for s, seat in prompted_states(game, 2, seed=1, count=10)
                       if engine.prompt(s).seats == (seat,))
    for bot in _bots():
        with pytest.raises(LookupError):
            bot.choose(engine, state, 1 - seat, random.Random(1))
