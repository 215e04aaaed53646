"""kill -9 of the archiver at every step, then a restart: every game archived exactly once, every Redis key of
it gone, the archived copy verified, and a reader never served anything but the game's bodies meanwhile.

The services are real processes (LocalPlatform); the archiver is started with BENTHIC_ARCHIVER_CRASH_AT=<step>,
which SIGKILLs it right after that step, then restarted without it."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import time
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest

from benthic.archive import Archive
from benthic.game.keys import GameKeys, RatingKeys, archive_due_key
from benthic.local.localplatform import LocalPlatform
from benthic.runtime.redisconn import redis_client
from benthic.store import EventStore
from services.archiver.archiver import STEPS
from tests.platform_helpers import PlatformFactory, StoreGame

GAME_TYPE = "nautilus"
PARTITIONS = 16


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    running = make_platform({
        "BENTHIC_ARCHIVE_AFTER_S": "0",
        "BENTHIC_ARCHIVE_LEASE_S": "1",
        "BENTHIC_CLAIM_IDLE_MS": "800",
        "BENTHIC_CLAIM_INTERVAL_S": "0.3",
        "BENTHIC_METRICS_INTERVAL_S": "1",
        "BENTHIC_DRAIN_TIMEOUT_S": "1",
    })
    running.kill("archiver")  # the tests run their own archivers
    return running


@pytest.fixture
async def redis(platform: LocalPlatform) -> AsyncIterator[Any]:
    client = redis_client(platform.redis_url)
    yield client
    await client.aclose()


@pytest.fixture
async def archive(archive_url: str) -> AsyncIterator[Archive]:
    async with Archive(archive_url, 2) as opened:
        yield opened


async def _ready_to_archive(redis: Any, game: StoreGame) -> bool:
    keys = GameKeys(game.game_id, PARTITIONS)
    version, scored = await redis.hmget(keys.read_model, ["version", "scored"])
    meta_version = await redis.hget(keys.meta, "version")
    marker = await redis.exists(RatingKeys(GAME_TYPE).rated(game.game_id))
    return bool(marker) and scored == b"1" and version is not None and version == meta_version


async def _finished_games(redis: Any, count: int) -> list[StoreGame]:
    store = EventStore(redis, PARTITIONS)
    games = [await StoreGame(store, GAME_TYPE, seed=s).create() for s in range(count)]
    for game in games:
        await game.play()
    deadline = time.monotonic() + 60
    for game in games:
        while not await _ready_to_archive(redis, game):
            assert time.monotonic() < deadline, f"{game.game_id} was not projected and scored"
            await asyncio.sleep(0.1)
    return games


class Reader:
    """Reads every game's bodies over HTTP the whole time; each answer must be the body recorded before."""

    def __init__(self, read_url: str, games: list[StoreGame]) -> None:
        self.http = httpx.AsyncClient(base_url=read_url, timeout=10)
        self.paths = [
            f"/games/{g.game_id}{suffix}" for g in games
            for suffix in ("", "/view", "/history?limit=1000", "/scores")
        ]
        self.bodies: dict[str, bytes] = {}
        self.reads = 0
        self.stopping = False

    async def record(self) -> None:
        for path in self.paths:
            response = await self.http.get(path)
            assert response.status_code == 200, (path, response.text)
            self.bodies[path] = response.content

    async def run(self) -> None:
        while not self.stopping:
            for path in self.paths:
                response = await self.http.get(path)
                assert response.status_code == 200, (path, response.status_code, response.text)
                assert response.content == self.bodies[path], f"{path} changed while archiving"
                self.reads += 1
            await asyncio.sleep(0.02)


async def _existing(redis: Any, game: StoreGame) -> set[str]:
    keys = GameKeys(game.game_id, PARTITIONS).game_keys()
    async with redis.pipeline(transaction=True) as pipe:
        for key in keys:
            pipe.exists(key)
        return {key for key, there in zip(keys, await pipe.execute(), strict=True) if there}


async def _state_is_whole(redis: Any, archive: Archive, game: StoreGame, envelopes: list[Any], before: set[str]) -> str:
    """'redis': every key the game had is in Redis (authoritative); 'archive': none is, and the archived
    copy is verified and equal to what Redis held.  Anything else fails."""
    present = await _existing(redis, game)
    if present:
        assert present == before, f"{game.game_id}: keys {before - present} are gone, not the others"
        return "redis"
    info = await archive.verify(game.game_id, len(envelopes), await _digest(envelopes))
    assert info.last_version == envelopes[-1].version
    assert (await archive.envelopes(game.game_id)) == envelopes
    return "archive"


async def _digest(envelopes: list[Any]) -> str:
    from benthic.game.events import event_digest

    return event_digest(envelopes)


def _wait_exit(process: subprocess.Popen[bytes], timeout: float) -> int:
    try:
        return process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
        raise AssertionError("the archiver did not reach its crash step") from None


@pytest.mark.parametrize("step", STEPS)
async def test_archiver_killed_at_a_step_then_restarted_archives_every_game_exactly_once(
    platform: LocalPlatform, redis: Any, archive: Archive, step: str
) -> None:
    games = await _finished_games(redis, 2)
    store = EventStore(redis, PARTITIONS)
    envelopes = {g.game_id: await store.load(g.game_id) for g in games}
    before = {g.game_id: await _existing(redis, g) for g in games}
    reader = Reader(platform.read_url, games)
    await reader.record()
    reading = asyncio.create_task(reader.run())
    try:
        doomed = platform.start_service("archiver", env={"BENTHIC_ARCHIVER_CRASH_AT": step})
        code = await asyncio.to_thread(_wait_exit, doomed, 90)
        assert code == -signal.SIGKILL, f"the archiver exited with {code}, not killed at {step}"
        whole = [await _state_is_whole(redis, archive, g, envelopes[g.game_id], before[g.game_id]) for g in games]
        if step in ("taken", "read", "put", "verified"):
            assert "redis" in whole, f"killed after {step}, yet nothing is left in Redis"

        platform.start_service("archiver")
        deadline = time.monotonic() + 90
        for game in games:
            keys = GameKeys(game.game_id, PARTITIONS)
            while (await redis.exists(*keys.game_keys(), RatingKeys(GAME_TYPE).rated(game.game_id))
                   or await redis.zscore(archive_due_key(keys.partition), game.game_id) is not None):
                assert not reading.done(), reading.exception()
                assert time.monotonic() < deadline, f"{game.game_id} not archived after the restart"
                await asyncio.sleep(0.1)
            whole = await _state_is_whole(redis, archive, game, envelopes[game.game_id], before[game.game_id])
            assert whole == "archive"
        for game in games:
            found = await archive.find(player=f"player-0-{game.game_id}")
            assert [i.game_id for i in found] == [game.game_id], "archived exactly once"
    finally:
        reader.stopping = True
        await asyncio.wait([reading], timeout=10)
        await reader.http.aclose()
        if "archiver" in platform.processes:
            platform.kill("archiver")
    assert reading.exception() is None
    assert reader.reads >= len(reader.paths)
    for path, body in reader.bodies.items():  # served from the archive now, byte for byte
        async with httpx.AsyncClient(base_url=platform.read_url) as http:
            assert (await http.get(path)).content == body
