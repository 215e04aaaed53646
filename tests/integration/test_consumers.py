"""Projection (FeedConsumer) and scoring (FastStream) consumers against a real Redis: crashes, redelivery, lost
consumer groups."""

from __future__ import annotations

import asyncio
import time

import msgspec
import pytest

from benthic.feed.consumer import FeedConsumer, trim_consumed
from benthic.feed.faststream_groups import GroupSubscription
from benthic.feed.keys import feed_key, lifecycle_key
from benthic.game.keys import GameKeys, RatingKeys
from benthic.rules import game_types
from benthic.runtime.telemetry import CONSUMER_GROUP_RECREATED
from benthic.store import EventStore
from benthic.store.loader import StateLoader
from benthic.views.reads import ReadModels
from services.projection.projector import Projector
from services.scoring.app import subscription as scoring_subscription
from services.scoring.scorer import Scorer
from tests.platform_helpers import StoreGame, settings_for_tests

GAMES = game_types()

async def _until(probe, timeout: float = 20.0, what: str = "condition"):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        value = await probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


def _projector(redis, settings) -> Projector:  # type: ignore[no-untyped-def]
    store = EventStore(redis, settings.partitions)
    return Projector(redis, store, StateLoader(store, 100, 0))


async def _projected_version(redis, settings, game_id: str) -> int:  # type: ignore[no-untyped-def]
    raw = await redis.hget(GameKeys(game_id, settings.partitions).read_model, "version")
    return int(raw or 0)


@pytest.mark.parametrize("game_type", GAMES)
async def test_dead_consumer_pending_entries_are_claimed_and_views_converge(redis, redis_url, game_type) -> None:
    settings = settings_for_tests(redis_url)
    store = EventStore(redis, settings.partitions)
    entered = asyncio.Event()

    async def dies_mid_batch(notes) -> None:  # reads a batch, then never finishes it (a dead process)
        entered.set()
        await asyncio.sleep(3600)

    victim = FeedConsumer(settings_for_tests(redis_url, consumer_name="victim"), "projection", dies_mid_batch)
    await victim.start()
    games = [await StoreGame(store, game_type, seed=s).create() for s in range(3)]
    for game in games:
        await game.play(5)
    await asyncio.wait_for(entered.wait(), 10)
    await asyncio.sleep(0.3)
    await victim.stop()  # killed: its delivered entries stay pending in its name
    pending = sum([(await redis.xpending(feed_key(p), "projection"))["pending"] for p in range(settings.partitions)])
    assert pending > 0

    projector = _projector(redis, settings)
    survivor = FeedConsumer(settings_for_tests(redis_url, consumer_name="survivor"), "projection",
                            projector.handle)
    await survivor.start()
    try:
        for game in games:
            await _until(lambda g=game: _version_is(redis, settings, g), what=f"{game.game_id} projected")
        await _until(lambda: _nothing_pending(redis, settings, "projection"), what="pending entries claimed")
    finally:
        await survivor.stop()
    reads = ReadModels(redis, EventStore(redis, settings.partitions))
    for game in games:
        found_views = await reads.views(game.game_id, [None, *range(game.seats)])
        assert found_views is not None and found_views[0] == game.version
        public = msgspec.json.decode(found_views[1][None])
        assert public["version"] == game.version
        assert public["view"] == msgspec.json.decode(msgspec.json.encode(game.engine.view(game.state, None)))
        for seat in range(game.seats):
            view = msgspec.json.decode(found_views[1][seat])
            assert view["view"] == msgspec.json.decode(msgspec.json.encode(game.engine.view(game.state, seat)))
        found = await reads.history(game.game_id, None, 0, 10_000)
        assert found is not None
        versions = [msgspec.json.decode(entry)["version"] for entry in found[1]]
        assert versions == sorted(set(versions)), "history has duplicates"
        assert versions[-1] <= game.version


async def _version_is(redis, settings, game) -> bool:  # type: ignore[no-untyped-def]
    return await _projected_version(redis, settings, game.game_id) == game.version


