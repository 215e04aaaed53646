"""The projection service: feed consumer writing read models, and the HTTP read API with live updates."""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import msgspec
from litestar import Litestar, Request, Response, get
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin
from litestar.openapi.spec import Components
from litestar.params import FromQuery, HeaderParameter, Parameter
from litestar.response import Stream

from benthic.errors import FOLD, GAME_BY_ID, SEAT_AUTH, ApiError
from benthic.feed.consumer import FeedConsumer
from benthic.feed.integration import EVENTS, event_type
from benthic.feed.system import follower
from benthic.game.content import install as install_content
from benthic.game.gameschemas import game_schemas, history_schema, view_schema
from benthic.game.history import history_body
from benthic.rules import FinalScores, game_types
from benthic.runtime.config import Settings
from benthic.runtime.redisconn import connect
from benthic.runtime.telemetry import GAMES, INTEGRATION_EVENTS, LIVE_STREAMS_REFUSED, zero_series
from benthic.service.admission import release_slot
from benthic.service.apidoc import FinishedJson, doc
from benthic.service.asyncapi import asyncapi_document
from benthic.service.bootstrap import consumer_lifespan, readiness, redis_lifespan, service_app
from benthic.service.http import (
    GAME_TYPE_PATTERN,
    SEAT_TOKEN,
    GameId,
    GameType,
    Seat,
    cors_config,
    open_archive_reader,
    security_schemes,
)
from benthic.service.languages import Lang, language_headers, request_language
from benthic.store.loader import StateLoader
from benthic.trust.auth import SeatGate, SeatTokens, bearer
from benthic.trust.revocation import Revocations
from benthic.views.archived import ArchivedReads
from benthic.views.live import SCORED_WAIT_S, LiveCapacityReached, LiveHub, StreamEnd
from benthic.views.readmodel import (
    SCORES,
    STATUSES,
    SUMMARY,
    Summary,
    VersionNotFound,
    viewer_name,
)
from benthic.views.reads import ReadModels
from services.projection.projector import Projector
from services.projection.webclient import web_routes

SERVICE = "projection"
FOLLOWS = follower("projection")  # the stream it follows, its group and mechanism: benthic.feed.system
GROUP = FOLLOWS.group
KEEP_ALIVE_S = 15.0


def _reads(request: Request[Any, Any, Any]) -> ReadModels:
    return request.app.state.reads  # type: ignore[no-any-return]


def _hub(request: Request[Any, Any, Any]) -> LiveHub:
    return request.app.state.hub  # type: ignore[no-any-return]


def _seat_token(request: Request[Any, Any, Any]) -> str | None:
    """``Authorization: Bearer``, or ``?token=`` for clients that cannot set headers (EventSource)."""
    return bearer(request.headers.get("authorization")) or request.query_params.get("token")


async def _viewer(request: Request[Any, Any, Any], game_id: str, seat: int | None) -> int | None:
    """The viewer a request may act as: a spectator, or the seat its token proves (the same check as the
    command service's: signature, expiry, revocation, then game and seat)."""
    if seat is None:
        return None
    gate: SeatGate = request.app.state.gate
    await gate.check(_seat_token(request), game_id, seat)
    return seat


def _not_found(game_id: str) -> ApiError:
    return ApiError(404, "game_not_found", f"no game {game_id!r} (or not projected yet)")


def _at_capacity() -> ApiError:
    LIVE_STREAMS_REFUSED.inc()
    return ApiError(503, "too_many_live_clients", "this server holds its maximum of live clients; retry shortly",
                    headers={"Retry-After": "2"})


