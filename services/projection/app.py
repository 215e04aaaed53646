"""The projection service: feed consumer writing read models, and the HTTP read API with live updates."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from benthic.auth import SeatTokens, TokenError, bearer
from benthic.bus import FeedConsumer
from benthic.config import Settings
from benthic.content import install as install_content
from benthic.gamestate import StateLoader
from benthic.http import EXCEPTION_HANDLERS, ApiError, health_routes
from benthic.redisconn import redis_client
from benthic.rules import game_types
from benthic.store import EventStore
from benthic.telemetry import GAMES, LIVE_CLIENTS, log, red_middleware, zero_series
from litestar import Litestar, Request, Response, get
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig
from litestar.response import ServerSentEvent
from litestar.response.sse import ServerSentEventMessage

from services.projection.projector import Projector
from services.projection.reads import STATUSES, ReadModels, UpdateHub

SERVICE = "projection"
GROUP = "projection"


def _reads(request: Request[Any, Any, Any]) -> ReadModels:
    return request.app.state.reads  # type: ignore[no-any-return]


def _viewer(request: Request[Any, Any, Any], game_id: str, seat: int | None) -> int | None:
    """The viewer a request may act as: a spectator, or the seat its token proves."""
    if seat is None:
        return None
    token = bearer(request.headers.get("authorization")) or request.query_params.get("token")
    if token is None:
        raise ApiError(401, "missing_token", "a seat's view needs its seat token (`Authorization: Bearer`)")
    try:
        claim = request.app.state.tokens.verify(token)
    except TokenError as error:
        raise ApiError(401, "invalid_token", str(error)) from None
    if claim.game_id != game_id or claim.seat != seat:
        raise ApiError(403, "wrong_seat", "this token belongs to another game or seat")
    return seat


def _field(kind: str, viewer: int | None) -> str:
    return f"{kind}:{'pub' if viewer is None else viewer}"


async def _view_response(
    request: Request[Any, Any, Any], game_id: str, viewer: int | None, after_version: int | None, wait: float
) -> Response[bytes]:
    reads = _reads(request)
    field = _field("view", viewer)
    found = await reads.field(game_id, field)
    if found is None:
        raise ApiError(404, "game_not_found", f"no game {game_id!r} (or not projected yet)")
    version, body = found
    if after_version is not None and version <= after_version and wait > 0:
        hub: UpdateHub = request.app.state.hub
        deadline = asyncio.get_running_loop().time() + min(wait, request.app.state.settings.long_poll_max_s)
        LIVE_CLIENTS.inc()
        try:
            with hub.subscription(game_id) as event:
                while version <= after_version:
                    remaining = deadline - asyncio.get_running_loop().time()
                    if remaining <= 0:
                        break
                    with contextlib.suppress(asyncio.TimeoutError):
                        await asyncio.wait_for(event.wait(), remaining)
                    event.clear()
                    version, body = await reads.field(game_id, field) or (version, body)
        finally:
            LIVE_CLIENTS.dec()
    if body is None:
        raise ApiError(404, "no_view", "no view for this seat")
    etag = f'"{game_id}:{version}:{"pub" if viewer is None else viewer}"'
    headers = {"ETag": etag, "X-Benthic-Version": str(version), "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == etag:
        return Response(b"", status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


@get("/games/{game_id:str}/view", summary="Spectator view (long-poll with after_version & wait)", tags=["read"])
async def public_view(
    request: Request[Any, Any, Any], game_id: str, after_version: int | None = None, wait: float = 0
) -> Response[bytes]:
    return await _view_response(request, game_id, None, after_version, wait)


@get("/games/{game_id:str}/seats/{seat:int}/view", summary="A seat's view (needs its token)", tags=["read"])
async def seat_view(
    request: Request[Any, Any, Any], game_id: str, seat: int, after_version: int | None = None, wait: float = 0
) -> Response[bytes]:
    return await _view_response(request, game_id, _viewer(request, game_id, seat), after_version, wait)


async def _history(request: Request[Any, Any, Any], game_id: str, viewer: int | None, after: int, limit: int) -> Response[bytes]:
    reads = _reads(request)
    version = await reads.version(game_id)
    if version is None:
        raise ApiError(404, "game_not_found", f"no game {game_id!r} (or not projected yet)")
    limit = max(1, min(limit, 1000))
    entries = await reads.history(game_id, viewer, after, limit)
    body = b'{"game_id":"' + game_id.encode() + b'","version":' + str(version).encode() + b',"events":[' + b",".join(entries) + b"]}"
    return Response(body, media_type="application/json", headers={"X-Benthic-Version": str(version)})


@get("/games/{game_id:str}/history", summary="Event history as a spectator sees it", tags=["read"])
async def public_history(request: Request[Any, Any, Any], game_id: str, after: int = 0, limit: int = 500) -> Response[bytes]:
    return await _history(request, game_id, None, after, limit)


@get("/games/{game_id:str}/seats/{seat:int}/history", summary="Event history as a seat sees it", tags=["read"])
async def seat_history(
    request: Request[Any, Any, Any], game_id: str, seat: int, after: int = 0, limit: int = 500
) -> Response[bytes]:
    return await _history(request, game_id, _viewer(request, game_id, seat), after, limit)


async def _live(request: Request[Any, Any, Any], game_id: str, viewer: int | None) -> ServerSentEvent:
    reads = _reads(request)
    field = _field("view", viewer)
    if await reads.field(game_id, field) is None:
        raise ApiError(404, "game_not_found", f"no game {game_id!r} (or not projected yet)")
    hub: UpdateHub = request.app.state.hub

    async def stream() -> AsyncIterator[ServerSentEventMessage]:
        sent = -1
        LIVE_CLIENTS.inc()
        try:
            with hub.subscription(game_id) as event:
                while True:
                    found = await reads.field(game_id, field)
                    if found and found[0] > sent and found[1] is not None:
                        sent = found[0]
                        yield ServerSentEventMessage(data=found[1].decode(), event="view", id=str(sent))
                        if b'"status":"finished"' in found[1]:
                            return
                    try:
                        await asyncio.wait_for(event.wait(), 15)
                    except TimeoutError:
                        yield ServerSentEventMessage(comment="keep-alive")
                    event.clear()
        finally:
            LIVE_CLIENTS.dec()

    return ServerSentEvent(stream())


@get("/games/{game_id:str}/live", summary="Server-sent events: the spectator view on every change", tags=["live"])
async def public_live(request: Request[Any, Any, Any], game_id: str) -> ServerSentEvent:
    return await _live(request, game_id, None)


@get("/games/{game_id:str}/seats/{seat:int}/live", summary="Server-sent events: a seat's view", tags=["live"])
async def seat_live(request: Request[Any, Any, Any], game_id: str, seat: int) -> ServerSentEvent:
    return await _live(request, game_id, _viewer(request, game_id, seat))


@get("/games/{game_id:str}", summary="A game's lobby card", tags=["lobby"])
async def game_summary(request: Request[Any, Any, Any], game_id: str) -> Response[bytes]:
    found = await _reads(request).field(game_id, "summary")
    if found is None or found[1] is None:
        raise ApiError(404, "game_not_found", f"no game {game_id!r} (or not projected yet)")
    return Response(found[1], media_type="application/json", headers={"X-Benthic-Version": str(found[0])})


@get("/games/{game_id:str}/scores", summary="Final scores of a finished game", tags=["read"])
async def scores(request: Request[Any, Any, Any], game_id: str) -> Response[bytes]:
    found = await _reads(request).field(game_id, "scores")
    if found is None:
        raise ApiError(404, "game_not_found", f"no game {game_id!r} (or not projected yet)")
    if found[1] is None:
        raise ApiError(404, "not_finished", "the game is not finished")
    return Response(found[1], media_type="application/json")


@get("/lobby", summary="Games by type and status, newest first", tags=["lobby"])
async def lobby(
    request: Request[Any, Any, Any], game_type: str | None = None, status: str | None = None, limit: int = 50
) -> dict[str, Any]:
    types = [game_type] if game_type else list(game_types())
    if game_type and game_type not in game_types():
        raise ApiError(404, "unknown_game_type", f"unknown game type {game_type!r}")
    if status and status not in STATUSES:
        raise ApiError(400, "invalid_request", f"status must be one of {', '.join(STATUSES)}")
    statuses = [status] if status else list(STATUSES)
    games = await _reads(request).lobby(types, statuses, max(1, min(limit, 500)))
    return {"games": games}


@get("/leaderboards/{game_type:str}", summary="Ratings leaderboard of a game type", tags=["ratings"])
async def leaderboard(request: Request[Any, Any, Any], game_type: str, limit: int = 20) -> dict[str, Any]:
    if game_type not in game_types():
        raise ApiError(404, "unknown_game_type", f"unknown game type {game_type!r}")
    return {"game_type": game_type, "players": await _reads(request).leaderboard(game_type, max(1, min(limit, 500)))}


async def _games_gauge(reads: ReadModels, interval: float) -> None:
    while True:
        with contextlib.suppress(Exception):
            for (game_type, status), count in (await reads.counts(list(game_types()))).items():
                GAMES.labels(game_type, status).set(count)
        await asyncio.sleep(interval)


def create_app(settings: Settings, consume: bool = True) -> Litestar:
    packs = install_content(settings)
    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        redis = redis_client(settings.redis_url, 256, settings.redis_cluster)
        store = EventStore(redis, settings.partitions, settings.feed_maxlen)
        loader = StateLoader(store, settings.state_cache_games, snapshot_every=0)
        reads = ReadModels(redis, settings.partitions)
        hub = UpdateHub(redis, settings.partitions)
        projector = Projector(redis, store, loader)
        consumer = FeedConsumer(settings, GROUP, projector.handle, pause_s=settings.projection_pause_ms / 1000)
        app.state.update(redis=redis, reads=reads, hub=hub, consumer=consumer, projector=projector,
                         tokens=SeatTokens(settings.token_keys))
        await hub.start()
        if consume:
            await consumer.start()
        gauge = asyncio.create_task(_games_gauge(reads, settings.metrics_interval_s))
        zero_series(SERVICE, game_types())
        log().info("service_started", port=settings.projection_port,
                   content_packs=packs["packs"], rejected_packs=packs["rejected"])
        try:
            yield
        finally:
            gauge.cancel()
            if consume:
                await consumer.stop()
            await hub.stop()
            await redis.aclose()

    async def ready() -> dict[str, Any]:
        await app.state.redis.ping()
        healthy = app.state.consumer.healthy or not consume
        return {"ok": healthy, "consumer": healthy}

    app = Litestar(
        route_handlers=[public_view, seat_view, public_history, seat_history, public_live, seat_live, game_summary,
                        scores, lobby, leaderboard, *health_routes(lambda: ready())],
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[red_middleware(SERVICE)],
        state=State({"settings": settings}),
        openapi_config=OpenAPIConfig(title="Benthic read API", version="1"),
        logging_config=None,
        debug=False,
    )
    return app


__all__ = ["create_app", "msgspec"]
