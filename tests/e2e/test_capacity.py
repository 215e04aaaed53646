"""Capacity with the services as real processes: a burst of live clients, a burst of requests larger than the
Redis pool, and a Redis outage (a real redis-server killed and restarted)."""

from __future__ import annotations

import asyncio
import random
import time

import httpx
import pytest

from benthic.clients.bots_http import random_chooser, start_bot_game
from benthic.clients.client import ApiFailure, BenthicClient
from benthic.local.devredis import PrivateRedis
from benthic.local.localplatform import SERVICES, LocalPlatform
from tests.e2e.waiting import until
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, platform_client

BURST = 300
CAP = 320


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    # a queue as long as the burst: the pool's waits are what is tested here (admission in its own test)
    return make_platform({"BENTHIC_REDIS_POOL": "4", "BENTHIC_LIVE_STREAMS_MAX": str(CAP),
                          "BENTHIC_ADMISSION_QUEUE": "1000", "BENTHIC_ADMISSION_QUEUE_MS": "30000",
                          "BENTHIC_METRICS_INTERVAL_S": "1", **GENEROUS_LIMITS}, shared_archive=False)


async def _game(platform: LocalPlatform, game_type: str = "nautilus") -> tuple[BenthicClient, str, dict[int, str]]:
    client = platform_client(platform)
    game_id, tokens = await start_bot_game(client, game_type, 2, name=f"cap{random.randrange(10**6)}")
    return client, game_id, tokens


async def _play_one(client: BenthicClient, game_id: str, tokens: dict[int, str]) -> int:
    for seat, token in tokens.items():
        legal = await client.legal(game_id, token)
        if legal["commands"]:
            command = await random_chooser()(game_id, seat, legal["commands"], random.Random(1))
            answer = await client.play(game_id, token, command, expected_version=legal["version"])
            return int(answer["last_version"])
    raise AssertionError("nobody could move")


async def _projected(client: BenthicClient, game_id: str, version: int) -> None:
    async def probe() -> bool:
        try:
            return bool((await client.summary(game_id))["version"] >= version)
        except ApiFailure as failure:  # not projected at all yet
            assert failure.code == "game_not_found"
            return False

    await until(probe, f"{game_id} projected to {version}", 30, interval=0.05)


def _metric(text: str, name: str) -> float:
    return sum(float(line.split()[-1]) for line in text.splitlines() if line.startswith((name + " ", name + "{")))


class Sse:
    """One raw server-sent-events stream: the versions it received."""

    def __init__(self, http: httpx.AsyncClient, url: str) -> None:
        self.http, self.url = http, url
        self.status = 0
        self.versions: list[int] = []
        self.first = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> Sse:
        self.task = asyncio.create_task(self._run())
        return self

    async def _run(self) -> None:
        async with self.http.stream("GET", self.url) as response:
            self.status = response.status_code
            if response.status_code != 200:
                self.first.set()
                return
            async for line in response.aiter_lines():
                if line.startswith("id: "):
                    self.versions.append(int(line[4:]))
                    self.first.set()

    async def close(self) -> None:
        if self.task is not None:
            self.task.cancel()
            await asyncio.gather(self.task, return_exceptions=True)


async def test_a_burst_of_live_streams_is_served_from_one_subscription_and_leaves_nothing(platform) -> None:
    client, game_id, tokens = await _game(platform)
    version = await _play_one(client, game_id, tokens)
    await _projected(client, game_id, version)
    limits = httpx.Limits(max_connections=BURST + 50, max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=httpx.Timeout(30, read=None), limits=limits) as http:
        streams = [Sse(http, f"{platform.read_url}/games/{game_id}/live").start() for _ in range(BURST)]
        await asyncio.wait_for(asyncio.gather(*(s.first.wait() for s in streams)), 60)
        assert sorted({s.status for s in streams}) == [200]
        assert all(s.versions == [version] for s in streams)
        health = await asyncio.gather(*(http.get(f"{platform.url(s)}/healthz", timeout=5) for s in SERVICES),
                                      http.get(f"{platform.read_url}/readyz", timeout=5))
        assert [r.status_code for r in health] == [200] * (len(SERVICES) + 1)
        metrics = (await http.get(f"{platform.read_url}/metrics")).text
        assert _metric(metrics, "benthic_live_streams") == BURST
        # over the cap: a clear 503 with Retry-After, nothing else changes
        extra = [Sse(http, f"{platform.read_url}/games/{game_id}/live").start() for _ in range(CAP - BURST + 5)]
        await asyncio.wait_for(asyncio.gather(*(s.first.wait() for s in extra)), 60)
        refused = await http.get(f"{platform.read_url}/games/{game_id}/live")
        assert refused.status_code == 503 and refused.json()["code"] == "too_many_live_clients"
        assert int(refused.headers["retry-after"]) >= 1
        assert sorted({s.status for s in extra}) == [200, 503]
        for stream in extra:
            await stream.close()
        # one move reaches every stream
        moved = await _play_one(client, game_id, tokens)
        deadline = time.monotonic() + 30
        while not all(s.versions[-1] == moved for s in streams):
            assert time.monotonic() < deadline, "not every stream received the new version"
            await asyncio.sleep(0.05)
        for stream in streams:
            await stream.close()
        deadline = time.monotonic() + 10
        while _metric((await http.get(f"{platform.read_url}/metrics")).text, "benthic_live_streams") != 0:
            assert time.monotonic() < deadline, "closed streams were not released"
            await asyncio.sleep(0.1)
        assert (await http.get(f"{platform.read_url}/readyz")).status_code == 200
        again = Sse(http, f"{platform.read_url}/games/{game_id}/live").start()
        await asyncio.wait_for(again.first.wait(), 10)
        assert again.versions == [moved]
        await again.close()
    await client.aclose()