async def _healthy(consumer: FeedConsumer) -> bool:
    return consumer.healthy


async def _nothing_pending(redis, settings, group: str, feed=feed_key) -> bool:  # type: ignore[no-untyped-def]
    total = 0
    for partition in range(settings.partitions):
        total += (await redis.xpending(feed(partition), group))["pending"]
    return total == 0


@pytest.mark.parametrize("game_type", GAMES)
async def test_deleted_consumer_group_is_recreated_without_restart(redis, redis_url, game_type) -> None:
    settings = settings_for_tests(redis_url)
    store = EventStore(redis, settings.partitions)
    projector = _projector(redis, settings)
    consumer = FeedConsumer(settings, "projection", projector.handle)
    await consumer.start()
    try:
        game = await StoreGame(store, game_type).create()
        await game.play(3)
        await _until(lambda: _version_is(redis, settings, game), what="first projection")
        for partition in range(settings.partitions):  # simulated data loss in Redis
            await redis.xgroup_destroy(feed_key(partition), "projection")
        await game.play(4)
        await _until(lambda: _version_is(redis, settings, game), what="projection after the group was lost")
        await _until(lambda: _healthy(consumer), what="every subscriber restarted")
        groups = await redis.xinfo_groups(feed_key(GameKeys(game.game_id, settings.partitions).partition))
        assert [g["name"] for g in groups] == [b"projection"]
    finally:
        await consumer.stop()


@pytest.mark.parametrize("game_type", GAMES)
async def test_notifications_out_of_order_or_lost_are_repaired_from_the_stream(redis, redis_url, game_type) -> None:
    settings = settings_for_tests(redis_url)
    store = EventStore(redis, settings.partitions)
    projector = _projector(redis, settings)
    game = await StoreGame(store, game_type).create()
    await game.play(6)
    # Project only from a late notification: everything before it must be read from the game stream.
    assert await projector.project(game.game_id, game_type) == game.version
    assert await projector.project(game.game_id, game_type) == 0  # a duplicate is a no-op
    found = await ReadModels(redis, store).history(game.game_id, 0, 0, 10_000)
    assert found is not None and found[0] == game.version
    versions = [msgspec.json.decode(entry)["version"] for entry in found[1]]
    assert versions == sorted(set(versions))


@pytest.mark.parametrize("game_type", GAMES)
async def test_a_game_the_projector_wrote_last_costs_one_read_and_stays_right_beside_another_replica(
    redis, redis_url, game_type
) -> None:
    settings = settings_for_tests(redis_url)
    store = EventStore(redis, settings.partitions)
    first, second = _projector(redis, settings), _projector(redis, settings)
    game = await StoreGame(store, game_type).create()
    keys = GameKeys(game.game_id, settings.partitions)
    await game.play(3)
    assert await first.project(game.game_id, game_type, seats_changed=False) == game.version
    await game.play(2)
    await redis.config_resetstat()
    assert await first.project(game.game_id, game_type, seats_changed=False) == game.version
    stats = await redis.info("commandstats")
    reads = {command: stats.get(f"cmdstat_{command}", {}).get("calls", 0) for command in ("xrange", "hmget", "hgetall")}
    assert reads == {"xrange": 1, "hmget": 1, "hgetall": 0}  # the HMGET is the write script's own
    # Another replica projects the next moves; this one, still holding the older state, projects the rest.
    await game.play(2)
    assert await second.project(game.game_id, game_type, seats_changed=False) == game.version
    await game.play(2)
    assert await first.project(game.game_id, game_type, seats_changed=False) == game.version
    written = await redis.hgetall(keys.read_model)
    await redis.delete(keys.read_model)
    assert await _projector(redis, settings).project(game.game_id, game_type) == game.version
    assert await redis.hgetall(keys.read_model) == written  # what a projector starting from nothing writes
    # A write refused (the read model is further on: a replica projected events this one has not read yet) is
    # not trusted again: the next batch reads the read model.
    await redis.hset(keys.read_model, "version", game.version + 100)
    await game.play(1)
    assert await first.project(game.game_id, game_type, seats_changed=False) == 0
    await redis.hset(keys.read_model, "version", game.version - 1)
    await game.play(1)
    await redis.config_resetstat()
    assert await first.project(game.game_id, game_type, seats_changed=False) == game.version
    assert (await redis.info("commandstats"))["cmdstat_hmget"]["calls"] == 2  # the read model's, the script's


