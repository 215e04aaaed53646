"""The bots service's schedules in Redis, one pair of sorted sets per partition: game id by when its next bot
move is due (``{pK}:bots:due``) and by its earliest running clock's deadline (``{pK}:clock:due``).  Taking a
due game leases it (its score moves a lease ahead), so replicas share the work, and a replica killed mid-move
leaves the game to be taken again when the lease ends: the schedule survives any process."""

from __future__ import annotations

from typing import Any

from benthic.game.keys import bot_due_key, clock_due_key
from benthic.store.pipelining import ScriptBatcher
from benthic.store.scripts import load_lua

TAKE_DUE = load_lua(__package__, "take_due")
SETTLE = load_lua(__package__, "settle")
MOVES = "moves"
CLOCKS = "clocks"
_KEYS = {MOVES: bot_due_key, CLOCKS: clock_due_key}


class DueSets:
    def __init__(self, redis: Any, partitions: int) -> None:
        self.redis = redis
        self.partitions = partitions
        # EVALSHA in plain pipelines (ScriptBatcher): a script object called on a pipeline asks SCRIPT EXISTS
        # first, a round trip more on every poll.
        self._take = ScriptBatcher(redis, TAKE_DUE)
        self._settle = ScriptBatcher(redis, SETTLE)
        # When the loop must look again (ms since the epoch): the earliest score its last take left in the sets,
        # and the earliest due time scheduled by this process since (a replica sleeps until then).
        self.earliest: dict[str, float] = {MOVES: 0.0, CLOCKS: 0.0}
        self.noted = float("inf")

    def key(self, kind: str, partition: int) -> str:
        return _KEYS[kind](partition)

    async def schedule(self, kind: str, partition: int, game_id: str, due_ms: int | None) -> None:
        """Due at ``due_ms`` (None: nothing due, the game leaves the set)."""
        if due_ms is None:
            await self.redis.zrem(self.key(kind, partition), game_id)
        else:
            await self.redis.zadd(self.key(kind, partition), {game_id: due_ms})
            self.noted = min(self.noted, due_ms)

    async def take(self, kind: str, now_ms: int, lease_ms: int, batch: int) -> list[tuple[int, str, int]]:
        """(partition, game id, due ms) of every game due by now, over all partitions, each leased until
        now + lease_ms."""
        replies = await self._take.many([([self.key(kind, partition)], [now_ms, now_ms + lease_ms, batch])
                                         for partition in range(self.partitions)])
        taken = []
        earliest = float("inf")
        for partition, reply in enumerate(replies):
            if isinstance(reply, Exception):
                raise reply
            due, first = reply
            for i in range(0, len(due), 2):
                game = due[i].decode() if isinstance(due[i], bytes) else due[i]
                taken.append((partition, game, int(float(due[i + 1]))))
            if first:
                earliest = min(earliest, float(first))
        self.earliest[kind] = earliest
        return taken

    def next_look_ms(self) -> float:
        """When something may be due next: the earliest score the last takes left, or a due time this process
        scheduled since (ms since the epoch; inf: nothing known)."""
        return min(self.noted, *self.earliest.values())

    async def settle(self, kind: str, partition: int, game_id: str, lease_end_ms: int) -> None:
        await self._settle([self.key(kind, partition)], [game_id, lease_end_ms])

    async def oldest(self, kind: str) -> int | None:
        """The earliest score over all partitions (a due time, or a lease end), or None when all are empty."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for partition in range(self.partitions):
                pipe.zrange(self.key(kind, partition), 0, 0, withscores=True)
            replies = await pipe.execute()
        scores = [int(reply[0][1]) for reply in replies if reply]
        return min(scores) if scores else None
