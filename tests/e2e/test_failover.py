"""Durability under node loss, the way it happens: the services as processes on a Redis primary with replicas
and three Sentinels (BENTHIC_REDIS_SENTINELS, BENTHIC_REDIS_ACK_REPLICAS=1); games of every type played over
HTTP; the primary killed -9 mid-load, or first cut off from its replica by a proxy on the replication link.

What must hold: every command the platform acknowledged is on the promoted server (posting it again answers the
duplicate with the same versions), every game finishes, views converge to the event streams, every finished
game is scored and rated once; the services follow the failover by themselves, without a restart."""

from __future__ import annotations

import asyncio
import functools
import os
import random
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import httpx
import pytest

from benthic.clients.client import ApiFailure, BenthicClient
from benthic.local.devha import PrivateSentinelSet
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types
from tests.e2e.waiting import until
from tests.platform_helpers import GENEROUS_LIMITS, platform_client

TIMEOUT_S = 120.0
ACK_TIMEOUT_MS = 1000


def _env(servers: PrivateSentinelSet) -> dict[str, str]:
    return {
        "BENTHIC_REDIS_SENTINELS": servers.sentinels_setting,
        "BENTHIC_REDIS_SENTINEL_MASTER": servers.master_name,
        "BENTHIC_REDIS_ACK_REPLICAS": "1",
        "BENTHIC_REDIS_ACK_TIMEOUT_MS": str(ACK_TIMEOUT_MS),
        "BENTHIC_BOT_MOVE_DELAY_MS": "0",
        "BENTHIC_CLAIM_IDLE_MS": "1500",
        "BENTHIC_CLAIM_INTERVAL_S": "0.5",
        "BENTHIC_ARCHIVE_AFTER_S": "600",  # archiving has its own test across a failover (test_archive_...)
        "BENTHIC_DRAIN_TIMEOUT_S": "2",
        **GENEROUS_LIMITS,
    }


@pytest.fixture
def sentinel_platform(archive_url: str) -> Iterator[tuple[PrivateSentinelSet, LocalPlatform]]:
    with PrivateSentinelSet(replicas=2) as servers, \
            LocalPlatform(redis_url=servers.primary().url, env=_env(servers), archive_url=archive_url) as platform:
        yield servers, platform


class Acked:
    """Every command the platform acknowledged: (game, command id) -> (body, first version, last version)."""

    def __init__(self) -> None:
        self.commands: dict[tuple[str, str], tuple[dict[str, Any], str, int, int]] = {}
        self.refusals: dict[str, int] = {}  # what was answered instead of an ack, by code, meanwhile

    def __len__(self) -> int:
        return len(self.commands)


async def _retrying(call: Callable[[], Awaitable[Any]], acked: Acked, deadline: float) -> Any:
    """``call`` until it answers: a 503 (store_unavailable, durability_unconfirmed) or a broken connection is
    tried again, as a client following the Retry-After would."""
    while True:
        try:
            return await call()
        except ApiFailure as failure:
            if failure.status != 503 or time.monotonic() > deadline:
                raise
            acked.refusals[failure.code] = acked.refusals.get(failure.code, 0) + 1
        except httpx.TransportError as error:
            if time.monotonic() > deadline:
                raise
            acked.refusals[type(error).__name__] = acked.refusals.get(type(error).__name__, 0) + 1
        await asyncio.sleep(0.1)


async def _play(client: BenthicClient, game_id: str, tokens: dict[int, str], acked: Acked, seed: int) -> int:
    """Play random legal moves to the end; a move refused with 503 is sent again with the same command id."""
    rng = random.Random(seed)
    deadline = time.monotonic() + TIMEOUT_S
    token = tokens[0]
    while True:
        legal = await _retrying(functools.partial(client.legal, game_id, token), acked, deadline)
        prompt = legal["prompt"]
        if prompt is None:
            return int(legal["version"])
        seat = prompt["seats"][0]
        if token != tokens[seat]:
            token = tokens[seat]
            continue
        if not legal["commands"]:
            continue
        command, command_id = rng.choice(legal["commands"]), uuid.uuid4().hex
        try:
            answer = await _retrying(
                functools.partial(client.play, game_id, token, command, command_id=command_id,
                                  expected_version=legal["version"]), acked, deadline)
        except ApiFailure as failure:
            if failure.code == "version_conflict":
                continue
            raise
        acked.commands[(game_id, command_id)] = (command, token, answer["first_version"], answer["last_version"])


