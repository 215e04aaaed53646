"""The notifier service (port 8006): per-player webhooks registered by backends, fed by the public integration
events ``turn.started`` and ``game.finished`` (services/notifier/consumer.py, FastStream), delivered signed, with
retries and a dead-letter stream (services/notifier/delivery.py, queue.py); health, readiness, metrics, and its
OpenAPI at ``/schema``.

Who may call: a trusted backend (a JWT with scope ``benthic:matchmaker``) or an operator (the operator token, or a
JWT with scope ``benthic:operator``) registers, reads and deletes any player's webhook: the backend owns the
player's notification channel, as it owns their seats when it creates games.  A player's own JWT is refused
(``403 backend_only``): a player could otherwise point the platform's requests anywhere.  The dead letters are the
operator's only."""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator
from typing import Annotated, Any

import msgspec
from litestar import Controller, HttpMethod, Litestar, Request, Response, delete, get, post, put, route
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin
from litestar.openapi.spec import Components
from litestar.params import JSONBody, Parameter

from benthic.errors import JWT_AUTH, OPERATOR_AUTH, ApiError
from benthic.patterns import whole
from benthic.runtime.config import Settings, check_identity
from benthic.runtime.telemetry import log, zero_series
from benthic.service.apidoc import FinishedJson, doc
from benthic.service.bootstrap import redis_lifespan, service_app, subscription_lifespan, tasks_lifespan
from benthic.service.http import OPERATOR, PLAYER_JWT, refuse_deep_bodies, security_schemes
from benthic.trust.callers import caller_credential
from benthic.trust.identity import MATCHMAKER, PLAYER_ID, Credential
from benthic.trust.identity import OPERATOR as OPERATOR_KIND
from benthic.trust.provider import build_identity
from services.notifier.consumer import EventRouter, subscription
from services.notifier.delivery import Deliverer
from services.notifier.keys import WebhookKeys
from services.notifier.queue import DeadLetter, DeliveryQueue
from services.notifier.registrations import Registrations, Webhook, WebhookRequest
from services.notifier.urls import MAX_URL_LENGTH, URL_PATTERN, UrlRefused, check_url

SERVICE = "notifier"
BACKEND_AUTH = (*JWT_AUTH, "backend_only")
PlayerId = Annotated[str, Parameter(pattern=PLAYER_ID.pattern, description="the player's id")]
# 19 digits at most: every such number is below 2^64, as Redis' stream ids are
EntryId = Annotated[str, Parameter(pattern=whole(r"[0-9]{1,19}-[0-9]{1,19}"),
                                   description="a dead letter's entry id in the dead-letter stream")]


class DeadLetters(msgspec.Struct, frozen=True):
    """A page of dead letters, oldest first; ``next_after``: the ``after`` of the next page (None: the last)."""

    dead_letters: list[DeadLetter]
    next_after: str | None


class Redriven(msgspec.Struct, frozen=True):
    entry_id: str
    delivery_id: str


def _webhook_body(components: dict[str, Any]) -> dict[str, Any]:
    """The PUT's body as the service takes it, the URL's form and length said in the schema too (the service
    answers a URL that breaks them ``invalid_webhook_url``, with the reason, rather than a bare pattern or length
    mismatch)."""
    _, schemas = msgspec.json.schema_components([WebhookRequest])
    body: dict[str, Any] = schemas["WebhookRequest"]
    body["properties"]["url"].update(pattern=URL_PATTERN, maxLength=MAX_URL_LENGTH)
    return body


async def _caller(request: Request[Any, Any, Any], *kinds: str) -> Credential:
    """The caller's credential (a JWT of the identity provider, or the operator token), if of one of ``kinds``."""
    return await caller_credential(
        request.headers.get("authorization"), request.app.state.settings.operator_token, request.app.state.identity,
        kinds, missing="send a backend JWT (scope benthic:matchmaker) or the operator token",
        wrong_kind=lambda kind: ApiError(403, "backend_only", f"webhooks are registered by a backend (scope "
                                                              f"benthic:matchmaker) or an operator, not with a {kind} "
                                                              f"credential"))


def _registrations(request: Request[Any, Any, Any]) -> Registrations:
    return request.app.state.registrations  # type: ignore[no-any-return]


def _queue(request: Request[Any, Any, Any]) -> DeliveryQueue:
    return request.app.state.queue  # type: ignore[no-any-return]


_WEBHOOK_TAGS = ["webhooks"]
_BACKEND: list[dict[str, list[str]]] = [{PLAYER_JWT: []}, {OPERATOR: []}]


