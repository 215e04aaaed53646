"""The delivery queue, in Redis, so that a restart loses nothing: each delivery (one event for one player) is a
JSON value of the ``deliveries`` hash, and its due time a score in the ``due`` sorted set.

At least once: an event is enqueued before the integration stream's entry is acknowledged; a delivery leaves the
queue only after its receiver answered 2xx (or when it is dead-lettered or its player has no webhook any more); a
notifier that dies while sending leaves its lease to run out, and the delivery is sent again.  So a receiver may get
an event twice: ``Benthic-Event-Id`` is the key to drop duplicates by.

Bounded: at most ``BENTHIC_WEBHOOK_QUEUE_MAX`` deliveries wait; beyond, enqueueing refuses and the stream entry stays
pending (it is claimed and tried again later, and the stream keeps it within ``BENTHIC_INTEGRATION_MAXLEN``).  The
dead-letter stream is capped at about ``BENTHIC_WEBHOOK_DEAD_LETTER_MAX`` entries, oldest dropped first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec

from services.notifier.keys import WebhookKeys


class Delivery(msgspec.Struct, frozen=True, kw_only=True):
    """One event for one player.  ``body``: the event's JSON exactly as POSTed; ``attempts``: made so far."""

    id: str
    player_id: str
    event_id: str
    event_type: str
    game_id: str
    body: str
    enqueued_at_ms: int
    attempts: int = 0
    last_error: str = ""


class DeadLetter(msgspec.Struct, frozen=True, kw_only=True):
    """A delivery given up on: ``entry_id`` names it in the dead-letter stream (for a redrive)."""

    entry_id: str
    delivery: Delivery
    reason: str
    dead_at_ms: int


class QueueFull(Exception):
    """The queue holds ``BENTHIC_WEBHOOK_QUEUE_MAX`` deliveries: the event waits on the stream."""


_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(Delivery)
_HERE = Path(__file__).parent


class DeliveryQueue:
    def __init__(self, redis: Any, keys: WebhookKeys, queue_max: int, dead_letter_max: int) -> None:
        self.redis = redis
        self.keys = keys
        self.queue_max = queue_max
        self.dead_letter_max = dead_letter_max
        self._enqueue = redis.register_script((_HERE / "enqueue.lua").read_text())
        self._take = redis.register_script((_HERE / "take_due.lua").read_text())

    async def enqueue(self, deliveries: list[Delivery], now_ms: int) -> int:
        """Add the deliveries whose player has a webhook for their event type (and that are not queued yet);
        returns how many were added.  Raises :class:`QueueFull` at the cap."""
        if not deliveries:
            return 0
        args: list[Any] = [now_ms, self.queue_max, deliveries[0].event_type]
        for delivery in deliveries:
            args += [delivery.id, _encoder.encode(delivery)]
        registrations = [self.keys.registration(d.player_id) for d in deliveries]
        added = int(await self._enqueue(keys=[self.keys.deliveries, self.keys.due, *registrations], args=args))
        if added < 0:
            raise QueueFull(f"{self.queue_max} deliveries wait already")
        return added

    async def take_due(self, now_ms: int, lease_ms: int, count: int) -> list[Delivery]:
        flat = await self._take(keys=[self.keys.deliveries, self.keys.due], args=[now_ms, now_ms + lease_ms, count])
        return [_decoder.decode(flat[i + 1]) for i in range(0, len(flat), 2)]

    async def done(self, delivery: Delivery) -> None:
        """Delivered (or its player's webhook is gone): out of the queue."""
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(self.keys.due, delivery.id).hdel(self.keys.deliveries, delivery.id)
            await pipe.execute()

    async def retry(self, delivery: Delivery, due_ms: int) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.keys.deliveries, delivery.id, _encoder.encode(delivery))
            pipe.zadd(self.keys.due, {delivery.id: due_ms})
            await pipe.execute()

    async def dead_letter(self, delivery: Delivery, reason: str, now_ms: int) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.xadd(self.keys.dead_letters, {"delivery": _encoder.encode(delivery), "reason": reason,
                                          "dead_at_ms": now_ms},
                      maxlen=self.dead_letter_max, approximate=True)
            pipe.zrem(self.keys.due, delivery.id).hdel(self.keys.deliveries, delivery.id)
            await pipe.execute()

    async def dead_letters(self, after: str, limit: int) -> list[DeadLetter]:
        """The dead letters after entry ``after`` ("0": from the oldest), oldest first."""
        entries = await self.redis.xrange(self.keys.dead_letters, min=f"({after}" if after != "0" else "-", count=limit)
        return [_dead_letter(entry_id, fields) for entry_id, fields in entries]

    async def redrive(self, entry_id: str, now_ms: int) -> Delivery | None:
        """The dead letter ``entry_id`` back in the queue, due now, its attempts counted from zero; None when the
        stream has no such entry."""
        entries = await self.redis.xrange(self.keys.dead_letters, min=entry_id, max=entry_id, count=1)
        if not entries:
            return None
        old = _dead_letter(*entries[0]).delivery
        delivery = msgspec.structs.replace(old, attempts=0, last_error="")
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(self.keys.deliveries, delivery.id, _encoder.encode(delivery))
            pipe.zadd(self.keys.due, {delivery.id: now_ms})
            pipe.xdel(self.keys.dead_letters, entry_id)
            await pipe.execute()
        return delivery

    async def depth(self) -> tuple[int, int]:
        """(deliveries waiting, dead letters held)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zcard(self.keys.due).xlen(self.keys.dead_letters)
            waiting, dead = await pipe.execute()
        return int(waiting), int(dead)


def _dead_letter(entry_id: bytes | str, fields: dict[bytes, bytes]) -> DeadLetter:
    return DeadLetter(entry_id=entry_id.decode() if isinstance(entry_id, bytes) else entry_id,
                      delivery=_decoder.decode(fields[b"delivery"]), reason=fields[b"reason"].decode(),
                      dead_at_ms=int(fields[b"dead_at_ms"]))
