"""The public integration events against a real Redis (and a real Redis Cluster): what the projection's writes
publish, once per write that moves a game forward, in FastStream's format, and what a second delivery does not."""

from __future__ import annotations

import uuid
from typing import Any

import msgspec
import pytest
from faststream.redis.parser import BinaryMessageFormatV1

from benthic.feed.encoding import DATA_FIELD, decode_message
from benthic.feed.integration import (
    EVENTS,
    GameFinished,
    TurnStarted,
    decode_event,
    event_type,
    once_id,
    rating_id,
    turn_id,
    webhook_registry,
    webhook_stream,
)
from benthic.game.keys import GameKeys
from benthic.rules import GameConfig, game_types, get_engine
from benthic.store import EventStore, NewEvent, SeatInfo
from benthic.store.loader import StateLoader
from services.projection.projector import Projector
from services.scoring.scorer import Scorer
from tests.platform_helpers import StoreGame

GAMES = game_types()


async def _entries(redis: Any, stream: str) -> list[bytes]:
    return [fields[DATA_FIELD.encode()] for _, fields in await redis.xrange(stream)]


def _events(entries: list[bytes]) -> list[Any]:
    return [decode_event(decode_message(raw)) for raw in entries]


@pytest.mark.parametrize("game_type", GAMES)
async def test_a_game_projected_move_by_move_publishes_its_events_once_in_order(redis, game_type) -> None:
    stream = f"it:{uuid.uuid4().hex[:8]}"
    store = EventStore(redis, 16)
    projector = Projector(redis, store, StateLoader(store, 100, 0), integration_stream=stream)
    game = await StoreGame(store, game_type).create()
    await projector.project(game.game_id, game_type)
    while not game.engine.is_over(game.state):
        await game.play(1)
        await projector.project(game.game_id, game_type, seats_changed=False)
    await Scorer(redis, store, StateLoader(store, 10, 0)).score(game.game_id, game_type)
    await projector.project(game.game_id, game_type, seats_changed=False)
    entries = await _entries(redis, stream)
    events = _events(entries)
    types = [type(e) for e in events]
    turns = types.count(EVENTS[2])
    assert [event_type(t) for t in types] == ["game.created", "game.started", *["turn.started"] * turns,
                                              "game.finished", "game.scored", "rating.changed", "rating.changed"]
    assert turns >= 2
    assert events[0].id == once_id(game.game_id, "game.created") and events[0].status == "running"
    assert [s.player_id for s in events[0].seats] == [f"player-{i}-{game.game_id}" for i in range(game.seats)]
    for event in events[2:2 + turns]:
        assert event.id == turn_id(game.game_id, event.version) and event.deadline_ms is None
    versions = [e.version for e in events if hasattr(e, "version")]
    assert versions == sorted(versions)
    finished, scored = events[2 + turns], events[3 + turns]
    assert finished.outcome == "completed" and scored.version == finished.version + 1 and scored.rated
    expected = game.engine.final_scores(game.state)
    assert [(r.seat, r.score, r.rank) for r in scored.results] == [(r.seat, r.score, r.rank) for r in expected.results]
    ratings = events[-2:]
    assert {r.id for r in ratings} == {rating_id(game.game_id, f"player-{i}-{game.game_id}") for i in range(2)}
    assert all(r.previous_rating is None for r in ratings)  # fresh players
    assert len({e.id for e in events}) == len(events)
    for raw in entries:  # what a FastStream StreamSub consumer parses
        body, headers = BinaryMessageFormatV1.parse(raw)
        assert headers["correlation_id"] == msgspec.json.decode(body)["id"]

    # a second delivery of every notification, a replica without the first's memory: nothing published again
    again = Projector(redis, store, StateLoader(store, 100, 0), integration_stream=stream)
    assert await again.project(game.game_id, game_type) == 0
    assert await projector.project(game.game_id, game_type) == 0
    assert await _entries(redis, stream) == entries


async def test_catching_up_reports_the_last_turn_only_and_a_rebuilt_read_model_creates_nothing_again(redis) -> None:
    stream = f"it:{uuid.uuid4().hex[:8]}"
    store = EventStore(redis, 16)
    projector = Projector(redis, store, StateLoader(store, 100, 0), integration_stream=stream)
    game = await StoreGame(store, "nautilus").create()
    created = game.version
    version = await game.play(3)
    assert await projector.project(game.game_id, "nautilus") == version
    events = _events(await _entries(redis, stream))
    assert [event_type(type(e)) for e in events] == ["game.created", "game.started", "turn.started"]
    assert events[0].version == created and events[2].version == version  # the commits between: no turn of their own
    # the read model lost (evicted, rebuilt): the game is not created or started again
    await redis.hdel(GameKeys(game.game_id, 16).read_model, "turn")
    await game.play(1)
    assert await projector.project(game.game_id, "nautilus") == game.version
    assert [event_type(type(e)) for e in _events(await _entries(redis, stream))][3:] == ["turn.started"]