async def test_a_burst_of_requests_larger_than_the_pool_all_succeed(platform) -> None:
    client, game_id, tokens = await _game(platform)
    version = await _play_one(client, game_id, tokens)
    await _projected(client, game_id, version)
    token = tokens[0]
    async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=400)) as http:
        requests = [http.get(f"{platform.command_url}/games/{game_id}/legal",
                             headers={"Authorization": f"Bearer {token}"}) for _ in range(150)]
        requests += [http.get(f"{platform.read_url}/games/{game_id}/view") for _ in range(150)]
        requests += [http.get(f"{platform.read_url}/games/{game_id}/history") for _ in range(50)]
        answers = await asyncio.gather(*requests)
    assert sorted({a.status_code for a in answers}) == [200]  # a pool of 4 connections, 350 requests at once
    await client.aclose()


async def test_a_surge_beyond_admission_is_refused_503_overloaded_and_changes_nothing(make_platform) -> None:
    platform = make_platform({"BENTHIC_ADMISSION_LIMIT": "2", "BENTHIC_ADMISSION_QUEUE": "2",
                              "BENTHIC_ADMISSION_QUEUE_MS": "5", **GENEROUS_LIMITS}, shared_archive=False)
    client, game_id, tokens = await _game(platform)  # BenthicClient retries 503 overloaded after Retry-After
    for token in tokens.values():
        legal = await client.legal(game_id, token)
        if legal["commands"]:
            break
    auth = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(timeout=30) as http:  # long-polls waiting for a version hold no slot
        view = f"{platform.read_url}/games/{game_id}/view"
        waiting = []
        for _ in range(4):  # one after the other: each takes a slot, then gives it back while it waits
            waiting.append(asyncio.create_task(http.get(view, params={"after_version": 10**6, "wait": 3})))
            await asyncio.sleep(0.2)
        assert not any(task.done() for task in waiting), [task.result() for task in waiting if task.done()]
        assert (await http.get(view)).status_code == 200
        assert [(await task).status_code for task in waiting] == [200] * 4
    move = {"command_id": "surge-move", "command": legal["commands"][0], "expected_version": legal["version"]}
    async with httpx.AsyncClient(timeout=30, limits=httpx.Limits(max_connections=400)) as http:
        surge = [http.post(f"{platform.command_url}/games/{game_id}/commands", headers=auth, json=move)
                 for _ in range(60)]
        surge += [http.get(f"{platform.command_url}/games/{game_id}/legal", headers=auth) for _ in range(100)]
        surge += [http.get(f"{platform.read_url}/games/{game_id}/view") for _ in range(100)]
        health = [http.get(f"{platform.url(s)}/healthz", timeout=5) for s in SERVICES]
        answers = await asyncio.gather(*surge, *health)
        assert [a.status_code for a in answers[len(surge):]] == [200] * len(SERVICES)  # health is never refused
        answers = answers[:len(surge)]
        assert sorted({a.status_code for a in answers}) == [200, 503]
        for refused in (a for a in answers if a.status_code == 503):
            body = refused.json()
            assert body["code"] == "overloaded" and int(refused.headers["retry-after"]) >= 1
            assert body["details"]["reason"] in ("queue_full", "queue_timeout")
        # the move was applied once, whatever was refused: every admitted copy names the same version
        applied = [a.json() for a in answers[:60] if a.status_code == 200]
        assert {a["first_version"] for a in applied} == {legal["version"] + 1}
        assert sum(1 for a in applied if not a["duplicate"]) <= 1
        again = await client.play(game_id, token, move["command"], command_id="surge-move",
                                  expected_version=legal["version"])
        assert again["first_version"] == legal["version"] + 1 and (again["duplicate"] or not applied)
        metrics = (await http.get(f"{platform.command_url}/metrics")).text
        assert _metric(metrics, "benthic_admission_shed_total") >= 1
        assert 'benthic_bound{bound="admission_limit"} 2.0' in metrics
        assert _metric(metrics, "benthic_admission_in_flight") == 0  # every slot given back
    await client.aclose()


