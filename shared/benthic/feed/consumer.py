"""Feed consumers: one consumer group over the partition feeds, read with ``XREADGROUP`` (every partition in one
call), a batch per read, acknowledged with one pipeline.  The group is created at ID ``0`` (the whole
backlog); a group lost in Redis (``NOGROUP``) is recreated without a process restart; a claimer takes over the
pending entries of dead consumers.  The entries are in FastStream's ``BinaryMessageFormatV1`` (see
``benthic.feed.encoding``), so a FastStream subscriber can read the feeds too.

Delivery is at-least-once: handlers must be idempotent.  A batch whose handler raises is not acknowledged;
its entries stay pending and the claimer retries them after ``claim_idle_ms``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from redis.asyncio import Redis
from redis.exceptions import ResponseError

from benthic.feed.encoding import DATA_FIELD, decode_message
from benthic.feed.keys import dead_letter_key, feed_key
from benthic.feed.notification import Notification, notification_decoder
from benthic.runtime.config import Settings
from benthic.runtime.redisconn import connect, is_unavailable
from benthic.runtime.telemetry import (
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
_DATA = DATA_FIELD.encode()


async def ensure_group(redis: Redis, stream: str, group: str) -> bool:
    """Create ``group`` on ``stream`` at ID 0 (the whole backlog); True if it was created now."""
    try:
        await redis.xgroup_create(stream, group, id="0", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" in str(error):
            return False
        raise
    return True


def parse_notification(body: Any) -> Notification:
    if isinstance(body, (bytes, str)):
        return notification_decoder.decode(body)
    return msgspec.convert(body, Notification)


def _notification(fields: dict[bytes, bytes]) -> Notification:
    return parse_notification(decode_message(fields.get(_DATA, b"")))


def _entries_by_stream(reply: Any) -> list[tuple[str, list[tuple[bytes, dict[bytes, bytes]]]]]:
    """XREADGROUP's reply as (stream, entries) pairs: RESP2 answers a list of pairs, RESP3 (redis-py's
    parser) a dict of stream -> [entries]."""
    pairs = [(stream, entries[0]) for stream, entries in reply.items()] if isinstance(reply, dict) else reply
    return [(stream.decode() if isinstance(stream, bytes) else stream, list(entries)) for stream, entries in pairs]


def _stream_id(raw: bytes | str | int) -> tuple[int, int]:
    text = raw.decode() if isinstance(raw, bytes) else str(raw)  # redis-py types XINFO's fields loosely
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


async def forget_dead_consumers(redis: Redis, stream: str, group: str, keep: str) -> None:
    """Remove the consumers of ``group`` (but ``keep``, the caller) idle longer than ``DEAD_CONSUMER_IDLE_MS`` with
    nothing pending: each process has a consumer name of its own, so a group would otherwise collect the names of
    every process that ever ran."""
    for consumer in await redis.xinfo_consumers(stream, group):
        name = consumer["name"].decode() if isinstance(consumer["name"], bytes) else consumer["name"]
        if name != keep and consumer["pending"] == 0 and consumer["idle"] > DEAD_CONSUMER_IDLE_MS:
            await redis.xgroup_delconsumer(stream, group, name)


async def group_backlog(redis: Redis, streams: list[str], group: str) -> tuple[int, int, float]:
    """(entries not yet delivered, entries pending, idle seconds of the oldest pending) of ``group`` over
    ``streams``."""
    lag = pending = 0
    oldest_ms = 0
    for stream in streams:
        for info in await redis.xinfo_groups(stream):
            name = info["name"].decode() if isinstance(info["name"], bytes) else info["name"]
            if name != group:
                continue
            lag += int(info.get("lag") or 0)
            pending += int(info.get("pending") or 0)
            if info.get("pending"):
                first = await redis.xpending_range(stream, group, "-", "+", 1)
                if first:
                    oldest_ms = max(oldest_ms, int(first[0]["time_since_delivered"]))
    return lag, pending, oldest_ms / 1000.0


def publish_backlog(group: str, backlog: tuple[int, int, float]) -> None:
    """The group's backlog (:func:`group_backlog`) as its gauges."""
    lag, pending, oldest = backlog
    CONSUMER_LAG.labels(group).set(lag)
    CONSUMER_PENDING.labels(group).set(pending)
    CONSUMER_OLDEST_PENDING.labels(group).set(oldest)


