"""The notifier's consumer of the public integration events of players with a webhook: the consumer group
``notifier`` of the notifier's stream (``WebhookKeys.stream``: the integration entries its publishers copy there
when a player they go to is registered, ``benthic.feed.integration``), read through FastStream
(``benthic.feed.faststream_groups.GroupSubscription``: new entries, and entries left pending longer than
``BENTHIC_CLAIM_IDLE_MS`` by a notifier that died or whose handler failed).  An entry is
acknowledged only once its deliveries are in the queue (a failure leaves it pending): at least once.

``turn.started`` goes to the players of its seats, ``game.finished`` to every seated player; the seats' players
come from the game's meta hash (a game already archived out of Redis is past any turn: its events are skipped).
The matchmaker's ``match.found`` goes to every player it seats and ``ticket.expired`` to the ticket's player (both
name their players).
Bot seats (``bot:...``) get nothing.  Other event types are acknowledged and ignored."""

from __future__ import annotations

import time

from benthic.feed.faststream_groups import GroupSubscription
from benthic.feed.integration import GameFinished, MatchFound, TicketExpired, TurnStarted, decode_event, type_of
from benthic.feed.system import follower
from benthic.play.recipients import webhook_players
from benthic.runtime.config import Settings
from benthic.runtime.telemetry import WEBHOOK_ENQUEUED, WEBHOOK_QUEUE_FULL, log
from benthic.store import EventStore
from benthic.trust.identity import is_bot_player_id
from services.notifier.keys import delivery_id
from services.notifier.queue import Delivery, DeliveryQueue, QueueFull

FOLLOWS = follower("notifier")  # the stream it follows, its group and mechanism: benthic.feed.system
GROUP = FOLLOWS.group


class EventRouter:
    """Turns one integration event into the deliveries of its players, enqueued."""

    def __init__(self, store: EventStore, queue: DeliveryQueue) -> None:
        self.store = store
        self.queue = queue

    async def handle(self, body: bytes) -> int:
        """Enqueue the deliveries of the event ``body`` (its JSON); returns how many were added.  Raises
        ``QueueFull`` (or a Redis error) to leave the entry pending."""
        event = decode_event(body)
        if isinstance(event, MatchFound):
            players = list(dict.fromkeys(s.player_id for s in event.seats if not is_bot_player_id(s.player_id)))
        elif isinstance(event, TicketExpired):
            players = [event.player_id]
        elif isinstance(event, TurnStarted | GameFinished):
            players = await self._seated(event)
        else:
            return 0
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

    async def _seated(self, event: TurnStarted | GameFinished) -> list[str]:
        meta = await self.store.meta(event.game_id)
        if meta is None:
            log().info("webhook_game_gone", game_id=event.game_id, event_id=event.id)
            return []
        return webhook_players(meta, event)


def subscription(settings: Settings, router: EventRouter) -> GroupSubscription:
    """The group ``notifier`` over the notifier's stream (not started).  The stream is one key, so under a cluster
    each read, claim and acknowledgement goes to the one node of its slot.  A failing event (the queue full, Redis
    away) stays pending and is tried again, never dead-lettered: the queue drains."""

    async def on_event(body: bytes) -> None:
        try:
            await router.handle(body)
        except QueueFull as full:
            WEBHOOK_QUEUE_FULL.inc()
            log().warning("webhook_queue_full", error=str(full))
            raise

    return GroupSubscription(settings, "notifier", GROUP, FOLLOWS.stream.keys(settings), settings.consumer_name,
                             on_event)
