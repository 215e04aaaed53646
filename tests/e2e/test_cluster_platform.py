"""The services as processes on a three-master Redis Cluster (BENTHIC_REDIS_CLUSTER=1), the archiver included:
finished games leave the cluster for the archive and stay readable."""

from __future__ import annotations

import asyncio
import random
import time

from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import BenthicClient
from benthic.game.keys import GameKeys
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from benthic.runtime.redisconn import redis_client

GAMES = game_types()

async def test_bot_games_over_http_on_a_redis_cluster(redis_cluster_url: str, archive_url: str) -> None:
    env = {"BENTHIC_REDIS_CLUSTER": "1", "BENTHIC_CLAIM_IDLE_MS": "1500", "BENTHIC_CLAIM_INTERVAL_S": "0.5",
           "BENTHIC_LIMIT_COMMAND_PER_PLAYER": "1000/second", "BENTHIC_LIMIT_COMMAND_PER_IP": "100000/second",
           "BENTHIC_ARCHIVE_AFTER_S": "2", "BENTHIC_ARCHIVE_LEASE_S": "2"}
    with LocalPlatform(redis_url=redis_cluster_url, env=env, archive_url=archive_url) as platform:
        client = BenthicClient(platform.command_url, platform.read_url, mint=platform.mint)
        try:
            games = []
            for game_type in GAMES:
                game_id, tokens = await start_bot_game(client, game_type, get_engine(game_type).max_seats, "cluster")
                games.append(HttpGame(client, game_id, tokens, random.Random(game_id)))
            first = None
            while first is None:
                try:
                    first = await client.view(games[0].game_id)
                except Exception:  # noqa: BLE001 - not projected yet
                    await asyncio.sleep(0.1)
            waiting = asyncio.create_task(client.view(games[0].game_id, after_version=first["version"], wait=20))
            versions = await asyncio.gather(*(g.play() for g in games))
            assert (await waiting)["version"] > first["version"]  # a long-poll woken through the cluster pub/sub
            deadline = time.monotonic() + 60
            for game, version in zip(games, versions, strict=True):
                while True:
                    summary = await client.summary(game.game_id)
                    if summary.get("scored") and summary["version"] == version + 1:
                        break
                    assert time.monotonic() < deadline, f"{game.game_id} not scored on the cluster"
                    await asyncio.sleep(0.2)
                # Ratings apply just after game_scored is appended, so the projection may show it scored first.
                while True:
                    board = await client.leaderboard(get_engine(summary["game_type"]).game_type, 50)
                    if {s["player_id"] for s in summary["seats"]} <= {p["player_id"] for p in board["players"]}:
                        break
                    assert time.monotonic() < deadline, f"{game.game_id} not rated on the cluster"
                    await asyncio.sleep(0.2)
            metrics = (await client.http.get(f"{platform.command_url}/metrics")).text
            assert "benthic_redis_memory_used_bytes" in metrics
            await _archived_off_the_cluster(platform, client, [g.game_id for g in games])
        finally:
            await client.aclose()


async def _archived_off_the_cluster(platform: LocalPlatform, client: BenthicClient, game_ids: list[str]) -> None:
    """Every game leaves the cluster (its meta gone) and its lobby card is still served, from the archive."""
    cards = {game_id: await client.summary(game_id) for game_id in game_ids}
    redis = redis_client(platform.redis_url, cluster=True)
    try:
        deadline = time.monotonic() + 90
        for game_id in game_ids:
            while await redis.exists(GameKeys(game_id, 16).meta):
                assert time.monotonic() < deadline, f"{game_id} was not archived off the cluster"
                await asyncio.sleep(0.3)
            assert not await redis.exists(*GameKeys(game_id, 16).game_keys())
            assert await client.summary(game_id) == cards[game_id]
    finally:
        await redis.aclose()
