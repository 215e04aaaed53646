"""Feed consumers: a FastStream ``StreamSub`` per partition feed in one consumer group, plus what FastStream
does not do for us: the group is created at ID ``0`` (FastStream's own creation starts at ``$`` and would
skip the backlog), a subscriber stopped by ``NOGROUP`` gets its group recreated and is restarted without a
process restart, and a claimer takes over the pending entries of dead consumers.

Delivery is at-least-once: handlers must be idempotent.  A batch whose handler raises is not acknowledged;
its entries stay pending and the claimer retries them after ``claim_idle_ms``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from faststream import AckPolicy
from faststream.redis import StreamSub
from faststream.redis.parser import BinaryMessageFormatV1
from redis.asyncio import Redis
from redis.exceptions import ResponseError

from benthic.service.config import Settings
from benthic.game.events import Notification, notification_decoder
from benthic.service.feed import DATA_FIELD
from benthic.game.keys import feed_key
from benthic.service.redisconn import broker, redis_client
from benthic.service.telemetry import (
    CONSUMER_CLAIMED,
    CONSUMER_GROUP_RECREATED,
    CONSUMER_LAG,
    CONSUMER_OLDEST_PENDING,
    CONSUMER_PENDING,
    DEAD_LETTERED,
    HANDLER_FAILURES,
    log,
    zero_series,
)

Handler = Callable[[list[Notification]], Awaitable[None]]

DEAD_CONSUMER_IDLE_MS = 3_600_000  # consumers idle this long with nothing pending are removed
MAX_DELIVERIES = 25  # an entry failing this often is moved to the dead-letter stream


def dead_letter_key(feed: str) -> str:
    return f"{feed}:dead"


async def ensure_group(redis: Redis, stream: str, group: str) -> bool:
    """Create ``group`` on ``stream`` at ID 0 (the whole backlog); True if it was created now."""
    try:
        await redis.xgroup_create(stream, group, id="0", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" in str(error):
            return False
        raise
    return True


def _consuming(subscriber: Any) -> bool:
    return bool(subscriber.running) and any(not task.done() for task in subscriber.tasks)


def parse_notification(body: Any) -> Notification:
    if isinstance(body, (bytes, str)):
        return notification_decoder.decode(body)
    return msgspec.convert(body, Notification)


def _stream_id(raw: bytes | str) -> tuple[int, int]:
    text = raw.decode() if isinstance(raw, bytes) else raw
    ms, _, seq = text.partition("-")
    return int(ms), int(seq or 0)


async def trim_consumed(redis: Redis, stream: str) -> int:
    """Drop the feed entries every consumer group has consumed: below the oldest entry still pending or not yet
    delivered in any group.  A feed then holds only what is in flight, whatever ``feed_maxlen`` allows.  A group
    that has read nothing yet holds the whole feed; one created later starts from what remains."""
    floor: tuple[int, int] | None = None
    for group in await redis.xinfo_groups(stream):
        candidate = _stream_id(group["last-delivered-id"])
        if group.get("pending"):
            oldest = await redis.xpending_range(stream, group["name"], "-", "+", 1)
            if oldest:
                candidate = min(candidate, _stream_id(oldest[0]["message_id"]))
        floor = candidate if floor is None else min(floor, candidate)
    if floor is None or floor == (0, 0):
        return 0
    return int(await redis.xtrim(stream, minid=f"{floor[0]}-{floor[1]}", approximate=True))


class FeedConsumer:
    """One consumer group over every partition feed.  It owns its Redis connections."""

    def __init__(
        self, settings: Settings, group: str, handler: Handler, pause_s: float = 0.0,
        feed: Callable[[int], str] = feed_key,
    ) -> None:
        self.settings = settings
        self.feed = feed  # which feed of each partition: every commit (feed_key) or the lifecycle feed
        self.pause_s = pause_s  # a rest after each batch lets the next one grow (fewer, larger reads)
        self.redis = redis_client(settings.redis_url, 32, settings.redis_cluster)
        self.group = group
        self.handler = handler
        self.consumer = f"{group}-{settings.consumer_name}"
        # apply_types=False: our handler takes the decoded batch as is; no dependency injection per batch.
        self.broker = broker(
            settings.redis_url, settings.redis_cluster, logger=None, graceful_timeout=settings.drain_timeout_s,
            apply_types=False,
        )
        self._subscribers: dict[int, Any] = {}
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self.started = False

    async def start(self) -> None:
        zero_series("", (), (self.group,))
        for partition in range(self.settings.partitions):
            await ensure_group(self.redis, self.feed(partition), self.group)
            subscriber = self.broker.subscriber(
                stream=StreamSub(
                    self.feed(partition),
                    group=self.group,
                    consumer=self.consumer,
                    batch=True,
                    max_records=self.settings.consumer_batch,
                    polling_interval=self.settings.consumer_block_ms,
                ),
                ack_policy=AckPolicy.NACK_ON_ERROR,
            )
            subscriber(self._on_batch)
            self._subscribers[partition] = subscriber
        await self.broker.start()
        self._tasks = [
            asyncio.create_task(self._watch_groups()),
            asyncio.create_task(self._claim_loop()),
            asyncio.create_task(self._metrics_loop()),
        ]
        self.started = True
        log().info("consumer_started", group=self.group, consumer=self.consumer, partitions=len(self._subscribers))

    async def stop(self) -> None:
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        # A cancellation can be swallowed inside a client library; the loops also watch _stopping, and we
        # never wait for them forever.
        _done, stuck = await asyncio.wait(self._tasks, timeout=5) if self._tasks else (set(), set())
        for task in stuck:
            log().warning("consumer_task_not_stopping", group=self.group, task=task.get_name())
        await self.broker.stop()
        await self.redis.aclose()
        self.started = False

    @property
    def healthy(self) -> bool:
        return self.started and all(_consuming(s) for s in self._subscribers.values())

    async def _on_batch(self, body: list[Any]) -> None:
        try:
            await self.handler([parse_notification(item) for item in body])
        except Exception as error:
            HANDLER_FAILURES.labels(self.group).inc()
            log().error("batch_failed", group=self.group, error=repr(error), size=len(body))
            raise
        if self.pause_s:
            await asyncio.sleep(self.pause_s)

    async def _watch_groups(self) -> None:
        """Recreate a deleted group and restart the subscriber NOGROUP stopped (data loss in Redis)."""
        while not self._stopping:
            await asyncio.sleep(0.5)
            for partition, subscriber in self._subscribers.items():
                if subscriber.running or any(not task.done() for task in subscriber.tasks):
                    continue  # running, or its stop (after NOGROUP) has not finished yet
                try:
                    created = await ensure_group(self.redis, self.feed(partition), self.group)
                    await subscriber.start()
                except Exception as error:  # noqa: BLE001 - Redis may be down; try again next tick
                    log().warning("subscriber_restart_failed", partition=partition, error=repr(error))
                    continue
                if created:
                    CONSUMER_GROUP_RECREATED.labels(self.group).inc()
                log().warning("subscriber_restarted", group=self.group, partition=partition, group_recreated=created)

    async def _claim_loop(self) -> None:
        while not self._stopping:
            await asyncio.sleep(self.settings.claim_interval_s)
            for partition in range(self.settings.partitions):
                try:
                    await self.claim(partition)
                except ResponseError as error:
                    if "NOGROUP" in str(error):
                        if await ensure_group(self.redis, self.feed(partition), self.group):
                            CONSUMER_GROUP_RECREATED.labels(self.group).inc()
                    else:
                        log().warning("claim_failed", partition=partition, error=repr(error))
                except Exception as error:  # noqa: BLE001 - keep claiming other partitions
                    log().warning("claim_failed", partition=partition, error=repr(error))

    async def claim(self, partition: int) -> int:
        """Take over and process entries pending longer than ``claim_idle_ms`` (dead or failed consumers)."""
        stream = self.feed(partition)
        handled = 0
        start = "0-0"
        while True:
            reply = await self.redis.xautoclaim(
                stream, self.group, self.consumer, self.settings.claim_idle_ms, start_id=start, count=100
            )
            start, entries = reply[0], reply[1]
            entries = [(entry_id, fields) for entry_id, fields in entries if fields]
            if entries:
                await self._process_claimed(partition, entries)
                handled += len(entries)
            if start in (b"0-0", "0-0") or not entries:
                break
        await self._forget_dead_consumers(stream)
        await trim_consumed(self.redis, stream)
        return handled

    async def _process_claimed(self, partition: int, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        stream = self.feed(partition)
        ids = [entry_id for entry_id, _ in entries]
        notes = []
        for _, fields in entries:
            body, _headers = BinaryMessageFormatV1.parse(fields.get(DATA_FIELD.encode(), b""))
            notes.append(parse_notification(body))
        try:
            await self.handler(notes)
        except Exception as error:
            HANDLER_FAILURES.labels(self.group).inc()
            await self._dead_letter_exhausted(partition, entries)
            log().error("claimed_batch_failed", group=self.group, partition=partition, error=repr(error))
            return
        await self.redis.xack(stream, self.group, *ids)
        CONSUMER_CLAIMED.labels(self.group).inc(len(ids))
        log().info("pending_claimed", group=self.group, partition=partition, entries=len(ids))

    async def _dead_letter_exhausted(self, partition: int, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        stream = self.feed(partition)
        for entry_id, fields in entries:
            pending = await self.redis.xpending_range(stream, self.group, entry_id, entry_id, 1)
            if pending and pending[0]["times_delivered"] >= MAX_DELIVERIES:
                await self.redis.xadd(dead_letter_key(stream), {**fields, b"group": self.group.encode()})
                await self.redis.xack(stream, self.group, entry_id)
                DEAD_LETTERED.labels(self.group).inc()
                log().error("entry_dead_lettered", group=self.group, partition=partition, entry=entry_id.decode())

    async def _forget_dead_consumers(self, stream: str) -> None:
        for consumer in await self.redis.xinfo_consumers(stream, self.group):
            name = consumer["name"].decode() if isinstance(consumer["name"], bytes) else consumer["name"]
            if name != self.consumer and consumer["pending"] == 0 and consumer["idle"] > DEAD_CONSUMER_IDLE_MS:
                await self.redis.xgroup_delconsumer(stream, self.group, name)

    async def _metrics_loop(self) -> None:
        while not self._stopping:
            with contextlib.suppress(Exception):
                lag, pending, oldest = await self.backlog()
                CONSUMER_LAG.labels(self.group).set(lag)
                CONSUMER_PENDING.labels(self.group).set(pending)
                CONSUMER_OLDEST_PENDING.labels(self.group).set(oldest)
            await asyncio.sleep(self.settings.metrics_interval_s)

    async def backlog(self) -> tuple[int, int, float]:
        """(entries not yet delivered, entries pending, idle seconds of the oldest pending) over all partitions."""
        lag = pending = 0
        oldest_ms = 0
        for partition in range(self.settings.partitions):
            stream = self.feed(partition)
            for info in await self.redis.xinfo_groups(stream):
                name = info["name"].decode() if isinstance(info["name"], bytes) else info["name"]
                if name != self.group:
                    continue
                lag += int(info.get("lag") or 0)
                pending += int(info.get("pending") or 0)
                if info.get("pending"):
                    first = await self.redis.xpending_range(stream, self.group, "-", "+", 1)
                    if first:
                        oldest_ms = max(oldest_ms, int(first[0]["time_since_delivered"]))
        return lag, pending, oldest_ms / 1000.0

