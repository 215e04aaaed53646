"""Consumer groups read through FastStream: the notifier's integration events and scoring's lifecycle feeds.

:func:`redis_broker` makes the FastStream broker of the Redis the settings name, as every service's client is (one
server, Sentinel or a cluster).  :class:`GroupSubscription` reads one consumer group over one or more streams with
two subscribers per stream and one handler:

- a reader takes new entries (``XREADGROUP ... >``: up to ``BENTHIC_CONSUMER_BATCH`` a read, blocking
  ``BENTHIC_CONSUMER_BLOCK_MS``);
- a claimer takes the entries left pending longer than ``BENTHIC_CLAIM_IDLE_MS`` by a consumer that died or whose
  handler failed (``XAUTOCLAIM``, every ``BENTHIC_CLAIM_INTERVAL_S`` when there is none).

An entry is acknowledged once the handler has returned (``AckPolicy.NACK_ON_ERROR``; a nack leaves a stream entry
pending, for the claimer): at least once, so handlers are idempotent.

What FastStream alone does not do, done here:

- the group is created at ID ``0`` (the whole stream), where FastStream creates it at ``$`` for ``last_id=">"``:
  what was written before the first start is read too;
- FastStream stops a subscriber for good on ``NOGROUP`` (a failover to a replica that lost the group, a FLUSH):
  a watcher recreates the group (``XGROUP CREATE <stream> <group> 0 MKSTREAM``: nothing is skipped, handlers are
  idempotent) and starts the subscriber again, in the same process;
- a service started while Redis is away serves, unready (:attr:`GroupSubscription.ready`), and subscribes once
  Redis answers;
- with ``dead_letter``, an entry whose handler raises :class:`Unreadable`, or that failed ``MAX_DELIVERIES``
  times, is copied to its dead-letter stream (with a ``group`` field) and acknowledged;
- the group's metrics, the series of ``benthic.feed.consumer.FeedConsumer`` (``benthic_consumer_*{group=...}``),
  and its upkeep: consumers long dead are forgotten; with ``trim``, the streams keep only what some group has
  not consumed yet (``benthic.feed.consumer.trim_consumed``).

On stop each subscriber finishes the entry in hand (up to ``BENTHIC_DRAIN_TIMEOUT_S``) and acknowledges it; the
entries read but not handled stay pending, for the claimers of the other consumers.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from faststream import AckPolicy
from faststream.redis import RedisBroker, RedisClusterBroker, RedisSentinelBroker, StreamSub
from faststream.redis.annotations import RedisStreamMessage

from benthic.feed.consumer import (
    MAX_DELIVERIES,
    ensure_group,
    forget_dead_consumers,
    group_backlog,
    publish_backlog,
    trim_consumed,
)
from benthic.runtime.config import Settings
from benthic.runtime.redisconn import connection_options, sentinel_addresses, sentinel_options
from benthic.runtime.telemetry import (
    CONSUMER_CLAIMED,
    CONSUMER_GROUP_RECREATED,
    DEAD_LETTERED,
    HANDLER_FAILURES,
    log,
    zero_series,
)

Handler = Callable[[bytes], Awaitable[None]]  # the body of one entry (FastStream's envelope removed)

WATCH_S = 0.5  # how soon a subscriber FastStream stopped (NOGROUP) is started again: a flag read, no I/O


class Unreadable(Exception):  # noqa: N818 - it names what the entry is
    """Raised by a handler for an entry no retry can read: with a dead-letter stream it is set aside at once."""


def redis_broker(settings: Settings, service: str) -> RedisBroker:
    """A FastStream broker (not started, no subscribers) on the Redis the settings name, as every service's client
    (``benthic.runtime.redisconn.connect``) is: ``BENTHIC_REDIS_SENTINELS`` → a ``RedisSentinelBroker`` on the
    primary of ``BENTHIC_REDIS_SENTINEL_MASTER`` (database, user and password from ``REDIS_URL``), which asks the
    Sentinels again on every reconnect and so follows a failover; ``BENTHIC_REDIS_CLUSTER`` → a
    ``RedisClusterBroker`` with ``REDIS_URL`` as its first node (it follows the cluster's slot map); otherwise a
    ``RedisBroker`` on ``REDIS_URL``.  The connections have the services' timeouts: none hangs on a dead server.
    Stopping it waits up to ``BENTHIC_DRAIN_TIMEOUT_S`` for the entries in hand."""
    # FastStream logs each message at DEBUG (the handlers log their own lines), its errors at ERROR.
    common: dict[str, Any] = {"logger": logging.getLogger(f"benthic.{service}.faststream"),
                              "log_level": logging.DEBUG, "graceful_timeout": settings.drain_timeout_s,
                              **connection_options()}
    if settings.redis_sentinels:
        return RedisSentinelBroker(settings.redis_url, sentinels=sentinel_addresses(settings.redis_sentinels),
                                   sentinel_master_name=settings.redis_sentinel_master,
                                   sentinel_kwargs=sentinel_options(), **common)
    if settings.redis_cluster:
        return RedisClusterBroker(settings.redis_url, **common)
    return RedisBroker(settings.redis_url, **common)


class GroupSubscription:
    """The consumer group ``group`` over ``streams``, as consumer ``consumer``, on a broker of its own
    (:func:`redis_broker`): a reader and a claimer per stream, each entry's body handed to ``handler``.  A Redis
    Cluster serves each subscriber's reads, claims and acknowledgements from the node of its stream's slot."""

    def __init__(self, settings: Settings, service: str, group: str, streams: Sequence[str], consumer: str,
                 handler: Handler, *, dead_letter: Callable[[str], str] | None = None, trim: bool = False) -> None:
        self.settings = settings
        self.group = group
        self.streams = list(streams)
        self.consumer = consumer
        self.handler = handler
        self.dead_letter = dead_letter  # the dead-letter stream of a stream; None: a failing entry stays pending
        self.trim = trim
        self.broker = redis_broker(settings, service)
        self._subscribers: list[tuple[str, Any]] = []  # (stream, FastStream subscriber)
        self._tasks: list[asyncio.Task[None]] = []
        self._subscribed = False  # every subscriber started once
        self._stopping = False

        async def read(message: RedisStreamMessage) -> None:
            await self._deliver(message)

        async def claim(message: RedisStreamMessage) -> None:
            if await self._deliver(message):
                CONSUMER_CLAIMED.labels(group).inc()

        for stream in self.streams:
            reader = StreamSub(stream, group=group, consumer=consumer, last_id=">",
                               polling_interval=settings.consumer_block_ms, max_records=settings.consumer_batch)
            claimer = StreamSub(stream, group=group, consumer=consumer, last_id=">",
                                polling_interval=int(settings.claim_interval_s * 1000),
                                min_idle_time=settings.claim_idle_ms)
            for sub, call, role in ((reader, read, "read"), (claimer, claim, "claim")):
                subscriber = self.broker.subscriber(stream=sub, ack_policy=AckPolicy.NACK_ON_ERROR,
                                                    title=f"{stream}:{group}:{role}")
                subscriber(call)
                self._subscribers.append((stream, subscriber))

    @property
    def client(self) -> Any:
        """The broker's Redis client (once started): the subscribers' own connections and failover."""
        return self.broker.config.broker_config.connection.client

    @property
    def ready(self) -> bool:
        """Every subscriber reads (false before the first subscription and while one is started again)."""
        return self._subscribed and all(subscriber.running for _, subscriber in self._subscribers)

    async def start(self) -> None:
        """Subscribe in the background, as soon as Redis answers; returns at once (see :attr:`ready`)."""
        zero_series("", (), (self.group,))
        self._tasks = [asyncio.create_task(self._watch(), name=f"{self.group}-subscriptions")]
        log().info("group_subscription_starting", group=self.group, consumer=self.consumer, streams=len(self.streams))

    async def stop(self) -> None:
        self._stopping = True
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.broker.stop()  # each subscriber's entry in hand finishes, up to the drain timeout

    async def _watch(self) -> None:
        """Start every subscriber not running (at first, and after FastStream stopped one on NOGROUP), its group
        made first; then keep the metrics and the upkeep going."""
        failures = 0
        while not self._stopping:
            try:
                await self.broker.connect()  # once; no I/O yet (the pool connects on first use)
                await self._start_stopped()
            except Exception as error:  # noqa: BLE001 - Redis away: tried again, the service unready meanwhile
                failures += 1
                if failures == 1 or failures % 20 == 0:
                    log().warning("group_subscription_not_started", group=self.group, error=repr(error),
                                  failures=failures)
                await asyncio.sleep(min(2.0, 0.1 * failures))
                continue
            if failures or not self._subscribed:
                log().info("group_subscribed", group=self.group, consumer=self.consumer, streams=len(self.streams))
            failures = 0
            if not self._subscribed:
                self._subscribed = True
                # Only now: a cluster client's first calls must not race (redis-py's set-up is not safe under
                # concurrent first use), and the subscribers' starts were one at a time.
                self._tasks += [asyncio.create_task(self._gauges()), asyncio.create_task(self._upkeep())]
            await asyncio.sleep(WATCH_S)

    async def _start_stopped(self) -> None:
        for stream, subscriber in self._subscribers:
            if subscriber.running or self._stopping:
                continue
            if await ensure_group(self.client, stream, self.group) and self._subscribed:
                CONSUMER_GROUP_RECREATED.labels(self.group).inc()
                log().warning("consumer_group_recreated", group=self.group, stream=stream)
            try:
                await subscriber.start()
            except BaseException:
                await subscriber.stop()  # no half-started subscriber (its read task retrying in a loop)
                raise

    async def _deliver(self, message: Any) -> bool:
        """Hand the entry to the handler: True if it was handled, False if it was set aside; raises (the entry
        stays pending) if it failed and is not set aside."""
        raw = message.raw_message
        where = {"group": self.group, "stream": raw["channel"], "entry": raw["message_ids"][0].decode()}
        try:
            await self.handler(message.body)
        except Unreadable as error:
            if self.dead_letter is None:
                raise
            log().error("entry_unreadable", error=repr(error), **where)
            await self._set_aside(raw)
            return False
        except Exception as error:
            HANDLER_FAILURES.labels(self.group).inc()
            log().error("entry_failed", error=repr(error), **where)
            if self.dead_letter is None or await message.get_delivery_count() < MAX_DELIVERIES:
                raise  # left pending: the claimer tries it again after BENTHIC_CLAIM_IDLE_MS
            await self._set_aside(raw)
            log().error("entry_dead_lettered", deliveries=MAX_DELIVERIES, **where)
            return False
        return True

    async def _set_aside(self, raw: Any) -> None:
        assert self.dead_letter is not None
        await self.client.xadd(self.dead_letter(raw["channel"]), {**raw["data"], b"group": self.group.encode()})
        DEAD_LETTERED.labels(self.group).inc()

    async def _gauges(self) -> None:
        while not self._stopping:
            with contextlib.suppress(Exception):
                publish_backlog(self.group, await group_backlog(self.client, self.streams, self.group))
            await asyncio.sleep(self.settings.metrics_interval_s)

    async def _upkeep(self) -> None:
        while not self._stopping:
            await asyncio.sleep(self.settings.claim_interval_s)
            for stream in self.streams:
                try:
                    await forget_dead_consumers(self.client, stream, self.group, self.consumer)
                    if self.trim:
                        await trim_consumed(self.client, stream)
                except Exception as error:  # noqa: BLE001 - tried again next time
                    log().warning("group_upkeep_failed", group=self.group, stream=stream, error=repr(error))