async def test_a_live_stream_of_a_game_not_projected_yet_starts_with_its_first_version(tmp_path) -> None:
    """The projection rests 3 s between batches here, so a game opened at once is not projected yet: its stream
    (no X-Benthic-Version) waits for the first version instead of answering 404.  A game that does not exist is
    still 404.  A Redis of its own: another platform's projection on the session's Redis would project the game."""
    redis = PrivateRedis(str(tmp_path / "redis")).start()
    platform = LocalPlatform(redis_url=redis.url, env={"BENTHIC_PROJECTION_PAUSE_MS": "3000", **GENEROUS_LIMITS},
                             log_dir=str(tmp_path / "logs")).start()
    try:
        await _stream_of_a_new_game(platform)
    finally:
        platform.stop()
        redis.stop()


async def _stream_of_a_new_game(platform: LocalPlatform) -> None:
    client = platform_client(platform)
    async with httpx.AsyncClient(timeout=httpx.Timeout(30, read=None)) as http:
        assert (await http.get(f"{platform.read_url}/games/no-such-game/live")).status_code == 404
        for _attempt in range(5):
            game_id, tokens = await start_bot_game(client, "aquatica", 2, name=f"new{random.randrange(10**6)}")
            async with http.stream("GET", f"{platform.read_url}/games/{game_id}/seats/0/live",
                                   headers={"Authorization": f"Bearer {tokens[0]}"}) as stream:
                assert stream.status_code == 200
                if "x-benthic-version" in stream.headers:
                    continue  # projected within the few ms it took: try a game created at another moment
                async for line in stream.aiter_lines():
                    if line.startswith("id: "):
                        assert int(line[4:]) >= 0
                        break
                break
        else:
            raise AssertionError("every game was projected before its stream opened")
    await client.aclose()


async def _statuses(http: httpx.AsyncClient, platform: LocalPlatform, path: str) -> list[int]:
    answers = await asyncio.gather(*(http.get(f"{platform.url(s)}{path}", timeout=5) for s in SERVICES),
                                   return_exceptions=True)
    return [a.status_code if isinstance(a, httpx.Response) else 0 for a in answers]


async def test_a_redis_outage_is_answered_503_and_every_service_is_ready_again_after_it(tmp_path) -> None:
    redis = PrivateRedis(str(tmp_path / "redis")).start()
    platform = LocalPlatform(redis_url=redis.url, env={"BENTHIC_METRICS_INTERVAL_S": "1", **GENEROUS_LIMITS},
                             log_dir=str(tmp_path / "logs")).start()
    try:
        client, game_id, tokens = await _game(platform)
        version = await _play_one(client, game_id, tokens)
        await _projected(client, game_id, version)
        for seat_token in tokens.values():
            legal = await client.legal(game_id, seat_token)
            if legal["commands"]:
                break
        redis.process.kill()  # kill -9
        redis.process.wait()
        async with httpx.AsyncClient(timeout=10) as http:
            deadline = time.monotonic() + 10
            while await _statuses(http, platform, "/readyz") != [503] * len(SERVICES):
                assert time.monotonic() < deadline, "readiness did not turn false"
                await asyncio.sleep(0.1)
            assert await _statuses(http, platform, "/healthz") == [200] * len(SERVICES)
            refused = await http.post(
                f"{platform.command_url}/games/{game_id}/commands", headers={"Authorization": f"Bearer {seat_token}"},
                json={"command_id": "during-outage", "command": legal["commands"][0]},
            )
            for answer in (refused, await http.get(f"{platform.read_url}/games/{game_id}/view"),
                           await http.get(f"{platform.read_url}/games/{game_id}/history"),
                           await http.get(f"{platform.command_url}/games/{game_id}/legal",
                                          headers={"Authorization": f"Bearer {seat_token}"})):
                assert answer.status_code == 503, answer.text
                assert answer.json()["code"] == "store_unavailable" and int(answer.headers["retry-after"]) >= 1
            redis.start()  # the same port and data directory: the AOF brings the data back
            back = time.monotonic()
            while await _statuses(http, platform, "/readyz") != [200] * len(SERVICES):
                assert time.monotonic() - back < 30, "the services did not become ready again"
                await asyncio.sleep(0.05)
            print(f"ready again {time.monotonic() - back:.2f}s after Redis came back")
        try:
            answer = await client.play(game_id, seat_token, legal["commands"][0], command_id="during-outage")
        except ApiFailure as failure:  # say why: the services' own account of it
            errors = [line for s in SERVICES for line in (platform.log_dir / f"{s}.log").read_text().splitlines()
                      if '"unhandled_error"' in line or '"store_unavailable"' in line]
            raise AssertionError(f"{failure!r} after the outage; the services logged: {errors[-5:]}") from failure
        assert answer["duplicate"] is False and answer["first_version"] == version + 1  # nothing was appended
        await _projected(client, game_id, answer["last_version"])
        await client.aclose()
    finally:
        platform.stop()
        redis.stop()
