"""benthic.play's guarantees on a real Redis: optimistic concurrency between replicas (two PlayPaths over one
store, each with its own cache), the reload-and-retry, idempotent command ids, and each command's outcome
counted once in benthic_commands_total."""

from __future__ import annotations

import random
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from prometheus_client import REGISTRY

from bench.counter_engine import ENGINE, Increment
from benthic import rules
from benthic.errors import ApiError
from benthic.play import PlayerGames, PlayPath, platform_commits
from benthic.rules import GameConfig, register_engine
from benthic.rules.bots import RandomBot
from benthic.store import Actor, EventStore, NewEvent, SeatInfo
from benthic.store.loader import StateLoader
from tests.platform_helpers import StoreGame

P0, P1 = Actor("p0", "player"), Actor("p1", "player")


@pytest.fixture
def engine() -> Iterator[object]:
    if ENGINE.game_type in rules.game_types():
        yield ENGINE
        return
    register_engine(ENGINE)
    try:
        yield ENGINE
    finally:
        rules._EXTRA.pop(ENGINE.game_type, None)
        rules.game_types.cache_clear()


async def _game(store: EventStore, moves: int = 10) -> str:
    """A counter game of two players; seat 0 moves first, the seats alternate."""
    game_id = f"co_{uuid.uuid4().hex[:12]}"
    events = [NewEvent(ENGINE.event_name(e), ENGINE.encode_event(e), engine_version=ENGINE.engine_version)
              for e in ENGINE.start(GameConfig(seats=2, seed=1, options={"moves": moves}))]
    await store.create(game_id, ENGINE.game_type, events, seats=[SeatInfo("p0"), SeatInfo("p1")],
                       options={"moves": moves}, engine_version=ENGINE.version, seeded=True, now_ms=1)
    return game_id


def _replica(redis, store: EventStore, conflict_retries: int = 3) -> PlayPath:
    return PlayPath(store, StateLoader(store, 10, 0), PlayerGames(redis, store, cap=5), conflict_retries)


def _commands(outcome: str, code: str = "") -> float:
    labels = {"game_type": ENGINE.game_type, "command": "increment", "outcome": outcome, "code": code}
    return REGISTRY.get_sample_value("benthic_commands_total", labels) or 0.0


def _conflicts() -> float:
    return REGISTRY.get_sample_value("benthic_append_conflicts_total", {"game_type": ENGINE.game_type}) or 0.0


async def test_a_repeated_command_id_answers_its_first_commit(redis, engine) -> None:
    store = EventStore(redis, 16)
    play = _replica(redis, store)
    game_id = await _game(store)
    accepted, duplicates = _commands("accepted"), _commands("duplicate")
    refused = _commands("rejected", "not_your_turn")
    first = await play.play(engine, game_id, 0, Increment(), "c1", None, P0)
    assert not first.duplicate and first.state.count == 1
    assert first.events == [{"version": first.first_version, "event": {"type": "incremented", "seat": 0, "count": 1}}]
    # decided again on the state after it, the command is not seat 0's turn: the store says it was committed
    again = await play.play(engine, game_id, 0, Increment(), "c1", None, P0)
    assert again.duplicate and again.state is None
    assert (again.first_version, again.last_version, again.events) == (first.first_version, first.last_version,
                                                                        first.events)
    assert await store.version(game_id) == first.last_version
    assert (_commands("accepted") - accepted, _commands("duplicate") - duplicates,
            _commands("rejected", "not_your_turn") - refused) == (1, 1, 0)


async def test_a_replica_behind_decides_again_on_the_reloaded_state(redis, engine) -> None:
    store = EventStore(redis, 16)
    behind, ahead = _replica(redis, store), _replica(redis, store)
    game_id = await _game(store)
    await behind.play(engine, game_id, 0, Increment(), "c1", None, P0)
    await ahead.play(engine, game_id, 1, Increment(), "c2", None, P1)
    # behind's cache says seat 1 moves: a rule violation a stale state may explain, decided again fresh
    conflicts = _conflicts()
    third = await behind.play(engine, game_id, 0, Increment(), "c3", None, P0)
    assert third.state.count == 3 and _conflicts() == conflicts
    await ahead.play(engine, game_id, 1, Increment(), "c4", None, P1)
    await ahead.play(engine, game_id, 0, Increment(), "c5", None, P0)
    # two moves behind, its cache says seat 1 moves again: decided there, the append meets the newer version
    sixth = await behind.play(engine, game_id, 1, Increment(), "c6", None, P1)
    assert sixth.state.count == 6 and not sixth.duplicate
    assert _conflicts() == conflicts + 1
    assert sixth.first_version == (await store.version(game_id))