@pytest.mark.parametrize("game_type", GAMES)
async def test_scoring_twice_and_by_two_replicas_scores_and_rates_once(redis, redis_url, game_type) -> None:
    settings = settings_for_tests(redis_url)
    store = EventStore(redis, settings.partitions)
    game = await StoreGame(store, game_type).create()
    await game.play()
    assert game.engine.is_over(game.state)
    scorers = [Scorer(redis, store, StateLoader(store, 10, 0)) for _ in range(2)]
    results = await asyncio.gather(*(s.score(game.game_id, game_type) for s in scorers for _ in range(3)))
    assert results.count(True) == 1
    scored = [e for e in await store.load(game.game_id) if e.type == "game_scored"]
    assert len(scored) == 1 and not scored[0].is_engine
    body = msgspec.json.decode(scored[0].data)
    expected = game.engine.final_scores(game.state)
    assert [r["seat"] for r in body["results"]] == [r.seat for r in expected.results]
    keys = RatingKeys(game_type)
    for seat in range(game.seats):
        record = await redis.hgetall(keys.player(f"player-{seat}-{game.game_id}"))
        assert int(record[b"games"]) == 1
    assert await redis.exists(keys.rated(game.game_id))


class _ScoresThenHangs:
    """Appends game_scored and rates, then never returns: a scoring process that dies before acknowledging."""

    def __init__(self, real: Scorer) -> None:
        self.real = real
        self.crashed = asyncio.Event()

    async def handle(self, notes) -> None:  # type: ignore[no-untyped-def]
        for note in notes:
            if note.ended:
                await self.real.score(note.game_id, note.game_type)
                self.crashed.set()
                await asyncio.sleep(3600)


async def _subscribed(group: GroupSubscription) -> bool:
    return group.ready


async def _scored_once(store: EventStore, game_id: str) -> bool:
    return [e.type for e in await store.load(game_id)].count("game_scored") == 1


@pytest.mark.parametrize("game_type", GAMES)
async def test_scoring_killed_mid_entry_still_scores_and_rates_once(redis, redis_url, game_type) -> None:
    settings = settings_for_tests(redis_url)
    store = EventStore(redis, settings.partitions)
    dying = _ScoresThenHangs(Scorer(redis, store, StateLoader(store, 10, 0)))
    victim = scoring_subscription(settings_for_tests(redis_url, consumer_name="victim"), dying)  # type: ignore[arg-type]
    await victim.start()
    try:
        await _until(lambda: _subscribed(victim), what="the victim subscribed")
        game = await StoreGame(store, game_type).create()
        await game.play()
        await asyncio.wait_for(dying.crashed.wait(), 20)
    finally:
        await victim.stop()  # its entry in hand is cancelled: scored and rated, never acknowledged
    assert not await _nothing_pending(redis, settings, "scoring", lifecycle_key)
    survivor = scoring_subscription(settings_for_tests(redis_url, consumer_name="survivor"),
                                    Scorer(redis, store, StateLoader(store, 10, 0)))
    await survivor.start()
    try:
        await _until(lambda: _nothing_pending(redis, settings, "scoring", lifecycle_key),
                     what="pending scoring claimed")
    finally:
        await survivor.stop()
    assert await _scored_once(store, game.game_id)
    for seat in range(game.seats):
        record = await redis.hgetall(RatingKeys(game_type).player(f"player-{seat}-{game.game_id}"))
        assert int(record[b"games"]) == 1


