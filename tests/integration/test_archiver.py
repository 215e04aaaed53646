"""The archiver in process against a real Redis and a real PostgreSQL: what it archives, what it leaves,
what it deletes, and the read side's fallback to the archive."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest

from benthic.archive import Archive
from benthic.feed.keys import dead_letter_key, feed_key
from benthic.feed.notification import Notification
from benthic.game.events import event_digest
from benthic.game.history import history_page, seat_names
from benthic.game.keys import GameKeys, RatingKeys, archive_due_key, archive_since_key
from benthic.rules import get_engine
from benthic.runtime.redisconn import redis_client
from benthic.runtime.telemetry import ARCHIVE_PURGED, GAMES_ARCHIVED
from benthic.store import EventStore
from benthic.store.loader import StateLoader
from benthic.views.archived import ArchivedReads
from benthic.views.reads import ReadModels
from services.archiver.archiver import Archiver
from services.archiver.memory import KINDS, key_kind, memory_by_kind
from services.archiver.redisgame import GONE, FinishedGame, NotReady, read_game
from services.projection.projector import Projector
from services.scoring.scorer import Scorer
from tests.archive_contract import DAY_MS, played_game
from tests.games import BUILT_IN
from tests.platform_helpers import StoreGame, settings_for_tests


class Platform:
    """Store, projector, scorer and archiver of one test, over one Redis and one archive."""

    def __init__(self, redis: Any, redis_url: str, archive: Archive, **settings: Any) -> None:
        self.settings = settings_for_tests(redis_url, **{"archive_after_s": 0.0, "archive_lease_s": 0.3, **settings})
        self.redis = redis
        self.store = EventStore(redis, self.settings.partitions)
        self.projector = Projector(redis, self.store, StateLoader(self.store, 100, 0))
        self.scorer = Scorer(redis, self.store, StateLoader(self.store, 100, 0))
        self.archive = archive
        self.archiver = Archiver(redis, archive, self.settings)

    async def finished_game(self, game_type: str = "nautilus", seed: int = 1, seats: int | None = None) -> StoreGame:
        """A game played to its end, projected, scored (ratings applied) and projected again."""
        game = await StoreGame(self.store, game_type, seats=seats, seed=seed).create()
        await game.play()
        await self.projector.project(game.game_id, game_type)
        assert await self.scorer.score(game.game_id, game_type)
        await self.projector.project(game.game_id, game_type)
        return game

    async def schedule(self, game: StoreGame) -> None:
        await self.archiver.schedule([Notification(game.game_id, game.engine.game_type, "events",
                                                   types=["game_scored"])])

    async def keys_of(self, game_id: str) -> set[str]:
        """Every key naming the game (the test players' rating hashes name it too, and are not the game's)."""
        return {k.decode() async for k in self.redis.scan_iter(match=f"*{game_id}*", count=1000)
                if b"}:p:player-" not in k}


@pytest.fixture
async def platform(redis: Any, redis_url: str, archive: Archive) -> AsyncIterator[Platform]:
    yield Platform(redis, redis_url, archive)


async def _archived_count(game_type: str) -> float:
    return GAMES_ARCHIVED.labels(game_type)._value.get()  # type: ignore[no-any-return]


async def test_a_finished_game_is_copied_verified_and_every_key_of_it_deleted(platform: Platform) -> None:
    game = await platform.finished_game("nautilus", seats=3)
    keys = GameKeys(game.game_id, platform.settings.partitions)
    marker = RatingKeys("nautilus").rated(game.game_id)
    present = await platform.keys_of(game.game_id)
    assert present <= {*keys.game_keys(), marker}, f"keys.game_keys misses {present - {*keys.game_keys(), marker}}"
    assert {keys.events, keys.meta, keys.commands, keys.read_model, marker} <= present
    served = {k.decode(): v for k, v in (await platform.redis.hgetall(keys.read_model)).items()}
    envelopes = await platform.store.load(game.game_id)
    meta = await platform.store.meta(game.game_id)
    before = await _archived_count("nautilus")

    await platform.schedule(game)
    assert await platform.archiver.step() == 1
    assert await platform.keys_of(game.game_id) == {marker}, "the ratings marker goes later"
    for status in ("open", "running", "finished"):
        assert await platform.redis.zscore(keys.lobby("nautilus", status), game.game_id) is None
    info = await platform.archive.verify(game.game_id, len(envelopes), event_digest(envelopes))
    assert info.last_version == envelopes[-1].version
    archived = await platform.archive.get(game.game_id)
    assert archived is not None and archived.envelopes == envelopes and archived.read_models == served
    assert meta is not None and archived.seats == meta.seats and archived.options == meta.options
    assert archived.created_ms == meta.created_ms
    assert await _archived_count("nautilus") == before + 1

    await asyncio.sleep(platform.settings.archive_lease_s + 0.05)
    assert await platform.archiver.step() == 1  # comes due again: gone from Redis, so the marker goes
    assert await platform.keys_of(game.game_id) == set()
    assert await platform.redis.zcard(archive_due_key(keys.partition)) == 0
    assert await platform.redis.zcard(archive_since_key(keys.partition)) == 0
    assert await _archived_count("nautilus") == before + 1


async def test_an_unrated_game_is_archived_without_a_ratings_marker(platform: Platform) -> None:
    """Scoring never rates an unrated game (e.g. one with bots only), so no marker comes: it is archived anyway
    (it used to wait for the marker forever)."""
    game = await StoreGame(platform.store, "nautilus", seats=2).create()
    await platform.redis.hset(GameKeys(game.game_id, platform.settings.partitions).meta, "rated", "0")
    await game.play()
    await platform.projector.project(game.game_id, "nautilus")
    assert await platform.scorer.score(game.game_id, "nautilus")
    await platform.projector.project(game.game_id, "nautilus")
    assert not await platform.redis.exists(RatingKeys("nautilus").rated(game.game_id))
    await platform.schedule(game)
    assert await platform.archiver.step() == 1
    assert await platform.archive.get(game.game_id) is not None
    assert await platform.keys_of(game.game_id) == set()


async def test_a_game_not_finished_scored_and_projected_stays_until_it_is(
    redis: Any, redis_url: str, archive: Archive
) -> None:
    platform = Platform(redis, redis_url, archive, archive_lease_s=600.0)  # no lease runs out by itself here
    running = await StoreGame(platform.store, "nautilus", seed=2).create()
    await running.play(3)
    await platform.projector.project(running.game_id, "nautilus")
    assert await read_game(platform.redis, running.game_id, 16) == NotReady("status running")

    game = await StoreGame(platform.store, "nautilus", seed=3).create()
    await game.play()
    assert (await read_game(platform.redis, game.game_id, 16)).reason == "not scored yet"  # type: ignore[union-attr]
    assert await platform.scorer.score(game.game_id, "nautilus")
    found = await read_game(platform.redis, game.game_id, 16)
    assert isinstance(found, NotReady) and found.reason.startswith("projected to 0 of")
    await platform.projector.project(game.game_id, "nautilus")
    await platform.redis.delete(RatingKeys("nautilus").rated(game.game_id))
    assert await read_game(platform.redis, game.game_id, 16) == NotReady("ratings not applied yet")

    for g in (running, game):
        await platform.schedule(g)
    assert await platform.archiver.step() == 2
    assert await platform.archive.find(game_type="nautilus") == []
    assert len(await platform.keys_of(game.game_id)) >= 4 and len(await platform.keys_of(running.game_id)) >= 4
    assert await platform.archiver.step() == 0, "a game taken is leased: nobody takes it again meanwhile"

    await platform.scorer.score(game.game_id, "nautilus")  # the ratings now apply
    for g in (running, game):  # as if the leases had run out
        await redis.zadd(archive_due_key(GameKeys(g.game_id, 16).partition), {g.game_id: 0}, xx=True)
    assert await platform.archiver.step() == 2  # the lease brought both back
    assert await platform.archive.exists(game.game_id) and not await platform.archive.exists(running.game_id)
    assert not await platform.redis.exists(GameKeys(game.game_id, 16).meta)
    assert await platform.redis.exists(GameKeys(running.game_id, 16).meta)


async def test_a_game_that_moved_after_its_copy_is_not_deleted(platform: Platform) -> None:
    game = await platform.finished_game(seed=4)
    found = await read_game(platform.redis, game.game_id, 16)
    assert isinstance(found, FinishedGame)
    keys = GameKeys(game.game_id, 16)
    await platform.redis.hset(keys.read_model, "version", found.version - 1)  # as if a projection went back
    assert await platform.archiver.archive_game(game.game_id) == "not_ready"
    await platform.redis.hset(keys.read_model, "version", found.version)
    await platform.redis.hset(keys.meta, "version", found.version + 1)  # moved between copy and delete
    assert await platform.archiver._copy_verify_delete(found) == "delete"
    assert await platform.redis.exists(keys.events, keys.read_model, keys.meta) == 3
    await platform.redis.hset(keys.meta, "version", found.version)
    assert await platform.archiver.archive_game(game.game_id) == "archived"
    assert await platform.redis.exists(keys.meta) == 0


async def test_after_archiving_the_projection_never_writes_the_game_back(platform: Platform) -> None:
    """A late or repeated notification for an archived game, with its meta and state still cached."""
    game = await platform.finished_game(seed=5)
    await platform.schedule(game)
    await platform.archiver.step()
    assert await platform.projector.project(game.game_id, "nautilus", seats_changed=False) == 0
    assert await platform.projector.project(game.game_id, "nautilus", seats_changed=True) == 0
    assert await platform.keys_of(game.game_id) == {RatingKeys("nautilus").rated(game.game_id)}
    assert not await platform.scorer.score(game.game_id, "nautilus")


async def test_two_archivers_at_once_archive_each_game_exactly_once(
    platform: Platform, redis_url: str, archive: Archive
) -> None:
    games = [await platform.finished_game("nautilus", seed=10 + i) for i in range(8)]
    other_redis = redis_client(redis_url)
    other = Archiver(other_redis, archive, platform.settings)
    before = await _archived_count("nautilus")
    try:
        for game in games:
            await platform.schedule(game)
        deadline = time.monotonic() + 30
        while any([await platform.redis.exists(GameKeys(g.game_id, 16).meta) for g in games]):
            await asyncio.gather(platform.archiver.step(), other.step(), platform.archiver.step())
            assert time.monotonic() < deadline
        await asyncio.sleep(platform.settings.archive_lease_s + 0.05)
        await asyncio.gather(platform.archiver.step(), other.step())
    finally:
        await other_redis.aclose()
    assert await _archived_count("nautilus") == before + len(games)
    assert len(await archive.find(game_type="nautilus", limit=100)) == len(games)
    for game in games:
        assert await platform.keys_of(game.game_id) == set()
        info = await archive.info(game.game_id)
        assert info is not None
        await archive.verify(game.game_id, info.event_count, info.digest)


@pytest.mark.parametrize("game_type", BUILT_IN)
async def test_histories_read_live_are_the_pages_of_the_log(platform: Platform, game_type: str) -> None:
    engine = get_engine(game_type)
    game = await platform.finished_game(game_type, seats=engine.max_seats, seed=6)
    envelopes = await platform.store.load(game.game_id)
    reads = ReadModels(platform.redis, platform.store)
    meta = await platform.store.meta(game.game_id)
    assert meta is not None
    names = seat_names([msgspec.to_builtins(s) if s is not None else None for s in meta.seats])
    for viewer in (None, *range(engine.max_seats)):
        for after, limit in ((0, 10**6), (40, 7), (len(envelopes) - 3, 50)):
            found = await reads.history(game.game_id, viewer, after, limit)
            assert found == (envelopes[-1].version, history_page(engine, envelopes, viewer, after, limit, "en", names))
        found_pt = await reads.history(game.game_id, viewer, 0, 10**6, "pt")
        assert found_pt == (envelopes[-1].version, history_page(engine, envelopes, viewer, 0, 10**6, "pt", names))


async def test_the_read_models_fall_back_to_the_archive_with_the_same_bytes(platform: Platform) -> None:
    game = await platform.finished_game("aquatica", seats=2, seed=7)
    plain = ReadModels(platform.redis, platform.store)
    reads = ReadModels(platform.redis, platform.store, ArchivedReads(platform.archive, cache_games=2))
    fields = ["summary", "view:pub", "view:0", "view:1", "scores", "view:7"]
    before = {f: await reads.field(game.game_id, f) for f in fields}
    pages = {(v, a): await reads.history(game.game_id, v, a, 50) for v in (None, 0, 1) for a in (0, 100)}
    await platform.schedule(game)
    await platform.archiver.step()
    assert await plain.field(game.game_id, "summary") is None, "the game has left Redis"
    assert {f: await reads.field(game.game_id, f) for f in fields} == before
    assert {(v, a): await reads.history(game.game_id, v, a, 50) for v in (None, 0, 1) for a in (0, 100)} == pages
    assert await reads.field("no-such-game", "summary") is None
    assert await reads.history("no-such-game", None, 0, 10) is None


async def test_retention_purges_archived_games_past_the_setting(
    redis: Any, redis_url: str, archive: Archive
) -> None:
    now_ms = int(time.time() * 1000)
    old, recent = played_game(seed=1, finished_ms=now_ms - 10 * DAY_MS), played_game(seed=2, finished_ms=now_ms)
    await archive.put(old)
    await archive.put(recent)
    keep_forever = Platform(redis, redis_url, archive)
    assert await keep_forever.archiver.purge() == 0
    assert await archive.exists(old.game_id)
    purged = ARCHIVE_PURGED._value.get()
    week = Platform(redis, redis_url, archive, archive_retention_days=7)
    loop = asyncio.create_task(week.archiver.retention_loop(interval_s=0.1))
    try:
        deadline = time.monotonic() + 10
        while await archive.exists(old.game_id):
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
    finally:
        week.archiver.stop()
        await loop
    assert await archive.exists(recent.game_id)
    assert ARCHIVE_PURGED._value.get() == purged + 1


async def test_due_games_and_lag_are_measured_from_the_first_due_time(platform: Platform) -> None:
    game = await platform.finished_game(seed=8)
    now = int(time.time() * 1000)
    await platform.archiver.due.schedule(game.game_id, now - 5000)
    await platform.archiver.due.schedule(game.game_id, now + 60_000)  # a repeat changes nothing
    due, lag = await platform.archiver.due.stats(now)
    assert (due, lag) == (1, 5.0)
    await platform.archiver.due.take(GameKeys(game.game_id, 16).partition, now, 60_000, 10)
    assert await platform.archiver.due.stats(now) == (1, 5.0), "a lease does not hide the lag"
    await platform.archiver.due.unschedule(game.game_id)
    assert await platform.archiver.due.stats(now) == (0, 0.0)


def test_keys_are_sorted_into_kinds_by_name() -> None:
    keys = GameKeys("nau_1", 16)
    feed = feed_key(keys.partition)
    assert [key_kind(k) for k in (keys.events, keys.meta, keys.commands, keys.snapshot, keys.read_model,
                                  keys.lobby("nautilus", "open"), feed, dead_letter_key(feed),
                                  RatingKeys("nautilus").rated("nau_1"), RatingKeys("nautilus").leaderboard,
                                  archive_due_key(3), "unrelated")] == [
        "events", "meta", "commands", "snapshot", "read_model", "lobby", "feed", "feed", "ratings", "ratings",
        "other", "other"]
    assert key_kind(b"{p1}:g:x") == "events"


async def test_memory_by_kind_is_exact_over_a_full_sample_and_scaled_over_a_partial_one(platform: Platform) -> None:
    for seed in range(3):
        await platform.finished_game("aquatica", seed=seed)
    exact: dict[str, int] = dict.fromkeys(KINDS, 0)
    async for key in platform.redis.scan_iter(count=1000):
        exact[key_kind(key)] += await platform.redis.memory_usage(key, samples=5) or 0
    full = await memory_by_kind(platform.redis, 16, list(BUILT_IN), sample=10_000)
    assert full == exact
    assert all(full[k] > 0 for k in ("events", "meta", "commands", "read_model", "lobby", "feed", "ratings"))
    partial = await memory_by_kind(platform.redis, 16, list(BUILT_IN), sample=8)
    assert set(partial) == set(KINDS) and partial["feed"] == exact["feed"]  # the shared keys are measured
    assert 0 < sum(partial.values())


async def test_read_game_reports_a_game_gone_from_redis(platform: Platform) -> None:
    assert await read_game(platform.redis, "no-such-game", 16) == GONE
    assert await platform.archiver.archive_game("no-such-game") == "unscheduled"


async def test_a_put_refused_for_another_digest_leaves_the_game_in_redis(platform: Platform) -> None:
    game = await platform.finished_game(seed=9)
    found = await read_game(platform.redis, game.game_id, 16)
    assert isinstance(found, FinishedGame)
    other = msgspec.structs.replace(found.game, envelopes=found.game.envelopes[:-1])
    await platform.archive.put(other)
    assert await platform.archiver.archive_game(game.game_id) == "copy"
    assert await platform.redis.exists(GameKeys(game.game_id, 16).meta)


async def test_backfill_schedules_finished_games_whose_notifications_are_gone(
    platform: Platform, redis_url: str
) -> None:
    finished = await platform.finished_game(seed=11)
    running = await StoreGame(platform.store, "nautilus", seed=12).create()
    done = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "benthic.cli", "archive", "backfill"],
        env={**os.environ, "REDIS_URL": redis_url}, capture_output=True, text=True, timeout=60, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "scheduled 1 finished game(s) for archiving"
    assert await platform.archiver.step() == 1
    assert await platform.archive.exists(finished.game_id) and not await platform.archive.exists(running.game_id)


async def test_memory_by_kind_covers_every_node_of_a_cluster(redis_cluster: Any) -> None:
    for i in range(40):
        keys = GameKeys(f"g{i}", 16)
        await redis_cluster.hset(keys.meta, mapping={"version": "1", "game_type": "nautilus"})
        await redis_cluster.xadd(keys.events, {"type": "x", "data": "y" * 50})
        await redis_cluster.xadd(feed_key(keys.partition), {"__data__": "z"})
    exact: dict[str, int] = dict.fromkeys(KINDS, 0)
    async for key in redis_cluster.scan_iter(count=1000, target_nodes="primaries"):
        exact[key_kind(key)] += await redis_cluster.memory_usage(key, samples=5) or 0
    assert exact["meta"] and exact["events"] and exact["feed"]
    assert await memory_by_kind(redis_cluster, 16, ["nautilus"], sample=10_000) == exact
