"""The scoring service: the consumer group ``scoring`` over the lifecycle feeds, through FastStream
(``benthic.feed.faststream_groups``), with health, readiness, metrics and the AsyncAPI document of its
subscription (``GET /asyncapi.json``) over HTTP."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from litestar import Litestar, Request, Response, get

from benthic.feed.consumer import parse_notification
from benthic.feed.faststream_groups import GroupSubscription, Unreadable
from benthic.feed.keys import dead_letter_key
from benthic.feed.notification import Notification
from benthic.feed.system import follower
from benthic.game.content import install as install_content
from benthic.rules import game_types
from benthic.runtime.config import Settings
from benthic.runtime.telemetry import zero_series
from benthic.service.asyncapi import subscription_document
from benthic.service.bootstrap import redis_lifespan, service_app, subscription_lifespan
from benthic.store.loader import StateLoader
from services.scoring.scorer import Scorer

SERVICE = "scoring"
FOLLOWS = follower("scoring")  # the stream it follows, its group and mechanism: benthic.feed.system
GROUP = FOLLOWS.group


def subscription(settings: Settings, scorer: Scorer) -> GroupSubscription:
    """Group ``scoring`` over every partition's lifecycle feed (``{pK}:lifecycle``): each entry is one commit's
    notification, handed to :meth:`Scorer.handle` (idempotent: ``game_scored`` by command id, ratings by their
    marker).  An entry that cannot be read, or that fails 25 times, goes to ``{pK}:lifecycle:dead``; the feeds are
    trimmed to what some group (scoring, the archiver) has not consumed."""

    async def score(body: bytes) -> None:
        try:
            note = parse_notification(body)
        except Exception as error:  # noqa: BLE001 - truncated envelope, bad JSON, wrong shape
            raise Unreadable(repr(error)) from error
        await scorer.handle([note])

    return GroupSubscription(settings, SERVICE, GROUP, FOLLOWS.stream.keys(settings),
                             f"{GROUP}-{settings.consumer_name}", score, dead_letter=dead_letter_key, trim=True)


@get("/asyncapi.json", summary="AsyncAPI document of scoring's subscription", include_in_schema=False)
async def asyncapi(request: Request[Any, Any, Any]) -> Response[bytes]:
    """Internal, for operators: the lifecycle feeds scoring reads (group, consumer, one reader and one claimer per
    feed) and the notification each entry carries.  The public events are documented by the read API."""
    state = request.app.state
    if state.get("asyncapi") is None:  # built once, on first demand
        state.asyncapi = msgspec.json.encode(subscription_document(
            state.consumer.broker, "Benthic scoring: the lifecycle feeds it consumes",
            "Consumer group `scoring` over the partition lifecycle feeds, in FastStream's message format; each "
            "entry one commit's notification (docs/OPERATIONS.md#the-scoring-service).", Notification))
    return Response(state.asyncapi, media_type="application/json")


def create_app(settings: Settings) -> Litestar:
    packs = install_content(settings)

    @contextlib.asynccontextmanager
    async def scorer(app: Litestar) -> AsyncIterator[None]:
        loader = StateLoader(app.state.store, min(settings.state_cache_games, 500), snapshot_every=0)
        app.state.scorer = Scorer(app.state.redis, app.state.store, loader, settings.conflict_retries)
        zero_series(SERVICE, game_types())
        yield

    return service_app(
        SERVICE, settings,
        [redis_lifespan(settings), scorer,
         subscription_lifespan("consumer", lambda app: subscription(settings, app.state.scorer))],
        [asyncapi],
        started={"port": settings.scoring_port, "content_packs": packs["packs"], "rejected_packs": packs["rejected"]})
