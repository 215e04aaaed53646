"""The event store against a real Redis."""

from __future__ import annotations

import asyncio
import uuid

import pytest
from benthic.events import notification_decoder
from benthic.feed import DATA_FIELD
from benthic.store import (
    EventStore,
    GameNotFound,
    JoinRefused,
    NewEvent,
    SeatInfo,
    Snapshot,
    VersionConflict,
)
from faststream.redis.parser import BinaryMessageFormatV1


def _events(n: int, tag: str = "e") -> list[NewEvent]:
    return [NewEvent(type="tick", data=f'{{"type":"tick","n":"{tag}{i}"}}'.encode()) for i in range(n)]


async def _new_game(store: EventStore, seats: int = 2, open_seats: int = 0) -> str:
    game_id = f"g{uuid.uuid4().hex[:12]}"
    infos = [SeatInfo(f"p{i}", f"P{i}") for i in range(seats - open_seats)] + [None] * open_seats
    await store.create(
        game_id, "test", _events(1, "setup"), seats=infos, options={}, engine_version="t1", seeded=False,
        now_ms=1,
    )
    return game_id


async def test_fifty_concurrent_writers_get_gapless_versions_and_one_winner_per_version(redis) -> None:
    store = EventStore(redis, partitions=16)
    game_id = await _new_game(store)
    wins: dict[int, list[int]] = {}

    async def writer(w: int) -> None:
        for attempt in range(200):
            current = await store.version(game_id)
            try:
                commit = await store.append(
                    game_id, "test", current, _events(2, f"w{w}a{attempt}"), command_id=f"w{w}", now_ms=2
                )
            except VersionConflict as conflict:
                assert conflict.current > current
                continue
            if not commit.duplicate:
                wins.setdefault(current, []).append(w)
            return
        raise AssertionError(f"writer {w} never won")

    await asyncio.gather(*(writer(w) for w in range(50)))
    entries = await store.load(game_id)
    assert [e.version for e in entries] == list(range(1, 102))
    assert all(len(winners) == 1 for winners in wins.values())
    assert len(wins) == 50
    assert await store.version(game_id) == 101
    by_command: dict[str, list[int]] = {}
    for entry in entries[1:]:
        by_command.setdefault(entry.command_id, []).append(entry.version)
    assert len(by_command) == 50 and all(len(v) == 2 and v[1] == v[0] + 1 for v in by_command.values())


async def test_repeated_command_id_returns_first_commit_and_adds_nothing(redis) -> None:
    store = EventStore(redis, partitions=16)
    game_id = await _new_game(store)
    first = await store.append(game_id, "test", 1, _events(3), command_id="c1", now_ms=5)
    assert (first.first_version, first.last_version, first.duplicate) == (2, 4, False)
    feed_len = await redis.xlen(store.keys(game_id).feed)
    again = await store.append(game_id, "test", 1, _events(3, "x"), command_id="c1", now_ms=6)
    later = await store.append(game_id, "test", 4, _events(1, "y"), command_id="c1", now_ms=7)
    assert (again.first_version, again.last_version, again.duplicate) == (2, 4, True)
    assert later == again
    assert await store.version(game_id) == 4
    assert await redis.xlen(store.keys(game_id).feed) == feed_len
    assert await store.committed(game_id, "c1") == again


async def test_stale_expected_version_is_a_conflict_and_appends_nothing(redis) -> None:
    store = EventStore(redis, partitions=16)
    game_id = await _new_game(store)
    await store.append(game_id, "test", 1, _events(1), command_id="a", now_ms=1)
    with pytest.raises(VersionConflict) as info:
        await store.append(game_id, "test", 1, _events(1), command_id="b", now_ms=1)
    assert info.value.current == 2
    assert await store.committed(game_id, "b") is None
    with pytest.raises(GameNotFound):
        await store.append("nope", "test", 3, _events(1), now_ms=1)


async def test_load_by_version_range_and_meta(redis) -> None:
    store = EventStore(redis, partitions=16)
    game_id = await _new_game(store, seats=3, open_seats=1)
    await store.append(game_id, "test", 1, _events(5), command_id="c", seat=1, now_ms=9, ended=True)
    middle = await store.load(game_id, after=2, until=4)
    assert [e.version for e in middle] == [3, 4]
    assert middle[0].seat == 1 and middle[0].command_id == "c" and middle[0].ts_ms == 9
    meta = await store.meta(game_id)
    assert meta is not None
    assert meta.version == 6 and meta.status == "finished" and meta.seats[2] is None
    assert meta.seats[0] == SeatInfo("p0", "P0")


async def test_feed_entries_are_in_faststream_format(redis) -> None:
    store = EventStore(redis, partitions=16)
    game_id = await _new_game(store)
    await store.append(game_id, "test", 1, _events(2), command_id="c", now_ms=42, ended=True)
    [(_id, fields)] = await redis.xrevrange(store.keys(game_id).feed, count=1)
    body, headers = BinaryMessageFormatV1.parse(fields[DATA_FIELD.encode()])
    note = notification_decoder.decode(body)
    assert (note.game_id, note.first_version, note.last_version, note.ended) == (game_id, 2, 3, True)
    assert note.types == ["tick", "tick"] and note.ts_ms == 42
    assert headers["content-type"] == "application/json"


async def test_join_fills_open_seats_once(redis) -> None:
    store = EventStore(redis, partitions=16)
    game_id = await _new_game(store, seats=3, open_seats=2)
    assert (await store.meta(game_id)).status == "open"
    assert await store.join(game_id, "test", 1, SeatInfo("alice", "Alice"), now_ms=3) == "open"
    with pytest.raises(JoinRefused) as taken:
        await store.join(game_id, "test", 1, SeatInfo("bob", "Bob"), now_ms=3)
    assert taken.value.reason == "seat_taken"
    with pytest.raises(JoinRefused) as twice:
        await store.join(game_id, "test", 2, SeatInfo("alice", "Alice"), now_ms=3)
    assert twice.value.reason == "already_seated"
    with pytest.raises(JoinRefused) as bad:
        await store.join(game_id, "test", 7, SeatInfo("carol", "Carol"), now_ms=3)
    assert bad.value.reason == "no_such_seat"
    results = await asyncio.gather(
        *(store.join(game_id, "test", 2, SeatInfo(f"x{i}"), now_ms=4) for i in range(10)),
        return_exceptions=True,
    )
    assert sum(1 for r in results if r == "running") == 1
    meta = await store.meta(game_id)
    assert meta.status == "running" and meta.seats[1] == SeatInfo("alice", "Alice")


async def test_snapshots_keep_the_newest(redis) -> None:
    store = EventStore(redis, partitions=16)
    await store.save_snapshot("g1", Snapshot("v1", 10, b"ten"))
    await store.save_snapshot("g1", Snapshot("v1", 5, b"five"))
    assert await store.load_snapshot("g1") == Snapshot("v1", 10, b"ten")
    await store.save_snapshot("g1", Snapshot("v2", 3, b"three"))
    assert await store.load_snapshot("g1") == Snapshot("v2", 3, b"three")