async def test_scoring_goes_on_when_its_consumer_group_is_deleted_under_it(redis, redis_url) -> None:
    """FastStream stops a subscriber for good on NOGROUP; the subscription makes the group again (from ID 0) and
    starts it again, in the same process."""
    settings = settings_for_tests(redis_url)
    store = EventStore(redis, settings.partitions)
    group = scoring_subscription(settings, Scorer(redis, store, StateLoader(store, 10, 0)))
    recreated = CONSUMER_GROUP_RECREATED.labels("scoring")
    await group.start()
    try:
        await _until(lambda: _subscribed(group), what="subscribed")
        first = await StoreGame(store, GAMES[0]).create()
        await first.play()
        await _until(lambda: _scored_once(store, first.game_id), what="the first game scored")
        before = recreated._value.get()
        for partition in range(settings.partitions):  # data loss in Redis: a failover to a replica without it
            await redis.xgroup_destroy(lifecycle_key(partition), "scoring")
        await redis.delete(lifecycle_key(0))  # and a feed gone altogether (FLUSH): NOGROUP too
        second = await StoreGame(store, GAMES[-1], seed=7).create()
        await second.play()
        await _until(lambda: _scored_once(store, second.game_id), what="a game scored after the group was lost")
        await _until(lambda: _subscribed(group), what="every subscriber started again")
        assert recreated._value.get() >= before + 1
        for partition in range(settings.partitions):
            assert [g["name"] for g in await redis.xinfo_groups(lifecycle_key(partition))] == [b"scoring"]
        assert await _scored_once(store, first.game_id), "read again from ID 0: still scored once"
    finally:
        await group.stop()


async def test_feed_keeps_only_what_some_group_has_not_consumed(redis) -> None:
    stream = feed_key(0)
    for group in ("fast", "slow"):
        await redis.xgroup_create(stream, group, id="0", mkstream=True)
    ids = [await redis.xadd(stream, {"n": i}) for i in range(500)]
    assert await trim_consumed(redis, stream) == 0  # nobody has read anything: everything stays
    [[_, fast]] = await redis.xreadgroup("fast", "c", {stream: ">"}, count=500)
    await redis.xack(stream, "fast", *(entry_id for entry_id, _ in fast))
    [[_, slow]] = await redis.xreadgroup("slow", "c", {stream: ">"}, count=300)
    await redis.xack(stream, "slow", *(entry_id for entry_id, _ in slow[:250]))  # 250..299 still pending
    assert await trim_consumed(redis, stream) >= 200  # whole stream nodes below the oldest pending entry
    kept = [entry_id for entry_id, _ in await redis.xrange(stream)]
    assert kept[-250:] == ids[250:]  # the pending and the undelivered entries all stay


async def test_an_unreadable_feed_entry_is_dead_lettered_and_the_batch_goes_on(redis, redis_url) -> None:
    settings = settings_for_tests(redis_url, consumer_name="unreadable")
    store = EventStore(redis, settings.partitions)
    game = await StoreGame(store, GAMES[0]).create()
    feed = feed_key(GameKeys(game.game_id, settings.partitions).partition)
    group = f"g-{time.monotonic_ns()}"
    handled: list[str] = []

    async def handler(notes) -> None:  # type: ignore[no-untyped-def]
        handled.extend(n.game_id for n in notes)

    consumer = FeedConsumer(settings, group, handler)
    await consumer.start()
    try:
        await redis.xadd(feed, {"__data__": b"\x89BIN\r\n\x1a\n garbage"})
        await game.play(2)
        await _until(lambda: _true(game.game_id in handled), what="the readable entries handled")
        dead = await redis.xrange(f"{feed}:dead")
        assert [entry[1][b"group"] for entry in dead][-1:] == [group.encode()]
        await _until(lambda: _nothing_pending(redis, settings, group), what="every entry acknowledged")
        assert consumer.healthy
    finally:
        await consumer.stop()


async def _true(value: bool) -> bool:
    return value
