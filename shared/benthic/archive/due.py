"""The archive's schedule in Redis: the per-partition due sets of finished games waiting to be archived, filled by
the archiver as games end (and by ``benthic archive backfill``), taken by the archiver with a lease.

Every key of a partition's due sets shares its ``{pK}`` slot, so each script runs on Redis Cluster too.
"""

from __future__ import annotations

from typing import Any

from benthic.game.keys import GameKeys, archive_due_key, archive_since_key
from benthic.store.pipelining import ScriptBatcher
from benthic.store.scripts import load_lua


class DueGames:
    """The due sets: ``{pK}:archive:due`` (game -> when to look at it next: its due time, then leases) and
    ``{pK}:archive:since`` (game -> its first due time, for the lag)."""

    def __init__(self, redis: Any, partitions: int) -> None:
        self.redis = redis
        self.partitions = partitions
        self._schedule = redis.register_script(load_lua(__package__, "schedule"))
        self._take = ScriptBatcher(redis, load_lua(__package__, "take_due"))  # EVALSHA in plain pipelines

    async def schedule(self, game_id: str, due_ms: int) -> None:
        partition = GameKeys(game_id, self.partitions).partition
        await self._schedule(keys=[archive_due_key(partition), archive_since_key(partition)], args=[game_id, due_ms])

    async def take(self, partition: int, now_ms: int, lease_ms: int, limit: int) -> list[str]:
        """Up to ``limit`` games due by ``now_ms``, leased until ``now_ms + lease_ms``."""
        return (await self.take_all([partition], now_ms, lease_ms, limit))[0]

    async def take_all(self, partitions: list[int], now_ms: int, lease_ms: int, limit: int) -> list[list[str]]:
        """``take`` for each of ``partitions``, in one round trip."""
        replies = await self._take.many([([archive_due_key(p)], [now_ms, now_ms + lease_ms, limit])
                                         for p in partitions])
        taken = []
        for reply in replies:
            if isinstance(reply, Exception):
                raise reply
            taken.append([g.decode() if isinstance(g, bytes) else g for g in reply])
        return taken

    async def unschedule(self, game_id: str) -> None:
        partition = GameKeys(game_id, self.partitions).partition
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(archive_due_key(partition), game_id)
            pipe.zrem(archive_since_key(partition), game_id)
            await pipe.execute()

    async def stats(self, now_ms: int) -> tuple[int, float]:
        """(games due or waiting, seconds the oldest is past its first due time, 0 when none is)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for partition in range(self.partitions):
                pipe.zcard(archive_due_key(partition))
                pipe.zrange(archive_since_key(partition), 0, 0, withscores=True)
            replies = await pipe.execute()
        count = sum(replies[0::2])
        oldest = min((score for reply in replies[1::2] for _, score in reply), default=None)
        return count, 0.0 if oldest is None else max(0.0, (now_ms - oldest) / 1000)
