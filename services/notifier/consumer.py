"""The notifier's consumer of the public integration events (``BENTHIC_INTEGRATION_STREAM``), through FastStream:
a consumer group ``notifier`` read by two subscribers of one handler, one taking new entries (``XREADGROUP``) and
one claiming entries left pending longer than ``BENTHIC_CLAIM_IDLE_MS`` by a notifier that died or whose handler
failed (``XAUTOCLAIM``).  An entry is acknowledged only once its deliveries are in the queue
(``AckPolicy.NACK_ON_ERROR``: acknowledged after the handler returned; an exception nacks it, which leaves a Redis
stream entry pending): at least once.

``turn.started`` goes to the players of its seats, ``game.finished`` to every seated player; the seats' players
come from the game's meta hash (a game already archived out of Redis is past any turn: its events are skipped).
Bot seats (``bot:...``) get nothing.  Other event types are acknowledged and ignored."""

from __future__ import annotations

import logging
import time
from typing import Any

from faststream import AckPolicy
from faststream.redis import RedisBroker, RedisClusterBroker, RedisSentinelBroker, StreamSub
from faststream.redis.annotations import RedisStreamMessage

from benthic.feed.integration import GameFinished, TurnStarted, decode_event, type_of
from benthic.service.config import Settings
from benthic.service.redisconn import connection_options, sentinel_addresses, sentinel_options
from benthic.service.telemetry import WEBHOOK_ENQUEUED, WEBHOOK_QUEUE_FULL, log
from benthic.store import EventStore
from benthic.trust.identity import is_bot_player_id
from services.notifier.keys import delivery_id
from services.notifier.queue import Delivery, DeliveryQueue, QueueFull

GROUP = "notifier"


class EventRouter:
    """Turns one integration event into the deliveries of its players, enqueued."""

    def __init__(self, store: EventStore, queue: DeliveryQueue) -> None:
        self.store = store
        self.queue = queue

    async def handle(self, body: bytes) -> int:
        """Enqueue the deliveries of the event ``body`` (its JSON); returns how many were added.  Raises
        ``QueueFull`` (or a Redis error) to leave the entry pending."""
        event = decode_event(body)
        if not isinstance(event, TurnStarted | GameFinished):
            return 0
        meta = await self.store.meta(event.game_id)
        if meta is None:
            log().info("webhook_game_gone", game_id=event.game_id, event_id=event.id)
            return 0
        seats = event.seats if isinstance(event, TurnStarted) else range(len(meta.seats))
        players = []
        for seat in seats:
            holder = meta.seats[seat] if 0 <= seat < len(meta.seats) else None
            if holder is not None and not is_bot_player_id(holder.player_id) and holder.player_id not in players:
                players.append(holder.player_id)
        now = int(time.time() * 1000)
        text = body.decode()
        kind = type_of(event)
        deliveries = [Delivery(id=delivery_id(event.id, player), player_id=player, event_id=event.id,
                               event_type=kind, game_id=event.game_id, body=text, enqueued_at_ms=now)
                      for player in players]
        added = await self.queue.enqueue(deliveries, now)
        if added:
            WEBHOOK_ENQUEUED.labels(kind).inc(added)
        return added


def redis_broker(settings: Settings) -> RedisBroker:
    """A FastStream broker (not started, no subscribers) on the Redis the settings name, as every service's client
    (``benthic.service.redisconn.connect``) is: ``BENTHIC_REDIS_SENTINELS`` → a ``RedisSentinelBroker`` on the
    primary of ``BENTHIC_REDIS_SENTINEL_MASTER`` (database, user and password from ``REDIS_URL``), which asks the
    Sentinels again on every reconnect and so follows a failover; ``BENTHIC_REDIS_CLUSTER`` → a
    ``RedisClusterBroker`` with ``REDIS_URL`` as its first node (it follows the cluster's slot map); otherwise a
    ``RedisBroker`` on ``REDIS_URL``.  The connections have the services' timeouts: none hangs on a dead server."""
    # FastStream logs each message at DEBUG (the deliveries log their own lines), its errors at ERROR.
    common: dict[str, Any] = {"logger": logging.getLogger("benthic.notifier.faststream"), "log_level": logging.DEBUG,
                              **connection_options()}
    if settings.redis_sentinels:
        return RedisSentinelBroker(settings.redis_url, sentinels=sentinel_addresses(settings.redis_sentinels),
                                   sentinel_master_name=settings.redis_sentinel_master,
                                   sentinel_kwargs=sentinel_options(), **common)
    if settings.redis_cluster:
        return RedisClusterBroker(settings.redis_url, **common)
    return RedisBroker(settings.redis_url, **common)


def build_broker(settings: Settings, router: EventRouter) -> RedisBroker:
    """The broker of :func:`redis_broker` with the notifier's two subscribers (not started).  The integration
    stream is one key, so under a cluster each read, claim and acknowledgement goes to the one node of its slot."""
    broker = redis_broker(settings)
    stream = settings.integration_stream
    reader = StreamSub(stream, group=GROUP, consumer=settings.consumer_name, last_id=">",
                       polling_interval=settings.consumer_block_ms, max_records=settings.consumer_batch)
    claimer = StreamSub(stream, group=GROUP, consumer=settings.consumer_name, last_id=">",
                        polling_interval=int(settings.claim_interval_s * 1000), min_idle_time=settings.claim_idle_ms)

    @broker.subscriber(stream=reader, ack_policy=AckPolicy.NACK_ON_ERROR)
    @broker.subscriber(stream=claimer, ack_policy=AckPolicy.NACK_ON_ERROR)
    async def on_event(message: RedisStreamMessage) -> None:
        try:
            await router.handle(message.body)
        except QueueFull as full:
            WEBHOOK_QUEUE_FULL.inc()
            log().warning("webhook_queue_full", error=str(full))
            raise

    return broker


def is_running(broker: Any) -> bool:
    return all(subscriber.running for subscriber in broker.subscribers)