async def _view_response(
    request: Request[Any, Any, Any], game_id: str, viewer: int | None, after_version: int | None, wait: float
) -> Response[bytes]:
    hub = _hub(request)
    latest = await hub.current(game_id, viewer)
    waiting = after_version is not None and wait > 0
    if latest is None and not (waiting and await _reads(request).store.meta(game_id) is not None):
        raise _not_found(game_id)  # a game created but not projected yet is waited for, like a new version
    if after_version is not None and wait > 0 and (latest is None or latest[0] <= after_version):
        release_slot(request.scope)  # waiting for a version costs nothing: a waiter holds no admission slot
        loop = asyncio.get_running_loop()
        deadline = loop.time() + min(wait, request.app.state.settings.long_poll_max_s)
        try:
            async with hub.watch(game_id, viewer) as client:
                latest = await hub.current(game_id, viewer) or latest  # a version written while we registered
                while (latest is None or latest[0] <= after_version) and (remaining := deadline - loop.time()) > 0:
                    with contextlib.suppress(TimeoutError):
                        latest = await client.next(remaining) or latest
                    if client.dropped:
                        break
        except LiveCapacityReached:
            raise _at_capacity() from None
    if latest is None:
        raise _not_found(game_id)
    version, body = latest
    etag = f'"{game_id}:{version}:{viewer_name(viewer)}"'
    headers = {"ETag": etag, "X-Benthic-Version": str(version), "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == etag:
        return Response(b"", status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


async def _view_at_response(request: Request[Any, Any, Any], game_id: str, viewer: int | None,
                            at: int) -> Response[bytes]:
    """The view at version ``at``: the same body (and ETag) the live view had at that version, or at the end of
    the commit that holds it when ``at`` lies inside a commit (a state nobody saw: benthic.game.commits)."""
    try:
        past = await _reads(request).view_at(game_id, viewer, at)
    except VersionNotFound as beyond:
        raise ApiError(404, "version_not_found", f"game {game_id!r} has no version {at} (it is at version "
                                                 f"{beyond.current})", {"current_version": beyond.current}) from None
    if past is None:
        raise _not_found(game_id)
    etag = f'"{game_id}:{past.version}:{viewer_name(viewer)}"'
    headers = {"ETag": etag, "X-Benthic-Version": str(past.version),
               "X-Benthic-Previous-Version": str(past.previous), "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == etag:
        return Response(b"", status_code=304, headers=headers)
    return Response(past.body, media_type="application/json", headers=headers)


_VIEW_DOC: dict[str, Any] = {
    "ok": lambda shared: view_schema(STATUSES), "not_modified": True,
    "ok_headers": {"ETag": "`\"<game>:<version>:<viewer>\"`", "X-Benthic-Version": "the view's version",
                   "X-Benthic-Previous-Version": "with `?at=`: the version of the view before this one (the end "
                                                 "of the commit before; 0: none), where a replay steps back to"},
    "description": "`?after_version=N&wait=S` long-polls: the answer waits (at most S seconds, capped by "
                   "BENTHIC_LONG_POLL_MAX_S) for a version after N, also for a game created but not projected yet; "
                   "after the wait it is the current view (or 404 if the game is still not projected).  "
                   "`?at=V`: the view as it was at version V (1 to the current version; the same body, ETag and "
                   "redaction as the live view had then, for archived games too), then `after_version` and `wait` "
                   "are ignored; a V between two events of one commit (a state no viewer saw) is answered with the "
                   "view at the end of that commit, its version in `X-Benthic-Version`; beyond the current version "
                   "`404 version_not_found` (`details.current_version`).",
}
TokenQuery = Annotated[str | None, Parameter(
    description="the seat token, where `Authorization` cannot be set (EventSource)")]
AfterVersion = Annotated[int | None, Parameter(ge=0, description="long-poll: wait for a version after this one")]
Wait = Annotated[float, Parameter(ge=0, description="long-poll: seconds to wait at most")]
Deltas = Annotated[bool, Parameter(
    description="`1`: after the first full view, send each new version as a JSON Patch from the one before "
                "(`event: delta`)")]
Since = Annotated[int | None, Parameter(
    ge=0, description="with `deltas=1`: the version of the view the client has (a reconnect); ignored without")]
LastEventId = Annotated[str | None, HeaderParameter(
    name="Last-Event-ID", description="with `deltas=1`: the version the client has, as EventSource sends it when "
                                        "it reconnects by itself (it wins over `since`); an id that is no version "
                                        "is ignored: the full view comes")]


def _has(since: int | None, last_event_id: str | None) -> int | None:
    """The version a reconnecting client has.  A malformed ``Last-Event-ID`` is not refused: EventSource sends
    the header by itself, and a refusal would end its reconnects for good where a full view costs nothing."""
    if last_event_id is not None and last_event_id.isascii() and last_event_id.isdigit():
        return int(last_event_id)
    return since
At = Annotated[int | None, Parameter(ge=1, le=2**53, description="the view as it was at this version (replays)")]


@get("/games/{game_id:str}/view", summary="Spectator view (long-poll with after_version & wait)", tags=["read"],
     opt=doc(*GAME_BY_ID, "too_many_live_clients", "version_not_found", *FOLD, **_VIEW_DOC))
async def public_view(
    request: Request[Any, Any, Any], game_id: GameId, after_version: AfterVersion = None, wait: Wait = 0,
    at: At = None,
) -> Response[bytes]:
    if at is not None:
        return await _view_at_response(request, game_id, None, at)
    return await _view_response(request, game_id, None, after_version, wait)


@get("/games/{game_id:str}/seats/{seat:str}/view", summary="A seat's view (needs its token)", tags=["read"],
     security=[{SEAT_TOKEN: []}], opt=doc(*SEAT_AUTH, "wrong_seat", *GAME_BY_ID, "too_many_live_clients",
                                          "version_not_found", *FOLD, **_VIEW_DOC))
async def seat_view(
    request: Request[Any, Any, Any], game_id: GameId, seat: Seat, after_version: AfterVersion = None, wait: Wait = 0,
    token: TokenQuery = None, at: At = None,
) -> Response[bytes]:
    viewer = await _viewer(request, game_id, seat)
    if at is not None:
        return await _view_at_response(request, game_id, viewer, at)
    return await _view_response(request, game_id, viewer, after_version, wait)


async def _history(
    request: Request[Any, Any, Any], game_id: str, viewer: int | None, after: int, limit: int, lang: str | None
) -> Response[bytes]:
    language = request_language(request, lang)
    found = await _reads(request).history(game_id, viewer, after, min(limit, 1000), language)
    if found is None:
        raise _not_found(game_id)
    version, entries = found
    return Response(
        history_body(game_id, version, entries, language), media_type="application/json",
        headers={"X-Benthic-Version": str(version), **language_headers(language)},
    )


_HISTORY_DOC: dict[str, Any] = {"ok": lambda shared: history_schema(),
                                 "ok_headers": {"X-Benthic-Version": "the projected version",
                                                "Content-Language": "the language of the sentences (`text`)"}}
After = Annotated[int, Parameter(ge=0, le=2**53, description="the entries after this version")]
Limit = Annotated[int, Parameter(ge=1, description="at most this many entries (and at most 1000)")]


@get("/games/{game_id:str}/history", summary="Event history as a spectator sees it", tags=["read"],
     opt=doc(*GAME_BY_ID, *FOLD, **_HISTORY_DOC))
async def public_history(
    request: Request[Any, Any, Any], game_id: GameId, after: After = 0, limit: Limit = 500, lang: Lang = None
) -> Response[bytes]:
    return await _history(request, game_id, None, after, limit, lang)


@get("/games/{game_id:str}/seats/{seat:str}/history", summary="Event history as a seat sees it", tags=["read"],
     security=[{SEAT_TOKEN: []}], opt=doc(*SEAT_AUTH, "wrong_seat", *GAME_BY_ID, *FOLD, **_HISTORY_DOC))
async def seat_history(
    request: Request[Any, Any, Any], game_id: GameId, seat: Seat, after: After = 0, limit: Limit = 500,
    token: TokenQuery = None, lang: Lang = None,
) -> Response[bytes]:
    return await _history(request, game_id, await _viewer(request, game_id, seat), after, limit, lang)


def _sse_frame(version: int, body: bytes, event: bytes = b"view") -> bytes:
    return b"id: %d\nevent: %s\ndata: %s\n\n" % (version, event, body)


def _sse_closed(error: ApiError) -> bytes:
    return b"event: closed\ndata: %s\n\n" % msgspec.json.encode({"code": error.code, "message": error.message})


async def _live(request: Request[Any, Any, Any], game_id: str, viewer: int | None, deltas: bool = False,
                since: int | None = None) -> Stream:
    """The view on every change, to the game's last version (``StreamEnd``: its ``game_scored``).  A seat's stream
    ends (event ``closed`` with the error's code) as soon as its token expires or is revoked, at its next update or
    keep-alive: the client refreshes it and reconnects.
    With ``deltas`` a frame is a patch from the version the client has (``since``, then each frame's) whenever
    the hub holds the step from it, else the full view."""
    hub = _hub(request)
    gate: SeatGate = request.app.state.gate
    token = _seat_token(request) if viewer is not None else None
    since = since if deltas else None
    first = await hub.current(game_id, viewer)
    if first is None and await _reads(request).store.meta(game_id) is None:
        raise _not_found(game_id)  # a game created but not projected yet is streamed from its first version
    try:
        client = hub.open(game_id, viewer, stream=True)
    except LiveCapacityReached:
        raise _at_capacity() from None

    def frame(has: int | None, latest: tuple[int, bytes]) -> bytes:
        if not deltas:
            return _sse_frame(latest[0], latest[1])
        is_delta, data = hub.frame_for(game_id, viewer, has, latest)
        return _sse_frame(latest[0], data, b"delta" if is_delta else b"view")

    async def stream() -> AsyncIterator[bytes]:
        try:
            latest = await hub.current(game_id, viewer) or first  # a version written while we registered
            while latest is None:  # not projected yet: its first version comes as an update
                try:
                    latest = await client.next(KEEP_ALIVE_S)
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    latest = await hub.current(game_id, viewer)
                else:
                    if latest is None:
                        return
            version, body = latest
            yield frame(since, latest)
            end = StreamEnd(hub, game_id)
            while (left := await end.wait_after((version, body))) is not None:
                try:
                    latest = await client.next(min(left, KEEP_ALIVE_S))
                except TimeoutError:
                    latest = None
                    yield b": keep-alive\n\n"
                else:
                    if latest is None:  # fell too far behind: closed; the client reconnects
                        return
                    if deltas and (latest := client.newest(latest)) is None:
                        return
                if token is not None:  # a seat's stream ends once its token expires or is revoked
                    try:
                        await gate.check(token, game_id, viewer)
                    except ApiError as error:
                        yield _sse_closed(error)
                        return
                if latest is not None and latest[0] > version:
                    yield frame(version, latest)
                    version, body = latest
        finally:
            hub.release(client)

    frames = stream()
    weakref.finalize(frames, hub.release, client)  # a stream that never starts still frees its place
    return Stream(
        frames, media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no",
                 **({"X-Benthic-Version": str(first[0])} if first is not None else {})},
    )


def _sse_event_schema(shared: dict[str, Any]) -> dict[str, Any]:
    """One server-sent event of ``/live`` (OpenAPI 3.1: the schema of a ``text/event-stream`` describes each
    event): ``view`` carries the view JSON, ``delta`` a JSON Patch to it (``?deltas=1``), ``closed`` the error
    that ended a seat's stream."""
    return {"oneOf": [
        {"type": "object", "required": ["id", "event", "data"], "properties": {
            "id": {"type": "string", "pattern": "^[0-9]+$", "description": "the view's version"},
            "event": {"const": "view"},
            "data": {"type": "string", "contentMediaType": "application/json",
                     "contentSchema": view_schema(STATUSES)}}},
        {"type": "object", "required": ["id", "event", "data"], "properties": {
            "id": {"type": "string", "pattern": "^[0-9]+$", "description": "the version the patch leads to"},
            "event": {"const": "delta"},
            "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": DELTA_SCHEMA}}},
        {"type": "object", "required": ["event", "data"], "properties": {
            "event": {"const": "closed"},
            "data": {"type": "string", "contentMediaType": "application/json", "contentSchema": {
                "type": "object", "required": ["code", "message"],
                "properties": {"code": {"enum": ["invalid_token", "token_expired", "token_revoked"]},
                               "message": {"type": "string"}}}}}},
    ]}


DELTA_SCHEMA: dict[str, Any] = {
    "type": "object", "required": ["version", "base", "patch"], "additionalProperties": False, "properties": {
        "version": {"type": "integer", "minimum": 0, "description": "the version of the view the patch gives"},
        "base": {"type": "integer", "minimum": 0, "description": "the version of the view it applies to"},
        "patch": {"type": "array", "description": "RFC 6902 JSON Patch operations on the whole view body",
                  "items": {"type": "object", "required": ["op", "path"], "properties": {
                      "op": {"enum": ["add", "remove", "replace", "move", "copy", "test"]},
                      "path": {"type": "string"}, "from": {"type": "string"}, "value": {}}}},
    }}


_LIVE_DOC: dict[str, Any] = {
    "media_type": "text/event-stream", "ok": _sse_event_schema,
    "ok_headers": {"X-Benthic-Version": "the version of the first view sent (absent for a game created but not "
                                        "projected yet: its stream starts with its first version)"},
    "description": (
        "Server-sent events (`text/event-stream`), one frame per new version of the view:\n\n"
        "```\nid: <version>\nevent: view\ndata: <the view, as GET .../view answers it, on one line>\n\n```\n\n"
        "The first frame is the current view; the stream ends after the view of the game's last version: the one "
        "that folds its `game_scored` (appended by the scoring service a moment after the end: the final scores are "
        f"at `GET /games/{{id}}/scores`), or {SCORED_WAIT_S:g} s after the finished game's view if that version does "
        "not come. Every 15 s "
        "without a change a comment `: keep-alive` is sent. A client that falls BENTHIC_LIVE_BUFFER versions "
        "behind is disconnected (reconnect). A seat's stream ends with `event: closed` and `data: {\"code\", "
        "\"message\"}` (the error, e.g. `token_expired`, `token_revoked`) once its token stops being valid: "
        "refresh it and reconnect. `?token=` may carry the seat token (EventSource cannot set headers).\n\n"
        "With `?deltas=1` the first frame is the full view (`event: view`) and each next one a patch:\n\n"
        "```\nid: <version>\nevent: delta\n"
        "data: {\"version\": V, \"base\": V0, \"patch\": [RFC 6902 operations]}\n\n```\n\n"
        "applying to the view of version V0 (the version of the frame before). Whenever the server does not "
        "hold the step from the client's version it sends the full view (`event: view`) instead, so a client "
        "applies a delta only when `base` is its version (else it reconnects). A client reconnecting with the "
        "version it has (`Last-Event-ID`, as EventSource sends it, or `?since=`) gets a delta from it, an empty "
        "patch when it is already current, or the full view when the server cannot diff against it. Without "
        "`deltas=1` every frame is a full view, as before."),
}


@get("/games/{game_id:str}/live", summary="Server-sent events: the spectator view on every change", tags=["live"],
     opt=doc(*GAME_BY_ID, "too_many_live_clients", **_LIVE_DOC))
async def public_live(
    request: Request[Any, Any, Any], game_id: GameId, deltas: Deltas = False, since: Since = None,
    last_event_id: LastEventId = None,
) -> Stream:
    return await _live(request, game_id, None, deltas, _has(since, last_event_id))


@get("/games/{game_id:str}/seats/{seat:str}/live", summary="Server-sent events: a seat's view", tags=["live"],
     security=[{SEAT_TOKEN: []}], opt=doc(*SEAT_AUTH, "wrong_seat", *GAME_BY_ID, "too_many_live_clients", **_LIVE_DOC))
async def seat_live(
    request: Request[Any, Any, Any], game_id: GameId, seat: Seat, token: TokenQuery = None, deltas: Deltas = False,
    since: Since = None, last_event_id: LastEventId = None,
) -> Stream:
    viewer = await _viewer(request, game_id, seat)
    return await _live(request, game_id, viewer, deltas, _has(since, last_event_id))


@get("/games/{game_id:str}", summary="A game's lobby card", tags=["lobby"], opt=doc(*GAME_BY_ID, ok=Summary))
async def game_summary(request: Request[Any, Any, Any], game_id: GameId) -> Response[bytes]:
    found = await _reads(request).field(game_id, SUMMARY)
    if found is None or found[1] is None:
        raise _not_found(game_id)
    return Response(found[1], media_type="application/json", headers={"X-Benthic-Version": str(found[0])})


@get("/games/{game_id:str}/scores", summary="Final scores of a finished game", tags=["read"],
     opt=doc(*GAME_BY_ID, "not_finished", ok=FinalScores))
async def scores(request: Request[Any, Any, Any], game_id: GameId) -> Response[bytes]:
    found = await _reads(request).field(game_id, SCORES)
    if found is None:
        raise _not_found(game_id)
    if found[1] is None:
        raise ApiError(404, "not_finished", "the game is not finished")
    return Response(found[1], media_type="application/json")


class LobbyPage(msgspec.Struct, frozen=True):
    games: list[Summary]


class Ranked(msgspec.Struct, frozen=True):
    rank: int
    player_id: str
    name: str
    rating: float  # openskill's ordinal (mu - 3 sigma), rounded
    mu: float
    sigma: float
    games: int
    wins: int


class Leaderboard(msgspec.Struct, frozen=True):
    game_type: str
    players: list[Ranked]


PageLimit = Annotated[int, Parameter(ge=1, description="at most this many (and at most 500)")]
GameTypeQuery = Annotated[str | None, Parameter(pattern=GAME_TYPE_PATTERN, description="only games of this type")]


@get("/lobby", summary="Games by type and status, newest first", tags=["lobby"],
     opt=doc("404:unknown_game_type", ok=LobbyPage))
async def lobby(
    request: Request[Any, Any, Any], game_type: GameTypeQuery = None,
    status: FromQuery[Literal[STATUSES] | None] = None,  # type: ignore[valid-type]
    limit: PageLimit = 50,
) -> dict[str, Any]:
    types = [game_type] if game_type else list(game_types())
    if game_type and game_type not in game_types():
        raise ApiError(404, "unknown_game_type", f"unknown game type {game_type!r}")
    statuses = [status] if status else list(STATUSES)
    games = await _reads(request).lobby(types, statuses, min(limit, 500))
    return {"games": games}


@get("/leaderboards/{game_type:str}", summary="Ratings leaderboard of a game type", tags=["ratings"],
     opt=doc("404:unknown_game_type", ok=Leaderboard))
async def leaderboard(
    request: Request[Any, Any, Any], game_type: GameType, limit: PageLimit = 20
) -> dict[str, Any]:
    if game_type not in game_types():
        raise ApiError(404, "unknown_game_type", f"unknown game type {game_type!r}")
    return {"game_type": game_type, "players": await _reads(request).leaderboard(game_type, min(limit, 500))}


_ASYNCAPI_DOC: dict[str, Any] = {
    "ok": lambda shared: {"type": "object", "required": ["asyncapi", "info", "channels", "operations", "components"],
                          "description": "an AsyncAPI 3.0 document", "additionalProperties": True},
    "description": "The AsyncAPI document of the public integration events on the integration stream "
                   "(BENTHIC_INTEGRATION_STREAM): one channel per event type, each message's payload the event's "
                   "JSON Schema.  Guide: docs/INTEGRATION_EVENTS.md.",
}


@get("/asyncapi.json", summary="AsyncAPI document of the integration events", tags=["integration"],
     opt=doc(**_ASYNCAPI_DOC))
async def asyncapi(request: Request[Any, Any, Any]) -> Response[bytes]:
    state = request.app.state
    if state.get("asyncapi") is None:  # built once, on first demand: FastStream's generator is not free
        state.asyncapi = msgspec.json.encode(asyncapi_document(state.settings.integration_stream))
    return Response(state.asyncapi, media_type="application/json")


async def _games_gauge(reads: ReadModels, interval: float) -> None:
    while True:
        with contextlib.suppress(Exception):
            for (game_type, status), count in (await reads.counts(list(game_types()))).items():
                GAMES.labels(game_type, status).set(count)
        await asyncio.sleep(interval)


def create_app(settings: Settings, consume: bool = True) -> Litestar:
    packs = install_content(settings)

    @contextlib.asynccontextmanager
    async def reads(app: Litestar) -> AsyncIterator[None]:
        redis, store = app.state.redis, app.state.store
        updates = connect(settings, 4)  # the hub's own subscription
        loader = StateLoader(store, settings.state_cache_games, snapshot_every=0)
        archive = await open_archive_reader(settings, SERVICE)
        models = ReadModels(redis, store, ArchivedReads(archive) if archive else None, loader)
        hub = LiveHub(updates, models, settings.partitions, settings.live_streams_max, settings.live_buffer)
        revocations = Revocations(redis, settings.seat_token_ttl_s)
        gate = SeatGate(SeatTokens(settings.token_keys, settings.seat_token_ttl_s), revocations)
        app.state.update(reads=models, hub=hub, revocations=revocations, gate=gate,
                         projector=Projector(redis, store, loader, meta_cache_size=settings.state_cache_games,
                                             integration_stream=settings.integration_stream,
                                             integration_maxlen=settings.integration_maxlen))
        ready = readiness(app)
        ready.require("revocations", lambda: (revocations.synced_within(10.0), "the revocation list is stale"))
        ready.details["live_clients"] = lambda: hub.clients
        await revocations.start()
        await hub.start()
        gauge = asyncio.create_task(_games_gauge(models, settings.metrics_interval_s))
        zero_series(SERVICE, game_types())
        for event in EVENTS:
            INTEGRATION_EVENTS.labels(event_type(event))
        try:
            yield
        finally:
            gauge.cancel()
            await hub.stop()
            await revocations.stop()
            await updates.aclose()
            if archive is not None:
                await archive.close()

    def consumer(app: Litestar) -> FeedConsumer:
        return FeedConsumer(settings, GROUP, app.state.projector.handle, pause_s=settings.projection_pause_ms / 1000,
                            feed=FOLLOWS.feed)

    # A read API serves while replicas are missing: it acknowledges no write of its own.
    lifespans = [redis_lifespan(settings, needs_replicas=False), reads]
    if consume:
        lifespans.append(consumer_lifespan("consumer", consumer))
    return service_app(
        SERVICE, settings, lifespans,
        [public_view, seat_view, public_history, seat_history, public_live, seat_live, game_summary, scores, lobby,
         leaderboard, asyncapi, *web_routes()],
        started={"port": settings.projection_port, "content_packs": packs["packs"],
                 "rejected_packs": packs["rejected"]},
        cors_config=cors_config(settings),
        openapi_config=OpenAPIConfig(
            title="Benthic read API", version="1", components=Components(security_schemes=security_schemes(SEAT_TOKEN)),
            render_plugins=[FinishedJson(lambda: game_schemas().components), ScalarRenderPlugin()],
        ),
    )


__all__ = ["create_app"]