async def test_an_expected_version_ahead_of_the_cache_loads_the_game_first(redis, engine) -> None:
    store = EventStore(redis, 16)
    behind, ahead = _replica(redis, store), _replica(redis, store)
    game_id = await _game(store)
    await behind.play(engine, game_id, 0, Increment(), "c1", None, P0)
    second = await ahead.play(engine, game_id, 1, Increment(), "c2", None, P1)
    conflicts = _conflicts()
    third = await behind.play(engine, game_id, 0, Increment(), "c3", second.last_version, P0)
    assert third.state.count == 3 and third.first_version == second.last_version + 1
    assert _conflicts() == conflicts


async def test_a_stale_expected_version_is_refused_unless_the_command_was_committed(redis, engine) -> None:
    store = EventStore(redis, 16)
    play = _replica(redis, store)
    game_id = await _game(store)
    start = await store.version(game_id)
    first = await play.play(engine, game_id, 0, Increment(), "c1", start, P0)
    conflicts = _commands("conflict", "version_conflict")
    with pytest.raises(ApiError) as refused:
        await play.play(engine, game_id, 1, Increment(), "c2", start, P1)
    assert (refused.value.status, refused.value.code) == (409, "version_conflict")
    assert refused.value.details == {"current_version": first.last_version}
    assert _commands("conflict", "version_conflict") == conflicts + 1
    retried = await play.play(engine, game_id, 0, Increment(), "c1", start, P0)
    assert retried.duplicate and retried.last_version == first.last_version


async def test_a_rule_violation_is_refused_on_the_current_state(redis, engine) -> None:
    store = EventStore(redis, 16)
    play = _replica(redis, store)
    game_id = await _game(store)
    refusals = _commands("rejected", "not_your_turn")
    with pytest.raises(ApiError) as refused:
        await play.play(engine, game_id, 1, Increment(), "c1", None, P1)
    assert (refused.value.status, refused.value.code) == (422, "not_your_turn")
    assert _commands("rejected", "not_your_turn") == refusals + 1
    assert await store.committed(game_id, "c1") is None


async def test_the_retries_end_in_too_many_conflicts(redis, engine) -> None:
    store = EventStore(redis, 16)
    behind, ahead = _replica(redis, store, conflict_retries=0), _replica(redis, store)
    game_id = await _game(store)
    await behind.play(engine, game_id, 0, Increment(), "c1", None, P0)
    await ahead.play(engine, game_id, 1, Increment(), "c2", None, P1)
    await ahead.play(engine, game_id, 0, Increment(), "c3", None, P0)
    too_many = _commands("conflict", "too_many_conflicts")
    with pytest.raises(ApiError) as refused:
        await behind.play(engine, game_id, 1, Increment(), "c4", None, P1)
    assert (refused.value.status, refused.value.code) == (409, "too_many_conflicts")
    assert _commands("conflict", "too_many_conflicts") == too_many + 1
    assert await store.committed(game_id, "c4") is None


async def test_a_finished_game_refuses_commands_but_answers_its_last_one_again(redis, engine) -> None:
    store = EventStore(redis, 16)
    play = _replica(redis, store)
    game_id = await _game(store, moves=1)
    last = await play.play(engine, game_id, 0, Increment(), "c1", None, P0)
    finished = _commands("rejected", "game_finished")
    with pytest.raises(ApiError) as refused:
        await play.play(engine, game_id, 1, Increment(), "c2", None, P1)
    assert (refused.value.status, refused.value.code) == (409, "game_finished")
    assert _commands("rejected", "game_finished") == finished + 1
    assert (await play.play(engine, game_id, 0, Increment(), "c1", None, P0)).last_version == last.last_version


async def test_a_command_of_a_seat_that_left_is_counted_under_seat_resigned(redis) -> None:
    """Refused for the house bot playing the seat: counted under the refusal's own code (seat_resigned for a seat
    that resigned, seat_taken_over only for a clock's takeover)."""
    store = EventStore(redis, 16)
    game = await StoreGame(store, "nautilus", seats=3, seed=4).create()  # 3 seats: one leaving ends nothing
    play, engine = _replica(redis, store), game.engine
    folded = await play.load(game.game_id, engine)
    seat = engine.prompt(folded.state).seats[0]
    command = RandomBot().choose(engine, folded.state, seat, random.Random(1))

    def resign(engine: Any, meta: Any, folded: Any) -> Any:
        return platform_commits.resign(engine, meta, folded, seat, "p")

    commit, _ = await play.platform(game.game_id, "resign", Actor("p", "player"), resign)
    assert commit is not None

    def counted(code: str) -> float:
        labels = {"game_type": "nautilus", "command": engine.command_name(command), "outcome": "rejected",
                  "code": code}
        return REGISTRY.get_sample_value("benthic_commands_total", labels) or 0.0

    resigned, taken_over = counted("seat_resigned"), counted("seat_taken_over")
    with pytest.raises(ApiError) as refused:
        await play.play(engine, game.game_id, seat, command, "after-resigning", None, Actor("p", "player"))
    assert (refused.value.status, refused.value.code) == (409, "seat_resigned")
    assert (counted("seat_resigned") - resigned, counted("seat_taken_over") - taken_over) == (1, 0)
