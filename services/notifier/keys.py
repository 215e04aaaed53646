"""The notifier's Redis keys, one namespace per integration stream (the queue belongs to that stream's
consumers).  One hash tag for all of them, so each Lua script and transaction over a delivery, its queue and a
player's registration stays in one slot of a Redis Cluster (the rate is low: one slot is plenty).  The registry
of registered players and the stream of the entries the notifier reads are named in ``benthic.feed.integration``
(their publishers, the projection and the matchmaker, write them)."""

from __future__ import annotations

from benthic.feed.integration import webhook_registry, webhook_stream, webhook_tag


class WebhookKeys:
    __slots__ = ("registered", "stream", "tag")

    def __init__(self, stream: str) -> None:
        self.tag = webhook_tag(stream)
        self.registered = webhook_registry(stream)  # set: the players with a registration
        self.stream = webhook_stream(stream)  # stream: the integration entries of registered players

    @property
    def deliveries(self) -> str:  # hash: delivery id -> the delivery (JSON)
        return f"{self.tag}:deliveries"

    @property
    def due(self) -> str:  # zset: delivery id -> when it is due (ms; a lease's end while it is being sent)
        return f"{self.tag}:due"

    @property
    def dead_letters(self) -> str:  # stream, capped: deliveries given up on, for the operator
        return f"{self.tag}:dead-letters"

    def registration(self, player_id: str) -> str:  # hash: url, secret, events (comma-separated), created/updated
        return f"{self.tag}:player:{player_id}"


def delivery_id(event_id: str, player_id: str) -> str:
    """One delivery per event and player: an event enqueued twice (redelivered by the stream) is one delivery."""
    return f"{event_id}|{player_id}"
