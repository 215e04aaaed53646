"""Reading the read models, and waking long-poll / SSE clients when a game's version moves."""

from __future__ import annotations

import asyncio
import contextlib
from collections import defaultdict
from typing import Any

import msgspec
from benthic.keys import GameKeys, RatingKeys, lobby_key, updates_channel
from benthic.telemetry import log
from redis.asyncio import Redis

from services.projection.archived import ArchivedReads

STATUSES = ("open", "running", "finished")


class ReadModels:
    def __init__(self, redis: Redis, partitions: int, archived: ArchivedReads | None = None) -> None:
        self.redis = redis
        self.partitions = partitions
        self.archived = archived  # games no longer in Redis are read from the archive

    def keys(self, game_id: str) -> GameKeys:
        return GameKeys(game_id, self.partitions)

    async def version(self, game_id: str) -> int | None:
        raw = await self.redis.hget(self.keys(game_id).read_model, "version")
        return int(raw) if raw is not None else None

    async def field(self, game_id: str, field: str) -> tuple[int, bytes | None] | None:
        """(version, field value), or None when the game has no read model yet."""
        version, value = await self.redis.hmget(self.keys(game_id).read_model, ["version", field])
        if version is None:
            return await self.archived.field(game_id, field) if self.archived else None
        return int(version), value

    async def history_page(
        self, game_id: str, viewer: int | None, after: int, limit: int
    ) -> tuple[int, list[bytes]] | None:
        """(version, the viewer's history entries after ``after``), from Redis in one atomic read (never half
        of a game being archived), else from the archive; None when the game is in neither."""
        keys = self.keys(game_id)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hget(keys.read_model, "version")
            pipe.zrangebyscore(keys.history(viewer), f"({after}", "+inf", start=0, num=limit)
            version, entries = await pipe.execute()
        if version is None:
            return await self.archived.history(game_id, viewer, after, limit) if self.archived else None
        return int(version), entries

    async def lobby(self, game_types: list[str], statuses: list[str], limit: int) -> list[dict[str, Any]]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for partition in range(self.partitions):
                for game_type in game_types:
                    for status in statuses:
                        pipe.zrevrange(lobby_key(partition, game_type, status), 0, limit - 1, withscores=True)
            replies = await pipe.execute()
        ranked = sorted((score, game_id.decode()) for reply in replies for game_id, score in reply)
        chosen = [game_id for _, game_id in reversed(ranked)][:limit]
        if not chosen:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_id in chosen:
                pipe.hget(self.keys(game_id).read_model, "summary")
            summaries = await pipe.execute()
        return [msgspec.json.decode(s) for s in summaries if s]

    async def counts(self, game_types: list[str]) -> dict[tuple[str, str], int]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for game_type in game_types:
                for status in STATUSES:
                    for partition in range(self.partitions):
                        pipe.zcard(lobby_key(partition, game_type, status))
            replies = iter(await pipe.execute())
        return {
            (game_type, status): sum(next(replies) for _ in range(self.partitions))
            for game_type in game_types
            for status in STATUSES
        }

    async def leaderboard(self, game_type: str, limit: int) -> list[dict[str, Any]]:
        keys = RatingKeys(game_type)
        top = await self.redis.zrevrange(keys.leaderboard, 0, limit - 1, withscores=True)
        async with self.redis.pipeline(transaction=False) as pipe:
            for player_id, _ in top:
                pipe.hgetall(keys.player(player_id.decode()))
            records = await pipe.execute()
        board = []
        for rank, ((player_id, ordinal), record) in enumerate(zip(top, records, strict=True), start=1):
            fields = {k.decode(): v.decode() for k, v in record.items()}
            board.append(
                {
                    "rank": rank,
                    "player_id": player_id.decode(),
                    "name": fields.get("name", ""),
                    "rating": round(ordinal, 3),
                    "mu": float(fields.get("mu", 0)),
                    "sigma": float(fields.get("sigma", 0)),
                    "games": int(fields.get("games", 0)),
                    "wins": int(fields.get("wins", 0)),
                }
            )
        return board


class UpdateHub:
    """One pub/sub subscription per process on every partition's update channel, fanned out in process."""

    def __init__(self, redis: Redis, partitions: int) -> None:
        self.redis = redis
        self.partitions = partitions
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        self._stopping = True
        if self._task:
            self._task.cancel()
            await asyncio.wait([self._task], timeout=5)  # never hang on a cancellation a client swallowed

    async def _listen(self) -> None:
        channels = [updates_channel(p) for p in range(self.partitions)]
        while not self._stopping:
            pubsub = self.redis.pubsub()
            try:
                await pubsub.subscribe(*channels)
                async for message in pubsub.listen():
                    if message.get("type") != "message":
                        continue
                    game_id = message["data"].decode().rpartition(":")[0]
                    for event in self._waiters.get(game_id, ()):
                        event.set()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - resubscribe after a connection loss
                log().warning("updates_subscription_lost", error=repr(error))
                self.wake_all()
                await asyncio.sleep(1.0)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()

    def wake_all(self) -> None:
        for events in self._waiters.values():
            for event in events:
                event.set()

    @contextlib.contextmanager
    def subscription(self, game_id: str):  # type: ignore[no-untyped-def]
        event = asyncio.Event()
        self._waiters[game_id].add(event)
        try:
            yield event
        finally:
            waiters = self._waiters.get(game_id)
            if waiters is not None:
                waiters.discard(event)
                if not waiters:
                    del self._waiters[game_id]
