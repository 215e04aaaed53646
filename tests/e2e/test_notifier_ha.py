"""The notifier on the production Redis modes, as processes: under Sentinel (BENTHIC_REDIS_SENTINELS) and on a Redis
Cluster (BENTHIC_REDIS_CLUSTER) its FastStream broker and its own client follow a failover by themselves, and on a
cluster it delivers from a stream whose slot another node than REDIS_URL's serves.

Failover: games played over HTTP by players with webhooks, the Redis primary (the cluster master of the integration
stream's slot) killed -9 mid-game, play continued on the promoted replica; every ``turn.started`` of a move
acknowledged after the failover reaches its player (at least once: deduplicated by ``Benthic-Event-Id``), and the
notifier is still the same process, ready."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest
from redis.asyncio import Redis
from redis.crc import key_slot

from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.feed.encoding import DATA_FIELD, decode_message
from benthic.feed.integration import webhook_stream
from benthic.local.devha import PrivateSentinelSet
from benthic.local.devredis import PrivateRedisCluster
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types
from benthic.runtime.redisconn import redis_client
from tests.e2e.test_cluster_failover import _env_without_sentinels
from tests.e2e.test_failover import TIMEOUT_S, Acked, _env, _play
from tests.e2e.waiting import until
from tests.e2e.webhook_receiver import Receiver
from tests.platform_helpers import GENEROUS_LIMITS, platform_client

STREAM = f"benthic:integration:ha-{uuid.uuid4().hex[:8]}"
NOTIFIER = {
    "BENTHIC_INTEGRATION_STREAM": STREAM,
    "BENTHIC_WEBHOOK_RETRY_BASE_MS": "200",
    "BENTHIC_WEBHOOK_RETRY_MAX_MS": "1000",
    "BENTHIC_WEBHOOK_MAX_ATTEMPTS": "20",  # a delivery refused meanwhile is not given up on during the failover
    "BENTHIC_WEBHOOK_LEASE_S": "3",
    "BENTHIC_WEBHOOK_POLL_MS": "50",
    "BENTHIC_CONSUMER_BLOCK_MS": "200",
}


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.server.shutdown()


def _register(platform: LocalPlatform, player: str, receiver: Receiver) -> None:
    backend = {"Authorization": f"Bearer {platform.mint('backend-ha', ['benthic:matchmaker'])}"}
    answer = httpx.put(f"{platform.url('notifier')}/players/{player}/webhook",
                       json={"url": f"{receiver.url}/ok/{player}"}, headers=backend, timeout=10)
    assert answer.status_code == 200, answer.text


async def _events(redis: Any, game_ids: set[str], stream: str = STREAM) -> list[dict[str, Any]]:
    entries = await redis.xrange(stream)
    events = [json.loads(decode_message(fields[DATA_FIELD.encode()])) for _, fields in entries]
    return [e for e in events if e["game_id"] in game_ids]


def _delivered(receiver: Receiver, player: str) -> set[str]:
    return {r["headers"]["benthic-event-id"] for r in receiver.of(player)}


async def test_the_notifier_follows_a_sentinel_failover_and_delivers_every_turn_acknowledged_after_it(
    archive_url: str, receiver: Receiver
) -> None:
    with PrivateSentinelSet(replicas=2) as servers, \
            LocalPlatform(redis_url=servers.primary().url, env={**_env(servers), **NOTIFIER},
                          archive_url=archive_url) as platform:
        async def fail_over() -> str:
            old = await asyncio.to_thread(servers.kill_primary)
            new = await asyncio.to_thread(servers.wait_for_failover, old)
            return f"killed the primary :{old.port}, :{new.port} promoted"

        await _failover_while_playing(platform, receiver, fail_over, lambda: Redis.from_url(servers.primary().url))


async def test_the_notifier_follows_a_cluster_failover_of_its_stream_s_master(
    archive_url: str, receiver: Receiver
) -> None:
    with PrivateRedisCluster(replicas_per_master=1) as cluster:
        stream = await _stream_off(cluster.url)
        env = {**_env_without_sentinels(), **NOTIFIER, "BENTHIC_INTEGRATION_STREAM": stream,
               "BENTHIC_REDIS_CLUSTER": "1"}
        with LocalPlatform(redis_url=cluster.url, env=env, archive_url=archive_url) as platform:
            async def fail_over() -> str:
                # the master of the stream the notifier reads (the entries of players with a webhook)
                old = await asyncio.to_thread(cluster.kill_master_of_slot, key_slot(webhook_stream(stream).encode()))
                new = await asyncio.to_thread(cluster.wait_for_promotion, old)
                # The promoted replica has none of its own (writes wait for one) until the old master rejoins.
                await asyncio.to_thread(cluster.restart, old)
                await asyncio.to_thread(cluster.wait_ready)
                return f"killed the stream's master :{old.port}, :{new.port} promoted"

            await _failover_while_playing(platform, receiver, fail_over,
                                          lambda: redis_client(cluster.url, cluster=True), stream)


async def _failover_while_playing(
    platform: LocalPlatform, receiver: Receiver, fail_over: Callable[[], Awaitable[str]],
    reader: Callable[[], Any], stream: str = STREAM,
) -> None:
    """Games of every type played by players with webhooks; ``fail_over`` mid-game; play goes on.  Every
    turn.started of a move acknowledged after the failover reaches its player, from the same notifier process."""
    notifier_pid = platform.processes["notifier"].pid
    async with platform_client(platform) as client:
        name = f"ha{uuid.uuid4().hex[:4]}"
        games: list[tuple[str, dict[int, str]]] = []
        players: dict[str, list[str]] = {}  # game -> its seats' players
        for game_type in sorted(game_types()):
            seated = [f"{name}-{game_type}-{i}" for i in range(2)]  # as start_bot_game names them
            for player in seated:
                _register(platform, player, receiver)
            game_id, tokens = await start_bot_game(client, game_type, 2, name=name)
            games.append((game_id, tokens))
            players[game_id] = seated
        acked = Acked()
        playing = [asyncio.create_task(_play(client, game_id, tokens, acked, seed))
                   for seed, (game_id, tokens) in enumerate(games)]
        await until(lambda: asyncio.sleep(0, len(acked) >= 20 or any(p.done() for p in playing)),
                    "some moves", TIMEOUT_S)
        assert receiver.requests, "deliveries before the failover"
        what = await fail_over()
        before = set(acked.commands)
        await until(lambda: asyncio.sleep(0, len(acked.commands.keys() - before) > 0),
                    "a move acknowledged after the failover", TIMEOUT_S)
        await asyncio.gather(*playing)
        after = {key: value for key, value in acked.commands.items() if key not in before}

        redis = reader()
        try:
            events = await _events(redis, set(players), stream)
        finally:
            await redis.aclose()
        # The turns the moves acknowledged after the failover started (their versions and later ones).
        first_after: dict[str, int] = {}
        for (game_id, _command_id), (_command, _token, first, _last) in after.items():
            first_after[game_id] = min(first, first_after.get(game_id, first))
        expected: dict[str, set[str]] = {}
        for event in events:
            if event["type"] == "turn.started" and event["version"] >= first_after.get(event["game_id"], 1 << 62):
                for seat in event["seats"]:
                    expected.setdefault(players[event["game_id"]][seat], set()).add(event["id"])
        assert sum(map(len, expected.values())) >= len(first_after), "turns started after the failover"

        def missing() -> dict[str, set[str]]:
            gaps = {p: ids - _delivered(receiver, p) for p, ids in expected.items()}
            return {p: ids for p, ids in gaps.items() if ids}

        try:
            await until(lambda: asyncio.sleep(0, not missing()), "every turn after the failover delivered", 90)
        except AssertionError:
            raise AssertionError(f"not delivered: {missing()}") from None
        process = platform.processes["notifier"]
        assert process.pid == notifier_pid and process.poll() is None, "the notifier was not restarted"
        ready = httpx.get(f"{platform.url('notifier')}/readyz", timeout=10)
        assert ready.status_code == 200, ready.text
        every_turn = {e["id"] for e in events if e["type"] == "turn.started"}
        got = set().union(*(_delivered(receiver, p) for seated in players.values() for p in seated))
        print(f"{what}; {len(after)} moves acknowledged after it, {sum(map(len, expected.values()))} of their "
              f"turn deliveries all made; of every turn on the stream {len(every_turn & got)}/{len(every_turn)} "
              f"delivered; {len(receiver.requests)} requests in all")


async def test_the_notifier_delivers_on_a_redis_cluster(redis_cluster_url: str, archive_url: str,
                                                        receiver: Receiver) -> None:
    stream = await _stream_off(redis_cluster_url)
    env = {**GENEROUS_LIMITS, **NOTIFIER, "BENTHIC_INTEGRATION_STREAM": stream, "BENTHIC_REDIS_CLUSTER": "1",
           "BENTHIC_CLAIM_IDLE_MS": "1500", "BENTHIC_CLAIM_INTERVAL_S": "0.5", "BENTHIC_ARCHIVE_AFTER_S": "600"}
    with LocalPlatform(redis_url=redis_cluster_url, env=env, archive_url=archive_url) as platform:
        async with platform_client(platform) as client:
            name = f"cl{uuid.uuid4().hex[:4]}"
            game_type = "nautilus"
            seated = [f"{name}-{game_type}-{i}" for i in range(2)]
            for player in seated:
                _register(platform, player, receiver)
            game_id, tokens = await start_bot_game(client, game_type, 2, name=name)
            started = time.monotonic()
            await HttpGame(client, game_id, tokens, random.Random(3)).play()
            redis = redis_client(platform.redis_url, cluster=True)
            try:
                events = await until(lambda: _finished(redis, game_id, stream), "the game's end on the stream",
                                     TIMEOUT_S)
            finally:
                await redis.aclose()
            expected = {p: {e["id"] for e in events if e["type"] == "game.finished"
                            or (e["type"] == "turn.started" and i in e["seats"])} for i, p in enumerate(seated)}
            await until(lambda: asyncio.sleep(0, all(expected[p] <= _delivered(receiver, p) for p in seated)),
                        "every turn and the end delivered through the cluster", 60)
            print(f"cluster: {sum(map(len, expected.values()))} deliveries in {time.monotonic() - started:.1f} s")


async def _stream_off(url: str) -> str:
    """An integration stream name whose slot, and the slot of the notifier's stream of it, another node than
    ``url``'s serves: a client of that one node alone (not following the cluster's slot map) would be answered
    MOVED."""
    node = Redis.from_url(url)
    try:
        port = int((await node.config_get("port"))["port"])
        owned = [(start, end) for start, end, primary, *_ in await node.execute_command("CLUSTER", "SLOTS")
                 if int(primary[1]) == port]
    finally:
        await node.aclose()
    while True:
        stream = f"benthic:integration:cl-{uuid.uuid4().hex[:8]}"
        slots = (key_slot(stream.encode()), key_slot(webhook_stream(stream).encode()))
        if not any(start <= slot <= end for start, end in owned for slot in slots):
            return stream


async def _finished(redis: Any, game_id: str, stream: str) -> list[dict[str, Any]] | None:
    events = await _events(redis, {game_id}, stream)
    return events if any(e["type"] == "game.finished" for e in events) else None