async def _start_games(client: BenthicClient, per_type: int = 1) -> list[tuple[str, dict[int, str]]]:
    games = []
    for game_type in sorted(game_types()):
        for _ in range(per_type):
            seats = [{"player_id": f"p{i}-{uuid.uuid4().hex[:8]}", "name": f"P{i}"} for i in range(2)]
            created = await client.create_game(game_type, seats)
            tokens = {s["seat"]: s["token"] for s in created["seats"]} if created["seats"][0].get("token") else None
            if tokens is None:
                tokens = {i: (await client.seat_token(created["game_id"], seats[i]["player_id"]))["token"]
                          for i in range(2)}
            games.append((created["game_id"], tokens))
    return games


async def _every_ack_survived_and_every_game_converged(
    client: BenthicClient, games: list[tuple[str, dict[int, str]]], finals: list[int], acked: Acked
) -> None:
    for (game_id, command_id), (command, token, first, last) in acked.commands.items():
        again = await client.play(game_id, token, command, command_id=command_id)
        assert (again["duplicate"], again["first_version"], again["last_version"]) == (True, first, last), (
            f"{game_id}: acknowledged command {command_id} ({first}..{last}) came back as {again}")
    for (game_id, _tokens), final in zip(games, finals, strict=True):
        async def converged(game_id: str = game_id, final: int = final) -> bool:
            summary = await client.summary(game_id)
            return bool(summary.get("scored")) and (await client.view(game_id))["version"] >= final

        try:
            await until(converged, f"{game_id} projected to {final} and scored", TIMEOUT_S)
        except AssertionError as gave_up:
            summary, view = await client.summary(game_id), await client.view(game_id)
            raise AssertionError(f"{gave_up}; summary: {summary}; view at version {view['version']}") from None
        audit = await client.audit(game_id)
        types = [entry["type"] for entry in audit["entries"]]
        assert types.count("game_scored") == 1, f"{game_id} scored {types.count('game_scored')} times"
        versions = [entry["version"] for entry in audit["entries"]]
        assert versions == list(range(1, len(versions) + 1)), f"{game_id}: a gap or a repeat in {versions}"
    for game_type in game_types():
        async def rated(game_type: str = game_type) -> list[dict[str, Any]] | None:
            players = (await client.leaderboard(game_type))["players"]
            return players if len(players) >= 2 else None

        for player in await until(rated, f"{game_type} rated", TIMEOUT_S):
            assert player["games"] == 1, f"{player['player_id']} rated {player['games']} times"


async def test_a_primary_killed_under_load_loses_no_acknowledged_command(
    sentinel_platform: tuple[PrivateSentinelSet, LocalPlatform],
) -> None:
    servers, platform = sentinel_platform
    async with platform_client(platform) as client:
        games = await _start_games(client)
        acked = Acked()
        players = [asyncio.create_task(_play(client, game_id, tokens, acked, seed))
                   for seed, (game_id, tokens) in enumerate(games)]
        await until(lambda: asyncio.sleep(0, len(acked) >= 60 or any(p.done() for p in players)), "some load",
                    TIMEOUT_S)
        before = len(acked)
        killed_at = time.monotonic()
        old = await asyncio.to_thread(servers.kill_primary)
        new = await asyncio.to_thread(servers.wait_for_failover, old)
        await until(lambda: asyncio.sleep(0, len(acked) > before), "an acknowledged command after the failover",
                    TIMEOUT_S)
        print(f"killed the primary :{old.port}; {new.port} promoted; first ack after the kill in "
              f"{time.monotonic() - killed_at:.2f} s; refused meanwhile: {acked.refusals}")
        finals = await asyncio.gather(*players)
        await _every_ack_survived_and_every_game_converged(client, games, finals, acked)


async def test_a_cut_replica_makes_writes_wait_and_fail_then_the_promoted_replica_holds_every_ack(
    archive_url: str,
) -> None:
    with PrivateSentinelSet(replicas=1, proxied=True, min_replicas_max_lag=3) as servers, \
            LocalPlatform(redis_url=servers.primary().url, env=_env(servers), archive_url=archive_url) as platform:
        async with platform_client(platform) as client:
            games = await _start_games(client)
            acked = Acked()
            players = [asyncio.create_task(_play(client, game_id, tokens, acked, seed))
                       for seed, (game_id, tokens) in enumerate(games)]
            await until(lambda: asyncio.sleep(0, len(acked) >= 30), "some load", TIMEOUT_S)
            proxy = servers.proxy_of(servers.replicas_of_primary()[0])
            proxy.cut()
            cut_at, during = time.monotonic(), len(acked)
            await until(lambda: asyncio.sleep(0, acked.refusals.get("durability_unconfirmed", 0) > 0),
                         "a durability_unconfirmed answer", 10)
            await asyncio.sleep(1.5)
            # Nothing is acknowledged while the replica cannot confirm it (an answer already in flight may land).
            assert len(acked) <= during + len(games), "commands were acknowledged with the replica cut off"
            old = await asyncio.to_thread(servers.kill_primary)
            new = await asyncio.to_thread(servers.wait_for_failover, old)
            # The promoted replica has no replica of its own: min-replicas-to-write keeps it from taking writes
            # until the old primary, back, replicates from it.
            await asyncio.to_thread(servers.restart, old, True)  # as a replica of the promoted one
            await asyncio.to_thread(servers.wait_replicas_online, 1)
            proxy.heal()
            finals = await asyncio.gather(*players)
            print(f"cut {time.monotonic() - cut_at:.1f} s before the end; {new.port} promoted; "
                  f"refusals: {acked.refusals}")
            await _every_ack_survived_and_every_game_converged(client, games, finals, acked)