async def test_on_a_redis_cluster_the_events_follow_the_writes(redis_cluster) -> None:
    stream = f"it:{uuid.uuid4().hex[:8]}"
    store = EventStore(redis_cluster, 16)
    projector = Projector(redis_cluster, store, StateLoader(store, 100, 0), integration_stream=stream)
    game = await StoreGame(store, "nautilus").create()
    await projector.project(game.game_id, "nautilus")
    first = game.engine.prompt(game.state).seats
    while game.engine.prompt(game.state).seats == first:  # to the next seat's turn
        await game.play(1)
    await projector.project(game.game_id, "nautilus", seats_changed=False)
    events = _events(await _entries(redis_cluster, stream))
    assert [event_type(type(e)) for e in events] == ["game.created", "game.started", "turn.started", "turn.started"]
    assert await projector.project(game.game_id, "nautilus") == 0
    assert len(await _entries(redis_cluster, stream)) == 4


async def _webhook_copies(redis: Any, projector: Projector, stream: str) -> None:
    """The notifier's stream gets the integration entries of registered players only, the same bytes; the
    integration stream gets every one (its other readers follow every turn)."""
    store = projector.store
    game = await StoreGame(store, "nautilus").create()
    await projector.project(game.game_id, "nautilus")
    await game.play(1)
    await projector.project(game.game_id, "nautilus", seats_changed=False)
    assert await _entries(redis, webhook_stream(stream)) == [], "nobody registered: the notifier reads nothing"
    # a registration applies to the turns published after it (the notifier adds it to the registry as it stores it)
    await redis.sadd(webhook_registry(stream), f"player-1-{game.game_id}")
    copied_from = len(await _entries(redis, stream))
    while not game.engine.is_over(game.state):
        await game.play(1)
        await projector.project(game.game_id, "nautilus", seats_changed=False)
    every = await _entries(redis, stream)
    copies = await _entries(redis, webhook_stream(stream))
    copied = [e for e in _events(every[copied_from:])
              if (isinstance(e, TurnStarted) and 1 in e.seats) or isinstance(e, GameFinished)]
    assert len(copied) >= 2 and [e.id for e in _events(copies)] == [e.id for e in copied]
    assert set(copies) <= set(every), "the same bytes as on the integration stream"
    assert any(isinstance(e, TurnStarted) and e.seats == [0] for e in _events(every[copied_from:])), (
        "turns of the unregistered seat: on the integration stream, not copied")
    assert await projector.project(game.game_id, "nautilus") == 0 and await _entries(
        redis, webhook_stream(stream)) == copies, "a second write of the same version copies nothing again"


async def test_the_notifier_s_stream_gets_the_entries_of_players_with_a_webhook_only(redis) -> None:
    stream = f"it:{uuid.uuid4().hex[:8]}"
    store = EventStore(redis, 16)
    await _webhook_copies(redis, Projector(redis, store, StateLoader(store, 100, 0), integration_stream=stream), stream)


async def test_on_a_redis_cluster_the_notifier_s_stream_gets_the_same_copies(redis_cluster) -> None:
    stream = f"it:{uuid.uuid4().hex[:8]}"
    store = EventStore(redis_cluster, 16)
    projector = Projector(redis_cluster, store, StateLoader(store, 100, 0), integration_stream=stream)
    await _webhook_copies(redis_cluster, projector, stream)


async def test_an_open_game_is_started_by_the_join_that_takes_its_last_seat(redis) -> None:
    stream = f"it:{uuid.uuid4().hex[:8]}"
    store = EventStore(redis, 16)
    projector = Projector(redis, store, StateLoader(store, 100, 0), integration_stream=stream)
    engine = get_engine("aquatica")
    game_id = f"t_{uuid.uuid4().hex[:10]}"
    events = engine.start(GameConfig(seats=2, seed=3))
    commit = await store.create(game_id, "aquatica", [NewEvent(engine.event_name(e), engine.encode_event(e))
                                                      for e in events],
                                seats=[SeatInfo("host", "Host"), None], options={}, engine_version=engine.version,
                                seeded=False, now_ms=10, rated=True)
    await projector.project(game_id, "aquatica")
    assert [event_type(type(e)) for e in _events(await _entries(redis, stream))] == ["game.created"]
    assert await store.join(game_id, "aquatica", 1, SeatInfo("guest", "Guest"), 20) == "running"
    assert await projector.project(game_id, "aquatica") == commit.last_version  # same version, new seats
    published = _events(await _entries(redis, stream))
    assert [event_type(type(e)) for e in published] == ["game.created", "game.started", "turn.started"]
    created, started, _ = published
    assert created.status == "open" and [s.kind for s in created.seats] == ["player", "open"]
    assert [s.player_id for s in started.seats] == ["host", "guest"] and started.at == 20
    assert started.version == commit.last_version