class FeedConsumer:
    """One consumer group over every partition feed.  It owns its Redis connections.

    One reader task takes new entries of every partition with a single blocking ``XREADGROUP`` (on a Redis
    Cluster, where the partition feeds live in different hash slots, one reader per partition), hands them to
    the handler as one batch and acknowledges them with one pipeline: a round trip for a whole batch, whatever
    the number of partitions it touches."""

    def __init__(
        self, settings: Settings, group: str, handler: Handler, pause_s: float = 0.0,
        feed: Callable[[int], str] = feed_key,
    ) -> None:
        self.settings = settings
        self.feed = feed  # which feed of each partition: every commit (feed_key), the lifecycle or managed feed
        self.pause_s = pause_s  # a rest after each batch lets the next one grow (fewer, larger reads)
        self.redis = connect(settings, 32)
        self.group = group
        self.handler = handler
        self.consumer = f"{group}-{settings.consumer_name}"
        self._readers: list[asyncio.Task[None]] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._stopping = False
        self._grouped = 0  # readers whose consumer groups exist
        self._grouping = asyncio.Lock()
        self.started = False

    def _reader_partitions(self) -> list[list[int]]:
        partitions = list(range(self.settings.partitions))
        return [[p] for p in partitions] if self.settings.redis_cluster else [partitions]

    async def start(self) -> None:
        """Start reading.  The consumer groups are made first, by each reader, as soon as Redis answers: a
        service started while Redis is unreachable (or its Sentinels name no primary yet) serves, unready."""
        zero_series("", (), (self.group,))
        self._readers = [asyncio.create_task(self._read_loop(partitions), name=f"{self.group}-reader")
                         for partitions in self._reader_partitions()]
        self._tasks = [
            asyncio.create_task(self._claim_loop()),
            asyncio.create_task(self._metrics_loop()),
        ]
        self.started = True
        log().info("consumer_started", group=self.group, consumer=self.consumer, partitions=self.settings.partitions,
                   readers=len(self._readers))

    async def stop(self) -> None:
        self._stopping = True
        tasks = [*self._readers, *self._tasks]
        # A reader lets its batch finish (up to drain_timeout_s) so that what it handled is acknowledged.
        if self._readers:
            await asyncio.wait(self._readers, timeout=self.settings.drain_timeout_s)
        for task in tasks:
            task.cancel()
        # A cancellation can be swallowed inside a client library; the loops also watch _stopping, and we
        # never wait for them forever.
        _done, stuck = await asyncio.wait(tasks, timeout=5) if tasks else (set(), set())
        for task in stuck:
            log().warning("consumer_task_not_stopping", group=self.group, task=task.get_name())
        await self.redis.aclose()
        self.started = False

    @property
    def healthy(self) -> bool:
        return (self.started and self._grouped == len(self._readers)
                and all(not task.done() for task in self._readers))

    async def _ensure_groups(self, partitions: list[int]) -> None:
        failures = 0
        while not self._stopping:
            try:
                # One reader at a time: the first calls on a new cluster client must not race (its set-up is not
                # safe under concurrent first use in redis-py: connections reset under it).
                async with self._grouping:
                    for partition in partitions:
                        await ensure_group(self.redis, self.feed(partition), self.group)
                return
            except Exception as error:  # noqa: BLE001 - Redis away at start: the service waits, unready
                failures += 1
                if failures == 1 or failures % 20 == 0:
                    log().warning("consumer_groups_not_made", group=self.group, error=repr(error), failures=failures)
                await asyncio.sleep(min(2.0, 0.1 * failures))

    async def _read_loop(self, partitions: list[int]) -> None:
        await self._ensure_groups(partitions)
        self._grouped += 1
        streams = {self.feed(p): ">" for p in partitions}
        failures = 0
        while not self._stopping:
            try:
                reply = await self.redis.xreadgroup(
                    self.group, self.consumer, streams, count=self.settings.consumer_batch,
                    block=self.settings.consumer_block_ms,
                )
                failures = 0
            except Exception as error:  # noqa: BLE001 - a reader that died would leave its partitions unread
                if isinstance(error, ResponseError) and "NOGROUP" in str(error):
                    await self._recreate_groups(partitions)  # data loss in Redis: the group went away
                    continue
                failures += 1
                if is_unavailable(error):
                    log().warning("feed_read_failed", group=self.group, error=repr(error), failures=failures)
                else:
                    log().error("feed_read_failed", group=self.group, error=repr(error), failures=failures)
                await asyncio.sleep(min(2.0, 0.1 * failures))
                continue
            if reply:
                try:
                    await self._handle(_entries_by_stream(reply))
                except Exception as error:  # noqa: BLE001 - the reader never dies; what is not acked is claimed
                    log().error("feed_batch_failed", group=self.group, error=repr(error))
                    await asyncio.sleep(0.5)

    async def _recreate_groups(self, partitions: list[int]) -> None:
        for partition in partitions:
            try:
                created = await ensure_group(self.redis, self.feed(partition), self.group)
            except Exception as error:  # noqa: BLE001 - called by a reader, which must not die of it
                log().warning("group_recreate_failed", partition=partition, error=repr(error))
                await asyncio.sleep(0.5)
                return
            if created:
                CONSUMER_GROUP_RECREATED.labels(self.group).inc()
                log().warning("consumer_group_recreated", group=self.group, partition=partition)

    async def _handle(self, batch: list[tuple[str, list[tuple[bytes, dict[bytes, bytes]]]]]) -> None:
        notes: list[Notification] = []
        unreadable: list[tuple[str, bytes, dict[bytes, bytes]]] = []
        for stream, entries in batch:
            for entry_id, fields in entries:
                if not fields:
                    continue
                try:
                    notes.append(_notification(fields))
                except Exception as error:  # noqa: BLE001 - truncated envelope, bad JSON, wrong shape
                    log().error("entry_unreadable", group=self.group, stream=stream, entry=entry_id, error=repr(error))
                    unreadable.append((stream, entry_id, fields))
        try:
            for stream, _entry_id, fields in unreadable:  # no retry can read it: set aside at once
                await self.redis.xadd(dead_letter_key(stream), {**fields, b"group": self.group.encode()})
                DEAD_LETTERED.labels(self.group).inc()
            if notes:
                await self.handler(notes)
        except Exception as error:  # noqa: BLE001 - left pending: the claimer retries it after claim_idle_ms
            HANDLER_FAILURES.labels(self.group).inc()
            log().error("batch_failed", group=self.group, error=repr(error), size=len(notes))
            return
        try:
            async with self.redis.pipeline(transaction=False) as pipe:
                for stream, entries in batch:
                    pipe.xack(stream, self.group, *(entry_id for entry_id, _ in entries))
                await pipe.execute()
        except Exception as error:  # noqa: BLE001 - handled but not acknowledged: delivered again (idempotent handlers)
            log().warning("ack_failed", group=self.group, error=repr(error), size=len(notes))
        if self.pause_s:
            await asyncio.sleep(self.pause_s)

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
        await forget_dead_consumers(self.redis, stream, self.group, self.consumer)
        await trim_consumed(self.redis, stream)
        return handled

    async def _process_claimed(self, partition: int, entries: list[tuple[bytes, dict[bytes, bytes]]]) -> None:
        stream = self.feed(partition)
        ids = [entry_id for entry_id, _ in entries]
        try:
            await self.handler([_notification(fields) for _, fields in entries])
        except Exception as error:  # noqa: BLE001 - a bad entry or a failing handler: dead-lettered in the end
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


    async def _metrics_loop(self) -> None:
        while not self._stopping:
            with contextlib.suppress(Exception):
                publish_backlog(self.group, await self.backlog())
            await asyncio.sleep(self.settings.metrics_interval_s)

    async def backlog(self) -> tuple[int, int, float]:
        """(entries not yet delivered, entries pending, idle seconds of the oldest pending) over all partitions."""
        return await group_backlog(self.redis, [self.feed(p) for p in range(self.settings.partitions)], self.group)