class WebhookRoutes(Controller):
    """``/players/{player_id}/webhook``: its three methods registered together, so OPTIONS and 405 answers name
    them all in ``Allow``."""

    path = "/players/{player_id:str}/webhook"
    tags = _WEBHOOK_TAGS
    security = _BACKEND

    @put(summary="Register (or replace) a player's webhook",
         opt=doc(*BACKEND_AUTH, "invalid_webhook_url", "webhook_url_not_public", body=_webhook_body))
    async def put_webhook(self, request: Request[Any, Any, Any], player_id: PlayerId,
                          data: JSONBody[WebhookRequest]) -> Webhook:
        """The player's `turn.started` and `game.finished` events (or the `events` listed) are POSTed to `url`,
        signed with `secret` (docs/INTEGRATION.md#webhooks).  Without `secret` one is generated and answered here,
        once.  Replacing a registration keeps its `created_at_ms`; deliveries already queued go to the new URL."""
        await _caller(request, MATCHMAKER, OPERATOR_KIND)
        try:
            check_url(data.url, request.app.state.settings.webhook_allow_private)
        except UrlRefused as refused:
            raise ApiError(400, refused.code, refused.message, {"url": data.url}) from None
        hook = await _registrations(request).put(player_id, data, int(time.time() * 1000))
        log().info("webhook_registered", player_id=player_id, url=data.url, events=hook.events)
        return hook

    @route(http_method=HttpMethod.OPTIONS, include_in_schema=False, status_code=204, sync_to_thread=False)
    def allowed_methods(self) -> Response[None]:
        """OPTIONS.  Litestar's own answer names only the first method registered on a path of several; this one is
        registered first (a controller registers its handlers in name order), so Litestar adds none."""
        return Response(None, status_code=204, headers={"Allow": "DELETE, GET, OPTIONS, PUT"})

    @get(summary="A player's webhook (without its secret)", opt=doc(*BACKEND_AUTH, "webhook_not_found"))
    async def get_webhook(self, request: Request[Any, Any, Any], player_id: PlayerId) -> Webhook:
        await _caller(request, MATCHMAKER, OPERATOR_KIND)
        found = await _registrations(request).get(player_id)
        if found is None:
            raise ApiError(404, "webhook_not_found", f"player {player_id!r} has no webhook")
        return found[0]

    @delete(summary="Remove a player's webhook", status_code=204, opt=doc(*BACKEND_AUTH, "webhook_not_found"))
    async def delete_webhook(self, request: Request[Any, Any, Any], player_id: PlayerId) -> None:
        """No more deliveries to the player: the ones still queued are dropped when they come due."""
        await _caller(request, MATCHMAKER, OPERATOR_KIND)
        if not await _registrations(request).delete(player_id):
            raise ApiError(404, "webhook_not_found", f"player {player_id!r} has no webhook")
        log().info("webhook_deleted", player_id=player_id)


@get("/ops/webhooks/dead-letters", summary="Operator: deliveries given up on", tags=["operator"],
     security=[{OPERATOR: []}], opt=doc(*OPERATOR_AUTH))
async def dead_letters(
    request: Request[Any, Any, Any],
    after: Annotated[str, Parameter(pattern=whole(r"[0-9]{1,19}(-[0-9]{1,19})?"), description="an entry id: the page "
                                    "after it (0: from the oldest)")] = "0",
    limit: Annotated[int, Parameter(ge=1, le=1000, description="at most this many")] = 100,
) -> DeadLetters:
    """The dead-letter stream, oldest first: each delivery (the event's JSON, the player, the attempts, the last
    error), why it was given up on and when.  The stream keeps about BENTHIC_WEBHOOK_DEAD_LETTER_MAX entries."""
    await _caller(request, OPERATOR_KIND)
    page = await _queue(request).dead_letters(after, limit)
    return DeadLetters(page, page[-1].entry_id if len(page) == limit else None)


@post("/ops/webhooks/dead-letters/{entry_id:str}/redrive", summary="Operator: send a dead letter again",
      tags=["operator"], security=[{OPERATOR: []}], status_code=200, opt=doc(*OPERATOR_AUTH, "dead_letter_not_found"))
async def redrive(request: Request[Any, Any, Any], entry_id: EntryId) -> Redriven:
    """The dead letter goes back to the queue, due now, with a fresh count of attempts, and leaves the stream."""
    await _caller(request, OPERATOR_KIND)
    delivery = await _queue(request).redrive(entry_id, int(time.time() * 1000))
    if delivery is None:
        raise ApiError(404, "dead_letter_not_found", f"no dead letter {entry_id!r}")
    log().info("webhook_redriven", entry_id=entry_id, delivery=delivery.id)
    return Redriven(entry_id, delivery.id)


def create_app(settings: Settings) -> Litestar:
    check_identity(settings)

    @contextlib.asynccontextmanager
    async def notifier(app: Litestar) -> AsyncIterator[None]:
        identity, _dev_issuer = build_identity(settings)
        keys = WebhookKeys(settings.integration_stream)
        queue = DeliveryQueue(app.state.redis, keys, settings.webhook_queue_max, settings.webhook_dead_letter_max)
        registrations = Registrations(app.state.redis, keys)
        if missing := await registrations.fill_registry():
            log().info("webhook_registry_filled", players=missing)
        deliverer = Deliverer(queue, registrations, settings)
        app.state.update(identity=identity, queue=queue, registrations=registrations, deliverer=deliverer,
                         router=EventRouter(app.state.store, queue))
        zero_series(SERVICE, ())
        yield

    def loops(app: Litestar) -> list[Any]:
        return [app.state.deliverer.run(), app.state.deliverer.metrics_loop()]

    return service_app(
        SERVICE, settings,
        [redis_lifespan(settings), notifier,
         subscription_lifespan("integration_consumer", lambda app: subscription(settings, app.state.router)),
         tasks_lifespan("deliveries", loops, settings, stop=lambda app: app.state.deliverer.stop())],
        [WebhookRoutes, dead_letters, redrive],
        started={"port": settings.notifier_port, "stream": settings.integration_stream,
                 "allow_private": settings.webhook_allow_private},
        request_max_body_size=settings.max_body_bytes,
        before_request=refuse_deep_bodies,
        openapi_config=OpenAPIConfig(
            title="Benthic notifier API", version="1",
            components=Components(security_schemes=security_schemes(PLAYER_JWT, OPERATOR)),
            render_plugins=[FinishedJson(), ScalarRenderPlugin()],
        ),
    )
