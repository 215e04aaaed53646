"""Undo on a real Redis through the play path (PlayPath.undo): the compensating event appended with the expected
version and the command id like every commit, replicas and snapshots that had folded the undone move folding
again, idempotency, optimistic concurrency, and the refusals."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from benthic.errors import ApiError
from benthic.play import PlayerGames, PlayPath, platform_commits
from benthic.rules.bots import RandomBot
from benthic.store import Actor, EventStore
from benthic.store.loader import StateLoader
from tests.platform_helpers import StoreGame

GAME_TYPE = "nautilus"  # silent moves early on (buying and building stations); the other types: tests/e2e


def _replica(redis: Any, store: EventStore, snapshot_every: int = 0) -> PlayPath:
    return PlayPath(store, StateLoader(store, 10, snapshot_every), PlayerGames(redis, store, cap=5), 3)


def _silent(engine: Any, state: Any, seat: int, events: list[Any]) -> bool:
    prompt = engine.prompt(state)
    return not any(engine.reveals(e) for e in events) and prompt is not None and seat in prompt.seats


async def _to_a_silent_move(play: PlayPath, game: StoreGame) -> tuple[Any, int, int, str]:
    """Play random commands through ``play`` until one reveals nothing: (state before it, its seat, the version
    before it, its command id)."""
    engine, rng, bot = game.engine, random.Random(3), RandomBot()
    for n in range(200):
        folded = await play.load(game.game_id, engine)
        prompt = engine.prompt(folded.state)
        assert prompt is not None
        seat = rng.choice(prompt.seats)
        command = bot.choose(engine, folded.state, seat, rng)
        played = await play.play(engine, game.game_id, seat, command, f"m{n}", None, Actor(f"p{seat}", "player"))
        events = engine.decide(folded.state, seat, command)
        if _silent(engine, played.state, seat, events) and n >= 2:
            return folded.state, seat, folded.version, f"m{n}"
    raise AssertionError("no silent move in 200 commands")


async def test_an_undo_is_appended_once_and_every_replica_and_snapshot_folds_as_if_the_move_never_was(redis) -> None:
    store = EventStore(redis, 16)
    game = await StoreGame(store, GAME_TYPE, seats=2, seed=4).create()
    engine = game.engine
    mover, other = _replica(redis, store, snapshot_every=1), _replica(redis, store)
    before, seat, version_before, command_id = await _to_a_silent_move(mover, game)
    moved = await other.load(game.game_id, engine)  # this replica's cache holds the move
    assert moved.version > version_before
    for _ in range(100):  # the snapshot is written in the background
        snapshot = await store.load_snapshot(game.game_id)
        if snapshot is not None and snapshot.version == moved.version:
            break  # so does the snapshot
        await asyncio.sleep(0.02)
    else:
        raise AssertionError("no snapshot at the move's version")

    done = await mover.undo(game.game_id, seat, "undo-1", moved.version, Actor(f"p{seat}", "player"))
    assert not done.duplicate and done.version == moved.version + 1
    assert done.undone is not None
    assert (done.undone.seat, done.undone.command_id, done.undone.first_version, done.undone.last_version) == (
        seat, command_id, version_before + 1, moved.version)
    again = await mover.undo(game.game_id, seat, "undo-1", None, Actor(f"p{seat}", "player"))
    assert again.duplicate and again.version == done.version and again.undone == done.undone
    assert await store.version(game.game_id) == done.version  # one entry, not two

    fresh = _replica(redis, store)  # no cache: the snapshot holds the move, so it folds from the start
    for replica in (mover, other, fresh):
        folded = await replica.load(game.game_id, engine)
        assert folded.version == done.version
        assert engine.encode_state(folded.state) == engine.encode_state(before)
    at = await StateLoader(store, 10, 0).load_at(game.game_id, engine, moved.version)
    assert at.version == moved.version and engine.encode_state(at.state) != engine.encode_state(before)


async def test_stale_versions_and_refusals_append_nothing(redis) -> None:
    store = EventStore(redis, 16)
    game = await StoreGame(store, GAME_TYPE, seats=2, seed=4).create()
    play = _replica(redis, store)
    nothing = await _refused(play, game.game_id, 0, "u0")
    assert nothing.details["reason"] == "nothing_to_undo"
    _before, seat, _version_before, _command_id = await _to_a_silent_move(play, game)
    version = await store.version(game.game_id)
    with pytest.raises(ApiError) as stale:
        await play.undo(game.game_id, seat, "u1", version - 1, Actor("p", "player"))
    assert (stale.value.status, stale.value.code, stale.value.details) == (409, "version_conflict",
                                                                           {"current_version": version})
    other = await _refused(play, game.game_id, 1 - seat, "u2")
    assert other.details["reason"] == "another_seat_acted" and other.details["seat"] == seat
    assert await store.version(game.game_id) == version
    done = await play.undo(game.game_id, seat, "u3", version, Actor("p", "player"))
    assert done.version == version + 1
    # the stale id answered with the first answer once the undo it names was made: here a fresh id is refused
    # with the same stale version, and the made undo's id still answers its undo
    with pytest.raises(ApiError):
        await play.undo(game.game_id, seat, "u4", version, Actor("p", "player"))
    repeat = await play.undo(game.game_id, seat, "u3", version, Actor("p", "player"))
    assert repeat.duplicate and repeat.version == done.version


async def test_the_option_off_refuses_every_undo(redis) -> None:
    store = EventStore(redis, 16)
    game = await StoreGame(store, GAME_TYPE, seats=2, seed=4, options={"undo": "off"}).create()
    play = _replica(redis, store)
    meta = await store.meta(game.game_id)
    assert meta is not None and meta.options == {"undo": "off"}
    _before, seat, _v, _c = await _to_a_silent_move(play, game)
    refused = await _refused(play, game.game_id, seat, "u")
    assert refused.details["reason"] == "undo_off"


async def _refused(play: PlayPath, game_id: str, seat: int, command_id: str) -> ApiError:
    with pytest.raises(ApiError) as refused:
        await play.undo(game_id, seat, command_id, None, Actor("p", "player"))
    assert (refused.value.status, refused.value.code) == (409, "undo_not_allowed")
    return refused.value


async def test_a_seat_the_house_bot_plays_cannot_undo(redis) -> None:
    store = EventStore(redis, 16)
    game = await StoreGame(store, GAME_TYPE, seats=3, seed=4).create()
    play = _replica(redis, store)
    _before, seat, _v, _c = await _to_a_silent_move(play, game)
    def resign(engine: Any, meta: Any, folded: Any) -> Any:
        return platform_commits.resign(engine, meta, folded, seat, "p")

    commit, _ = await play.platform(game.game_id, "resign", Actor("p", "player"), resign)
    assert commit is not None
    with pytest.raises(ApiError) as refused:
        await play.undo(game.game_id, seat, "u", None, Actor("p", "player"))
    assert (refused.value.status, refused.value.code) == (409, "seat_resigned")
    assert await store.version(game.game_id) == commit.last_version
