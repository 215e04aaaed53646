"""Durability under node loss on a Redis Cluster (BENTHIC_REDIS_CLUSTER=1) with a replica per master and
BENTHIC_REDIS_ACK_REPLICAS=1 (one WAIT per shard written): a master killed -9 under load, its replica promoted,
the games whose partition it held resume, and no acknowledged command is lost."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest
from redis.crc import key_slot

from benthic.game.keys import GameKeys
from benthic.local.devredis import PrivateRedisCluster
from benthic.local.localplatform import LocalPlatform
from tests.e2e.test_failover import (
    TIMEOUT_S,
    Acked,
    _env,
    _every_ack_survived_and_every_game_converged,
    _play,
    _start_games,
)
from tests.e2e.waiting import until
from tests.platform_helpers import platform_client

# In `make test` again: it failed in about one run of five on a loaded machine (a game not scored, or not projected,
# within 120 s of the failover) because a feed reader died of an error redis-py's cluster client raised on a
# connection reset (AttributeError, uvloop's RuntimeError) that the read loop did not catch, leaving its partition
# unread until a restart; 25 runs in a row passed (15 beside a busy loop taking a core) once the readers survive any
# error.  `make chaos` runs it ten times in a row.


@pytest.fixture
def cluster() -> Iterator[PrivateRedisCluster]:
    with PrivateRedisCluster(replicas_per_master=1) as running:
        yield running


async def test_a_cluster_master_killed_under_load_loses_no_acknowledged_command(
    cluster: PrivateRedisCluster, archive_url: str
) -> None:
    env = {key: value for key, value in _env_without_sentinels().items()}
    with LocalPlatform(redis_url=cluster.url, env={**env, "BENTHIC_REDIS_CLUSTER": "1"},
                       archive_url=archive_url) as platform:
        async with platform_client(platform) as client:
            games = await _start_games(client)
            acked = Acked()
            players = [asyncio.create_task(_play(client, game_id, tokens, acked, seed))
                       for seed, (game_id, tokens) in enumerate(games)]
            await until(lambda: asyncio.sleep(0, len(acked) >= 40), "some load", TIMEOUT_S)
            # The master of the first game's partition: that game's moves must wait for the promotion.
            slot = key_slot(GameKeys(games[0][0], 16).meta.encode())
            before, killed_at = len(acked), time.monotonic()
            old = await asyncio.to_thread(cluster.kill_master_of_slot, slot)
            new = await asyncio.to_thread(cluster.wait_for_promotion, old)
            # The promoted replica has no replica of its own until the old master, restarted (as its pod would
            # be), replicates from it: meanwhile that shard's writes answer durability_unconfirmed.
            await asyncio.to_thread(cluster.restart, old)
            await asyncio.to_thread(cluster.wait_ready)
            await until(lambda: asyncio.sleep(0, len(acked) > before), "an acknowledged command after the kill",
                        TIMEOUT_S)
            finals = await asyncio.gather(*players)
            print(f"killed master :{old.port} (slot {slot}); :{new.port} promoted in "
                  f"{time.monotonic() - killed_at:.1f} s; refusals: {acked.refusals}")
            await _every_ack_survived_and_every_game_converged(client, games, finals, acked)


def _env_without_sentinels() -> dict[str, str]:
    class NoSentinels:
        sentinels_setting = ""
        master_name = "benthic"

    env = _env(NoSentinels())  # type: ignore[arg-type]
    del env["BENTHIC_REDIS_SENTINELS"], env["BENTHIC_REDIS_SENTINEL_MASTER"]
    return env
