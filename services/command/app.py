"""The command service's HTTP API (Litestar, OpenAPI at /schema)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import msgspec
from benthic.auth import SeatClaim, SeatTokens, TokenError, bearer, is_operator
from benthic.config import Settings
from benthic.gamestate import StateLoader
from benthic.http import EXCEPTION_HANDLERS, ApiError, health_routes
from benthic.redisconn import RedisProbe, memory, redis_client
from benthic.rules import game_types, get_engine
from benthic.store import EventStore
from benthic.telemetry import REDIS_MEMORY_MAX, REDIS_MEMORY_USED, log, red_middleware, zero_series
from litestar import Litestar, Request, Response, get, post
from litestar.datastructures import State
from litestar.openapi import OpenAPIConfig

from services.command import gametypes
from services.command.service import (
    CommandAccepted,
    CommandRequest,
    CommandService,
    CreateGame,
    GameCreated,
    Joined,
    JoinGame,
    LegalCommands,
)

SERVICE = "command"


def _claim(request: Request[Any, Any, Any], game_id: str) -> SeatClaim:
    token = bearer(request.headers.get("authorization"))
    if token is None:
        raise ApiError(401, "missing_token", "send the seat token as `Authorization: Bearer <token>`")
    try:
        claim = request.app.state.tokens.verify(token)
    except TokenError as error:
        raise ApiError(401, "invalid_token", str(error)) from None
    return claim


def _service(request: Request[Any, Any, Any]) -> CommandService:
    return request.app.state.service  # type: ignore[no-any-return]


def _operator(request: Request[Any, Any, Any]) -> bool:
    return is_operator(bearer(request.headers.get("authorization")), request.app.state.settings.operator_token)


@post("/games", status_code=201, summary="Create a game", tags=["lobby"])
async def create_game(request: Request[Any, Any, Any], data: CreateGame) -> GameCreated:
    """Seats are player records or null for an open seat.  The answer holds a seat token for every named
    seat.  A fixed `seed` needs the operator token (it would reveal all hidden information)."""
    return await _service(request).create(data, seed_allowed=_operator(request))


@post("/games/{game_id:str}/join", status_code=200, summary="Take an open seat", tags=["lobby"])
async def join_game(request: Request[Any, Any, Any], game_id: str, data: JoinGame) -> Joined:
    return await _service(request).join(game_id, data)


@post("/games/{game_id:str}/commands", status_code=200, summary="Play a command", tags=["play"])
async def post_command(
    request: Request[Any, Any, Any], game_id: str, data: CommandRequest, include: str | None = None
) -> CommandAccepted:
    """`command` is the game command's JSON (as listed by `/legal`).  A repeated `command_id` returns the
    first answer.  `?include=legal` adds the next prompt and the caller's legal commands to the answer.
    Errors: 400 malformed, 401/403 token, 404 game, 409 stale `expected_version`, 413 too large,
    422 rule violation (`code` names the rule)."""
    claim = _claim(request, game_id)
    return await _service(request).command(game_id, claim, data, include_legal=include == "legal")


@get("/games/{game_id:str}/legal", summary="The caller's legal commands", tags=["play"])
async def legal_commands(request: Request[Any, Any, Any], game_id: str) -> LegalCommands:
    claim = _claim(request, game_id)
    return await _service(request).legal(game_id, claim)


@get("/games/{game_id:str}/ops/state", summary="Operator: the unredacted state", tags=["operator"])
async def operator_state(request: Request[Any, Any, Any], game_id: str, format: str = "json") -> Response[Any]:
    """The whole state, secrets included: JSON for people, `?format=msgpack` for programs (the engine's own
    encoding, decodable with `engine.decode_state`; the house bots of the demo use it)."""
    if not _operator(request):
        raise ApiError(401, "operator_only", "this endpoint needs the operator token")
    service = _service(request)
    meta = await service.meta(game_id)
    engine = get_engine(meta.game_type)
    folded = await service.loader.load(game_id, engine)
    headers = {"X-Benthic-Version": str(folded.version), "X-Benthic-Engine-Version": engine.version}
    if format == "msgpack":
        return Response(engine.encode_state(folded.state), media_type="application/msgpack", headers=headers)
    body = {"meta": msgspec.to_builtins(meta), "version": folded.version, "state": msgspec.to_builtins(folded.state)}
    return Response(body, headers=headers)


@get("/game-types", summary="Registered game types", tags=["lobby"], sync_to_thread=False)
def list_game_types() -> list[dict[str, Any]]:
    return [
        {"game_type": g, "min_seats": get_engine(g).min_seats, "max_seats": get_engine(g).max_seats,
         "commands": sorted(get_engine(g).command_names), "content_version": get_engine(g).content_version}
        for g in game_types()
    ]


@get("/game-types/{game_type:str}", summary="A game type: seats, options, commands, content version",
     tags=["content"], sync_to_thread=False)
def game_type(request: Request[Any, Any, Any], game_type: str, v: str | None = None) -> Response[Any]:
    """Cacheable (strong `ETag`, `If-None-Match` → 304, long `max-age`); `?v=<content version>` pins it."""
    return gametypes.answer(gametypes.game_type_document(game_type), request.headers.get("if-none-match"), v)


@get("/game-types/{game_type:str}/content", summary="The content catalogue of a game type", tags=["content"],
     sync_to_thread=False)
def game_type_content(request: Request[Any, Any, Any], game_type: str, v: str | None = None) -> Response[Any]:
    """Every card, tile, board, space, track, term and option, with texts and geometry (see
    docs/ENGINE_CONTRACT.md).  Cacheable like `/game-types/{type}`."""
    return gametypes.answer(gametypes.content_document(game_type), request.headers.get("if-none-match"), v)


async def _redis_metrics(redis: Any, interval: float) -> None:
    while True:
        with contextlib.suppress(Exception):
            used, limit = await memory(redis)
            REDIS_MEMORY_USED.set(used)
            REDIS_MEMORY_MAX.set(limit)
        await asyncio.sleep(interval)


def create_app(settings: Settings) -> Litestar:
    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        redis = redis_client(settings.redis_url, settings.redis_pool, settings.redis_cluster,
                             settings.redis_pool_timeout_s)
        probe = RedisProbe(settings.redis_url, settings.redis_cluster)
        await probe.start()
        app.state.probe = probe
        store = EventStore(redis, settings.partitions, settings.feed_maxlen)
        loader = StateLoader(store, settings.state_cache_games, settings.snapshot_every)
        tokens = SeatTokens(settings.token_keys)
        app.state.redis = redis
        app.state.tokens = tokens
        app.state.service = CommandService(store, loader, tokens, settings.conflict_retries)
        task = asyncio.create_task(_redis_metrics(redis, settings.metrics_interval_s))
        zero_series(SERVICE, game_types())
        for game in game_types():  # built (and their data checked) now, not on the first request
            gametypes.content_document(game)
        log().info("service_started", port=settings.command_port, game_types=list(game_types()))
        try:
            yield
        finally:
            task.cancel()
            await probe.stop()
            await redis.aclose()

    async def ready() -> dict[str, Any]:
        probe: RedisProbe = app.state.probe
        report: dict[str, Any] = {"ok": probe.ok and bool(game_types()), "redis": probe.ok,
                                  "game_types": list(game_types())}
        if not probe.ok:
            report["error"] = probe.error
        return report

    app = Litestar(
        route_handlers=[create_game, join_game, post_command, legal_commands, operator_state, list_game_types,
                        game_type, game_type_content, *health_routes(ready)],
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[red_middleware(SERVICE)],
        state=State({"settings": settings}),
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(title="Benthic command API", version="1"),
        logging_config=None,
        debug=False,
    )
    return app