async def test_archiving_across_a_failover_keeps_every_game_exactly_once(archive_url: str) -> None:
    """Bot games (played by the bots service) finish, are scored and archived while the primary is killed: every
    game ends up in the archive exactly once, at its last version, and out of Redis, and reads still answer."""
    import psycopg
    import redis as sync_redis

    from benthic.game.keys import GameKeys

    env = {**_env(servers := PrivateSentinelSet(replicas=2)), "BENTHIC_ARCHIVE_AFTER_S": "0.2",
           "BENTHIC_ARCHIVE_LEASE_S": "2", "BENTHIC_BOT_LEASE_S": "1"}
    with servers, LocalPlatform(redis_url=servers.primary().url, env=env, archive_url=archive_url) as platform:
        async with platform_client(platform) as client:
            games = [(await client.create_game(game_type, [{"bot": "random"}, {"bot": "random"}]))["game_id"]
                     for game_type in sorted(game_types()) for _ in range(2)]

            def archived() -> dict[str, int]:
                with psycopg.connect(archive_url) as conn:
                    rows = conn.execute("SELECT game_id, last_version FROM archived_games WHERE game_id = ANY(%s)",
                                        (games,)).fetchall()
                return dict(rows)

            await until(lambda: asyncio.sleep(0, bool(archived())), "a first game archived", TIMEOUT_S)
            old = await asyncio.to_thread(servers.kill_primary)
            new = await asyncio.to_thread(servers.wait_for_failover, old)
            def all_archived() -> dict[str, int] | None:
                found = archived()
                return found if len(found) == len(games) else None

            done = await until(lambda: asyncio.sleep(0, all_archived()), "every game archived", TIMEOUT_S)
            primary = sync_redis.Redis(port=new.port)
            for game_id in games:
                assert not primary.exists(GameKeys(game_id, 16).meta), f"{game_id} archived but still in Redis"
                summary = await client.summary(game_id)  # from the archive now
                assert summary["scored"] and summary["version"] == done[game_id], (game_id, summary)


def test_a_bad_redis_configuration_is_answered_and_said_not_hung(redis_url: str) -> None:
    """No Sentinel reachable, an unknown master name, fewer replicas online than BENTHIC_REDIS_ACK_REPLICAS: the
    service starts, serves /healthz, says in /readyz why it is not ready, and answers requests 503."""
    import subprocess
    import sys

    from benthic.local.devredis import free_port

    def unready_reason(env: dict[str, str]) -> tuple[str, int]:
        port = free_port()
        process = subprocess.Popen([sys.executable, "-m", "benthic.cli", "serve", "command", "--port", str(port)],
                                   env={**os.environ, "REDIS_URL": redis_url, **env},
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 30
            while True:
                assert process.poll() is None, "the service stopped instead of waiting, unready"
                try:
                    ready = httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=2)
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "the service did not serve"
                    time.sleep(0.2)
            assert httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=2).status_code == 200
            answer = httpx.get(f"http://127.0.0.1:{port}/games/nope/ops/audit", timeout=5,
                               headers={"Authorization": "Bearer dev-operator-token"})
            return ready.json()["error"] if ready.status_code == 503 else "", answer.status_code
        finally:
            process.terminate()
            process.wait(timeout=20)

    nobody = f"127.0.0.1:{free_port()}"
    reason, status = unready_reason({"BENTHIC_REDIS_SENTINELS": nobody})
    assert f"the Sentinels ({nobody}) name no primary for 'benthic'" in reason and status == 503
    with PrivateSentinelSet(replicas=1) as servers:
        reason, status = unready_reason({"BENTHIC_REDIS_SENTINELS": servers.sentinels_setting,
                                         "BENTHIC_REDIS_SENTINEL_MASTER": "no-such-master"})
        assert "name no primary for 'no-such-master'" in reason and status == 503
        reason, status = unready_reason({"BENTHIC_REDIS_SENTINELS": servers.sentinels_setting,
                                         "BENTHIC_REDIS_ACK_REPLICAS": "2"})
        assert "1 replica(s) online, BENTHIC_REDIS_ACK_REPLICAS requires 2" in reason, reason
