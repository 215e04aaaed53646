"""The event store's contract, written once (the way the `eventsourcing` library tests every recorder) and run
against a single Redis (test_store.py) and a Redis Cluster (test_cluster.py) alike.

A subclass provides the ``client`` fixture: a redis-py client of the server under test, flushed."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest
from faststream.redis.parser import BinaryMessageFormatV1

from benthic.feed.encoding import DATA_FIELD
from benthic.feed.keys import feed_key, lifecycle_key
from benthic.feed.notification import notification_decoder
from benthic.game.commits import commit_span
from benthic.store import Actor, EventStore, GameNotFound, JoinRefused, NewEvent, SeatInfo, Snapshot, VersionConflict
from benthic.store.entries import DATA, HEAD


def events(n: int, tag: str = "e", kind: str = "e") -> list[NewEvent]:
    return [NewEvent(type="tick", data=f'{{"type":"tick","n":"{tag}{i}"}}'.encode(), kind=kind) for i in range(n)]


async def new_game(store: EventStore, seats: int = 2, open_seats: int = 0) -> str:
    game_id = f"g{uuid.uuid4().hex[:12]}"
    infos = [SeatInfo(f"p{i}", f"P{i}") for i in range(seats - open_seats)] + [None] * open_seats
    await store.create(
        game_id, "test", events(1, "setup"), seats=infos, options={}, engine_version="t1", seeded=False, now_ms=1,
    )
    return game_id


class EventStoreContract:
    @pytest.fixture
    def store(self, client: Any) -> EventStore:
        return EventStore(client, partitions=16)

    async def test_fifty_concurrent_writers_get_gapless_versions_and_one_winner_per_version(self, store) -> None:
        game_id = await new_game(store)
        wins: dict[int, list[int]] = {}

        async def writer(w: int) -> None:
            for attempt in range(200):
                current = await store.version(game_id)
                try:
                    commit = await store.append(
                        game_id, "test", current, events(2, f"w{w}a{attempt}"), command_id=f"w{w}", now_ms=2
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

    async def test_repeated_command_id_returns_first_commit_and_adds_nothing(self, store, client) -> None:
        game_id = await new_game(store)
        first = await store.append(game_id, "test", 1, events(3), command_id="c1", now_ms=5)
        assert (first.first_version, first.last_version, first.duplicate) == (2, 4, False)
        feed_len = await client.xlen(feed_key(store.keys(game_id).partition))
        again = await store.append(game_id, "test", 1, events(3, "x"), command_id="c1", now_ms=6)
        later = await store.append(game_id, "test", 4, events(1, "y"), command_id="c1", now_ms=7)
        assert (again.first_version, again.last_version, again.duplicate) == (2, 4, True)
        assert later == again
        assert await store.version(game_id) == 4
        assert await client.xlen(feed_key(store.keys(game_id).partition)) == feed_len
        assert await store.committed(game_id, "c1") == again
        assert [e.data for e in await store.load(game_id, after=1)] == [e.data for e in events(3)]

    async def test_stale_expected_version_is_a_conflict_and_appends_nothing(self, store) -> None:
        game_id = await new_game(store)
        await store.append(game_id, "test", 1, events(1), command_id="a", now_ms=1)
        with pytest.raises(VersionConflict) as info:
            await store.append(game_id, "test", 1, events(1), command_id="b", now_ms=1)
        assert info.value.current == 2
        assert await store.committed(game_id, "b") is None
        assert await store.version(game_id) == 2
        with pytest.raises(GameNotFound):
            await store.append("nope", "test", 3, events(1), now_ms=1)

    async def test_load_by_version_range_and_meta(self, store) -> None:
        game_id = await new_game(store, seats=3, open_seats=1)
        await store.append(game_id, "test", 1, events(5), command_id="c", seat=1, now_ms=9, ended=True,
                           actor=Actor("p1", "player"))
        middle = await store.load(game_id, after=2, until=4)
        assert [e.version for e in middle] == [3, 4]
        # a range that starts inside a commit still carries that commit's metadata
        assert all((e.seat, e.command_id, e.ts_ms, e.actor, e.actor_kind) == (1, "c", 9, "p1", "player")
                   for e in middle)
        assert [e.type for e in middle] == ["tick", "tick"]
        assert [e.version for e in await store.load(game_id, after=1, count=2)] == [2, 3]
        meta = await store.meta(game_id)
        assert meta is not None
        assert meta.version == 6 and meta.status == "finished" and meta.seats[2] is None
        assert meta.seats[0] == SeatInfo("p0", "P0") and meta.engine_version == "t1"

    async def test_the_commit_of_a_version_is_read_from_its_head_as_folds_group_the_entries(self, store) -> None:
        """``commit_span`` (a replay inside a commit answers its end: benthic.game.commits) from the commit heads,
        the same spans as the entries' grouping by command id and time that folds and the archive use, across
        commits longer than the backwards read's page."""
        game_id = await new_game(store)
        version = 1
        for n, size in enumerate((1, 3, 150, 2, 70, 1)):
            commit = await store.append(game_id, "test", version, events(size, f"c{n}"), command_id=f"c{n}", now_ms=3)
            version = commit.last_version
        entries = await store.load(game_id)
        for entry in entries:
            assert await store.commit_span(game_id, entry.version) == commit_span(entries, entry.version), entry
        assert await store.commit_span(game_id, 100) == (6, 155)
        assert await store.commit_span(game_id, version + 1) is None
        assert await store.commit_span("no-such-game", 1) is None

    async def test_each_event_is_stored_once_with_the_commit_metadata_on_its_first_entry(self, store, client) -> None:
        game_id = await new_game(store)
        await store.append(game_id, "test", 1, events(3), command_id="c", seat=0, now_ms=9)
        entries = await client.xrange(store.keys(game_id).events, "2-0", "+")
        assert [sorted(fields) for _, fields in entries] == [sorted([DATA, HEAD])] * 3
        assert entries[0][1][HEAD] and entries[1][1][HEAD] == b"" and entries[2][1][HEAD] == b""
        assert [fields[DATA] for _, fields in entries] == [e.data for e in events(3)]

    async def test_feed_entries_are_in_faststream_format(self, store, client) -> None:
        game_id = await new_game(store)
        await store.append(game_id, "test", 1, events(2), command_id="c", now_ms=42, ended=True)
        await store.append(game_id, "test", 3, events(1, kind="p"), command_id="s", now_ms=43)
        (_, platform), (_, engine) = await client.xrevrange(feed_key(store.keys(game_id).partition), count=2)
        body, headers = BinaryMessageFormatV1.parse(engine[DATA_FIELD.encode()])
        note = notification_decoder.decode(body)
        assert (note.game_id, note.first_version, note.last_version, note.ended) == (game_id, 2, 3, True)
        assert note.types == [] and note.ts_ms == 42  # engine commits do not list their types: a smaller feed
        assert headers["content-type"] == "application/json"
        body, _ = BinaryMessageFormatV1.parse(platform[DATA_FIELD.encode()])
        assert notification_decoder.decode(body).types == ["tick"]
        # the lifecycle feed has only the commit that ended the game and the platform commit
        lifecycle = [fields for _, fields in await client.xrange(lifecycle_key(store.keys(game_id).partition))]
        assert lifecycle == [engine, platform]

    async def test_join_fills_open_seats_once(self, store) -> None:
        game_id = await new_game(store, seats=3, open_seats=2)
        assert (await store.meta(game_id)).status == "open"
        assert await store.join(game_id, "test", 1, SeatInfo("alice", "Alice"), now_ms=3) == "open"
        with pytest.raises(JoinRefused) as taken:
            await store.join(game_id, "test", 1, SeatInfo("bob", "Bob"), now_ms=3)
        assert taken.value.reason == "seat_taken"
        with pytest.raises(JoinRefused) as twice:
            await store.join(game_id, "test", 2, SeatInfo("alice", "Alice"), now_ms=3)
        assert twice.value.reason == "already_seated" and twice.value.seat == 1
        with pytest.raises(JoinRefused) as bad:
            await store.join(game_id, "test", 7, SeatInfo("carol", "Carol"), now_ms=3)
        assert bad.value.reason == "no_such_seat"
        with pytest.raises(GameNotFound):
            await store.join("nope", "test", 0, SeatInfo("dave"), now_ms=3)
        results = await asyncio.gather(
            *(store.join(game_id, "test", 2, SeatInfo(f"x{i}"), now_ms=4) for i in range(10)),
            return_exceptions=True,
        )
        assert sum(1 for r in results if r == "running") == 1
        meta = await store.meta(game_id)
        assert meta.status == "running" and meta.seats[1] == SeatInfo("alice", "Alice")

    async def test_snapshots_keep_the_newest_and_only_of_live_games(self, store) -> None:
        game_id = await new_game(store)
        await store.save_snapshot(game_id, Snapshot("v1", 10, b"ten"))
        await store.save_snapshot(game_id, Snapshot("v1", 5, b"five"))
        assert await store.load_snapshot(game_id) == Snapshot("v1", 10, b"ten")
        await store.save_snapshot(game_id, Snapshot("v2", 3, b"three"))
        assert await store.load_snapshot(game_id) == Snapshot("v2", 3, b"three")
        await store.save_snapshot("gone", Snapshot("v1", 1, b"one"))  # no such game (archived): nothing kept
        assert await store.load_snapshot("gone") is None
