"""Webhook registrations: at most one per player, kept in Redis (``WebhookKeys.registration``), written by backends
through the notifier's API, each named in the registry set (``WebhookKeys.registered``) in the same transaction:
the projection and the matchmaker consult it to copy a player's events to the notifier's stream.  The secret is
stored as given (the notifier needs it to sign) and never answered again after the registration that generated
it."""

from __future__ import annotations

import secrets
from typing import Annotated, Any, Literal

import msgspec

from benthic.patterns import whole
from services.notifier.keys import WebhookKeys

EventType = Literal["turn.started", "game.finished", "match.found", "ticket.expired"]
# the integration events a webhook can receive
NOTIFIED: tuple[str, ...] = ("turn.started", "game.finished", "match.found", "ticket.expired")
Secret = Annotated[str, msgspec.Meta(min_length=16, max_length=256, pattern=whole(r"[\x21-\x7e]+"),
                                     description="the HMAC key (16 to 256 printable ASCII characters)")]


class WebhookRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``PUT /players/{player_id}/webhook``: where to POST the player's events, the HMAC secret (omitted: one is
    generated and answered once) and which events (default: all of ``NOTIFIED``)."""

    # Its rules (at most 2048 characters included) are checked by urls.check_url, whose refusals name them
    # (invalid_webhook_url); the OpenAPI document states them (services/notifier/app.py).
    url: Annotated[str, msgspec.Meta(min_length=1, description="http:// or https:// receiver")]
    secret: Secret | None = None
    events: Annotated[list[EventType], msgspec.Meta(min_length=1, max_length=4)] | None = None


class Webhook(msgspec.Struct, frozen=True, kw_only=True):
    """A registration as answered: ``secret`` only in the answer of the PUT that generated it."""

    player_id: str
    url: str
    events: list[str]
    created_at_ms: int
    updated_at_ms: int
    secret: str | None = None


class Registrations:
    def __init__(self, redis: Any, keys: WebhookKeys) -> None:
        self.redis = redis
        self.keys = keys

    async def put(self, player_id: str, request: WebhookRequest, now_ms: int) -> Webhook:
        generated = request.secret is None
        secret = secrets.token_urlsafe(32) if generated else request.secret
        events = sorted(set(request.events or NOTIFIED), key=NOTIFIED.index)
        key = self.keys.registration(player_id)
        created = await self.redis.hget(key, "created_at_ms")
        created_at = int(created) if created is not None else now_ms
        async with self.redis.pipeline(transaction=True) as pipe:  # the registry names whoever has a hash
            pipe.hset(key, mapping={"url": request.url, "secret": secret, "events": ",".join(events),
                                    "created_at_ms": created_at, "updated_at_ms": now_ms})
            pipe.sadd(self.keys.registered, player_id)
            await pipe.execute()
        return Webhook(player_id=player_id, url=request.url, events=events, created_at_ms=created_at,
                       updated_at_ms=now_ms, secret=secret if generated else None)

    async def get(self, player_id: str) -> tuple[Webhook, str] | None:
        """The registration and its secret, or None."""
        raw = await self.redis.hgetall(self.keys.registration(player_id))
        if not raw:
            return None
        fields = {k.decode(): v.decode() for k, v in raw.items()}
        hook = Webhook(player_id=player_id, url=fields["url"], events=fields["events"].split(","),
                       created_at_ms=int(fields["created_at_ms"]), updated_at_ms=int(fields["updated_at_ms"]))
        return hook, fields["secret"]

    async def delete(self, player_id: str) -> bool:
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.delete(self.keys.registration(player_id))
            pipe.srem(self.keys.registered, player_id)
            deleted, _ = await pipe.execute()
        return bool(deleted)

    async def fill_registry(self) -> int:
        """Name every registered player in the registry (registrations made before it existed: their publishers
        would copy none of their events to the notifier's stream); returns how many were missing."""
        prefix = self.keys.registration("")
        players = [key.decode()[len(prefix):] async for key in self.redis.scan_iter(match=f"{prefix}*", count=1000)]
        return int(await self.redis.sadd(self.keys.registered, *players)) if players else 0
