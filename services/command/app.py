"""The command service's HTTP API (Litestar, OpenAPI at /schema)."""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

import msgspec
import structlog
from litestar import Litestar, Request, Response, get, post
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin
from litestar.openapi.spec import Components
from litestar.params import FromQuery, JSONBody, Parameter

from benthic.errors import FOLD, GAME_BY_ID, JWT_AUTH, OPERATOR_AUTH, PLAYER_AUTH, RULE, SEAT_AUTH, WRITE, ApiError
from benthic.game.content import install as install_content
from benthic.game.gameschemas import commands_schema, create_game_schema, game_schemas, redacted_events_schema
from benthic.play import PlayerGames, platform_commits
from benthic.rules import game_types, get_engine
from benthic.runtime.config import Settings, check_identity
from benthic.runtime.redisconn import connect
from benthic.runtime.telemetry import TOKENS_REVOKED, log, zero_series
from benthic.service.apidoc import FinishedJson, doc
from benthic.service.bootstrap import readiness, redis_lifespan, service_app
from benthic.service.http import (
    OPERATOR,
    PLAYER_JWT,
    SEAT_TOKEN,
    GameId,
    GameType,
    cors_config,
    open_archive_reader,
    refuse_deep_bodies,
    security_schemes,
)
from benthic.service.languages import Lang, language_headers, request_language
from benthic.store import Actor
from benthic.store.loader import StateLoader
from benthic.trust.auth import SeatClaim, SeatGate, SeatTokens, bearer
from benthic.trust.callers import caller_credential
from benthic.trust.devissuer import INSECURE_WARNING, DevIssuer
from benthic.trust.identity import (
    MATCHMAKER,
    PLAYER,
    PLAYER_ID,
    Credential,
)
from benthic.trust.identity import OPERATOR as OPERATOR_KIND
from benthic.trust.provider import build_identity
from benthic.trust.ratelimit import RateLimits
from benthic.trust.revocation import GAME, Revocation, Revocations
from benthic.trust.revocation import PLAYER as PLAYER_SCOPE
from benthic.views.live import LiveHub
from benthic.views.reads import ReadModels
from services.command import gametypes
from services.command.devtoken import dev_token
from services.command.play_socket import play_socket
from services.command.schemas import (
    ID_PATTERN,
    CommandAccepted,
    CommandRequest,
    CreateGame,
    GameCreated,
    Joined,
    JoinGame,
    LegalCommands,
    PlayerSeats,
    SeatToken,
    UndoDone,
    UndoRequest,
)
from services.command.seating import NAME_PATTERN, SeatRequest, check_player_id
from services.command.service import CommandService
from services.command.turns import TurnPushes

SERVICE = "command"
NO_STORE = {"Cache-Control": "no-store"}  # answers that carry seat tokens


def _service(request: Request[Any, Any, Any]) -> CommandService:
    return request.app.state.service  # type: ignore[no-any-return]


def _ip(request: Request[Any, Any, Any]) -> str | None:
    return request.client.host if request.client else None


async def _credential(request: Request[Any, Any, Any], *kinds: str) -> Credential:
    """The caller's credential (a JWT of the identity provider, or the operator token), if of one of ``kinds``."""
    return await caller_credential(
        request.headers.get("authorization"), request.app.state.settings.operator_token, request.app.state.identity,
        kinds, missing="send your JWT as `Authorization: Bearer <jwt>`",
        wrong_kind=lambda kind: ApiError(403, "player_only", f"this endpoint acts for a player: send the player's "
                                                             f"own JWT, not a {kind} credential"))


@contextlib.contextmanager
def _acting(actor: str, kind: str) -> Any:
    """Every log line of the request names who acted and with which credential."""
    with structlog.contextvars.bound_contextvars(actor=actor, actor_kind=kind):
        yield


_CACHEABLE: dict[str, Any] = {
    "ok": {"type": "object"}, "not_modified": True, "store": False,
    "ok_headers": {"ETag": "a strong entity tag of the document", "Cache-Control": "public, max-age (immutable with "
                   "the current `?v=`)", "X-Benthic-Content-Version": "the content version the document describes"},
}


def _create_game_body(components: dict[str, Any]) -> dict[str, Any]:
    _, seat = msgspec.json.schema_components([SeatRequest])
    return create_game_schema(seat["SeatRequest"])


def _refine(document: dict[str, Any]) -> dict[str, Any]:
    """The bodies that carry one game type's commands and events, typed per game type."""
    schemas = document["components"]["schemas"]
    schemas["CommandRequest"]["properties"]["command"] = {
        **commands_schema(), "description": "a command of the game's type, as `/legal` lists it"}
    schemas["LegalCommands"]["properties"]["commands"]["items"] = commands_schema()
    accepted = schemas["CommandAccepted"]["properties"]
    accepted["events"]["items"] = {
        "type": "object", "required": ["version", "event"],
        "properties": {"version": {"type": "integer", "minimum": 1}, "event": {
            "anyOf": [redacted_events_schema(), {"type": "null"}],
            "description": "the event as the caller's seat sees it; null: an event it sees nothing of (another seat's "
                           "hidden draw, say), whose version still counts (the history leaves such events out)"}}}
    accepted["legal"] = {"anyOf": [{"type": "array", "items": commands_schema()}, {"type": "null"}], "default": None}
    return document


@post("/games", status_code=201, summary="Create a game", tags=["lobby"],
      security=[{PLAYER_JWT: []}, {OPERATOR: []}],
      opt=doc(*JWT_AUTH, "rate_limited", "422:unknown_game_type", "seed_requires_operator", "player_mismatch",
              "duplicate_player", "creator_not_seated", "too_many_open_games", "unknown_bot", "invalid_bot_level",
              "reserved_player_id", "invalid_option", RULE, *WRITE,
              body=_create_game_body))
async def create_game(request: Request[Any, Any, Any], data: JSONBody[CreateGame]) -> Response[GameCreated]:
    """A **player** creates a game for themselves: their own seat (`{}` or `{"player_id": <their sub>}`) and
    open seats (`null`); the answer holds their seat token.  A **trusted backend** (JWT with scope
    `benthic:matchmaker`) names the players of every seat; the answer holds no token: each player gets theirs
    with their own JWT (`POST /games/{id}/token`).  `rated` (default true) asks for a rated game: it is rated only
    when unseeded and every seat is held by an authenticated player.  A fixed `seed` needs an operator."""
    credential = await _credential(request, PLAYER, MATCHMAKER, OPERATOR_KIND)
    if not credential.trusted:
        await request.app.state.limits.hit("create", credential.subject, _ip(request))
    with _acting(credential.subject, credential.kind):
        created = await _service(request).lobby.create(data, credential, seed_allowed=credential.kind == OPERATOR_KIND)
    return Response(created, status_code=201, headers=NO_STORE)


@post("/games/{game_id:str}/join", status_code=200, summary="Take an open seat", tags=["lobby"],
      security=[{PLAYER_JWT: []}],
      opt=doc(*PLAYER_AUTH, "rate_limited", "player_mismatch", *GAME_BY_ID, "game_finished", "no_open_seat",
              "seat_taken", "already_seated", "no_such_seat", "too_many_open_games", *WRITE))
async def join_game(request: Request[Any, Any, Any], game_id: GameId, data: JSONBody[JoinGame]) -> Response[Joined]:
    """The caller (a player's JWT) takes an open seat (`seat`, or the first open one) as themselves."""
    credential = await _credential(request, PLAYER)
    await request.app.state.limits.hit("join", credential.subject, _ip(request))
    with _acting(credential.subject, credential.kind):
        return Response(await _service(request).lobby.join(game_id, data, credential), headers=NO_STORE)


@post("/games/{game_id:str}/token", status_code=200, summary="A fresh seat token for your seat", tags=["lobby"],
      security=[{PLAYER_JWT: []}], opt=doc(*PLAYER_AUTH, "rate_limited", *GAME_BY_ID, "game_finished", "not_seated"))
async def seat_token(request: Request[Any, Any, Any], game_id: GameId) -> Response[SeatToken]:
    """Refresh an expiring or revoked seat token, or fetch it on another device: the caller's JWT proves who
    they are, the answer is a new token for the seat they hold in this game."""
    credential = await _credential(request, PLAYER)
    await request.app.state.limits.hit("token", credential.subject, _ip(request))
    with _acting(credential.subject, credential.kind):
        return Response(await _service(request).lobby.seat_token(game_id, credential), headers=NO_STORE)


@get("/players/me/seats", summary="Your seats in unfinished games, with fresh tokens", tags=["lobby"],
     security=[{PLAYER_JWT: []}], opt=doc(*PLAYER_AUTH, "rate_limited"))
async def my_seats(request: Request[Any, Any, Any]) -> Response[PlayerSeats]:
    """Reconnect: every unfinished game the caller holds a seat in, each with a fresh seat token."""
    credential = await _credential(request, PLAYER)
    await request.app.state.limits.hit("token", credential.subject, _ip(request))
    with _acting(credential.subject, credential.kind):
        return Response(await _service(request).lobby.player_seats(credential), headers=NO_STORE)


async def _seat_claim(request: Request[Any, Any, Any]) -> SeatClaim:
    gate: SeatGate = request.app.state.gate
    return await gate.verify(bearer(request.headers.get("authorization")))


@post("/games/{game_id:str}/commands", status_code=200, summary="Play a command", tags=["play"],
      security=[{SEAT_TOKEN: []}],
      opt=doc(*SEAT_AUTH, "rate_limited", *GAME_BY_ID, *FOLD, "malformed_command", "unknown_command_type", "seats_open",
              "game_finished", "version_conflict", "too_many_conflicts", "seat_taken_over", "seat_resigned", RULE,
              *WRITE))
async def post_command(
    request: Request[Any, Any, Any], game_id: GameId, data: JSONBody[CommandRequest],
    include: FromQuery[Literal["legal"] | None] = None,
    lang: Lang = None,
) -> Response[CommandAccepted]:
    """`command` is the game command's JSON (as listed by `/legal`).  A repeated `command_id` returns the
    first answer.  `?include=legal` adds the next prompt and the caller's legal commands to the answer, their
    labels in the language of `?lang=` or `Accept-Language`.
    Errors: 400 malformed, 401 token (missing, invalid, expired, revoked), 403 token of another game,
    404 game, 409 stale `expected_version`, 413 too large, 422 rule violation (`code` names the rule),
    429 rate limit."""
    claim = await _seat_claim(request)
    await request.app.state.limits.hit("command", claim.player_id, _ip(request))
    with _acting(claim.player_id, PLAYER):
        language = request_language(request, lang)
        accepted = await _service(request).command(game_id, claim, data, include_legal=include == "legal",
                                                   language=language)
        return Response(accepted, headers=language_headers(language))


@get("/games/{game_id:str}/legal", summary="The caller's legal commands", tags=["play"],
     security=[{SEAT_TOKEN: []}], opt=doc(*SEAT_AUTH, *GAME_BY_ID, *FOLD, "game_finished",
                                          ok_headers={"Content-Language": "the language of the labels"}))
async def legal_commands(
    request: Request[Any, Any, Any], game_id: GameId, lang: Lang = None
) -> Response[LegalCommands]:
    """`labels` are in the language of `?lang=` or `Accept-Language` (`Content-Language` says which)."""
    claim = await _seat_claim(request)
    language = request_language(request, lang)
    return Response(await _service(request).legal(game_id, claim, language), headers=language_headers(language))


@get("/games/{game_id:str}/ops/state", summary="Operator: the unredacted state", tags=["operator"],
     security=[{OPERATOR: []}],
     opt=doc(*OPERATOR_AUTH, *GAME_BY_ID, *FOLD, "game_finished", ok={"type": "object"},
             also={"application/msgpack": {"type": "string", "contentMediaType": "application/msgpack"}},
             description="`?format=msgpack` answers `application/msgpack` (the engine's own encoding)."))
async def operator_state(
    request: Request[Any, Any, Any], game_id: GameId, format: FromQuery[Literal["json", "msgpack"]] = "json"
) -> Response[Any]:
    """The whole state, secrets included: JSON for people, `?format=msgpack` for programs (the engine's own
    encoding, decodable with `engine.decode_state`; the house bots of the demo use it)."""
    await _credential(request, OPERATOR_KIND)
    service = _service(request)
    meta = await service.meta(game_id)
    engine = get_engine(meta.game_type)
    folded = await service.play.load(game_id, engine)
    headers = {"X-Benthic-Version": str(folded.version), "X-Benthic-Engine-Version": engine.version}
    if format == "msgpack":
        return Response(engine.encode_state(folded.state), media_type="application/msgpack", headers=headers)
    body = {"meta": msgspec.to_builtins(meta), "version": folded.version, "state": msgspec.to_builtins(folded.state)}
    return Response(body, headers=headers)


@get("/games/{game_id:str}/ops/audit", summary="Operator: who made each entry of the game's stream", tags=["operator"],
     security=[{OPERATOR: []}], opt=doc(*OPERATOR_AUTH, *GAME_BY_ID, "game_finished"))
async def operator_audit(request: Request[Any, Any, Any], game_id: GameId) -> dict[str, Any]:
    """Every stream entry's audit metadata: version, type, kind (engine `e` / platform `p`), time, command id,
    seat, and the acting player (or backend) with its credential kind."""
    await _credential(request, OPERATOR_KIND)
    service = _service(request)
    await service.meta(game_id)
    entries = await service.store.load(game_id)
    return {
        "game_id": game_id,
        "entries": [
            {"version": e.version, "type": e.type, "kind": e.kind, "ts_ms": e.ts_ms, "command_id": e.command_id,
             "seat": e.seat, "actor": e.actor or None, "actor_kind": e.actor_kind or None}
            for e in entries
        ],
    }


class LifecycleDone(msgspec.Struct, frozen=True):
    game_id: str
    version: int  # the game's version after the commit
    duplicate: bool  # this command id was applied before (nothing new)


class AbortGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=200, pattern=NAME_PATTERN)]  # in game_aborted


LifecycleCommandId = Annotated[str | None, Parameter(
    pattern=ID_PATTERN, description="makes a retry safe: a repeat returns the first answer")]
_LIFECYCLE_ERRORS = (*SEAT_AUTH, "rate_limited", *GAME_BY_ID, *FOLD, "game_finished", "seat_resigned",
                     "too_many_conflicts", *WRITE)


async def _lifecycle(
    request: Request[Any, Any, Any], game_id: str, command_id: str | None, action: Any
) -> LifecycleDone:
    claim = await _seat_claim(request)
    SeatGate.authorize(claim, game_id)
    await request.app.state.limits.hit("command", claim.player_id, _ip(request))
    with _acting(claim.player_id, PLAYER):
        service = _service(request)
        cid = command_id or f"{action.__name__}:{game_id}:{claim.seat}:{secrets.token_hex(6)}"
        commit, _ = await service.play.platform(
            game_id, cid, Actor(claim.player_id, PLAYER),
            lambda engine, meta, folded: action(engine, meta, folded, claim.seat, claim.player_id))
    assert commit is not None
    return LifecycleDone(game_id, commit.last_version, commit.duplicate)


@post("/games/{game_id:str}/resign", status_code=200, summary="Resign your seat", tags=["play"],
      security=[{SEAT_TOKEN: []}], opt=doc(*_LIFECYCLE_ERRORS))
async def resign_seat(
    request: Request[Any, Any, Any], game_id: GameId, command_id: LifecycleCommandId = None
) -> LifecycleDone:
    """The caller's seat resigns (any time): it is ranked last; the house bot plays it on, or the game ends
    when fewer than two seats remain in play.  `?command_id=` makes a retry safe."""
    return await _lifecycle(request, game_id, command_id, platform_commits.resign)


@post("/games/{game_id:str}/reclaim", status_code=200, summary="Take your seat back from the house bot",
      tags=["play"], security=[{SEAT_TOKEN: []}], opt=doc(*_LIFECYCLE_ERRORS, "seat_not_taken_over"))
async def reclaim_seat(
    request: Request[Any, Any, Any], game_id: GameId, command_id: LifecycleCommandId = None
) -> LifecycleDone:
    """After a clock takeover (policy `takeover`), the player plays their seat again with a fresh clock.
    `409 seat_not_taken_over` when the seat is not taken over, `409 seat_resigned` after a resignation."""
    return await _lifecycle(request, game_id, command_id, platform_commits.reclaim)


@post("/games/{game_id:str}/undo", status_code=200, summary="Take back your last move", tags=["play"],
      security=[{SEAT_TOKEN: []}],
      opt=doc(*SEAT_AUTH, "rate_limited", *GAME_BY_ID, *FOLD, "seats_open", "game_finished", "version_conflict",
              "undo_not_allowed", "seat_taken_over", "seat_resigned",
              "too_many_conflicts", *WRITE))
async def undo_move(request: Request[Any, Any, Any], game_id: GameId, data: JSONBody[UndoRequest]) -> UndoDone:
    """The caller's seat takes back its last commit of the game while that commit revealed nothing (no card
    drawn or shown, nothing random, nothing hidden seen, the decision still the seat's) and no other seat has
    acted since; again, and the commit before goes too.  The stream keeps both: a `command_undone` event voids
    the commit, views fold as if it was never played.  `command_id` is the undo's own id (a repeat returns the
    first answer); `expected_version` pins the state as for commands.  `409 undo_not_allowed` says why not in
    `details.reason`: `nothing_to_undo`, `reveals_information`, `another_seat_acted`, `undo_off` (the game's
    option `undo`), `game_over`."""
    claim = await _seat_claim(request)
    await request.app.state.limits.hit("command", claim.player_id, _ip(request))
    with _acting(claim.player_id, PLAYER):
        return await _service(request).undo(game_id, claim, data)


@post("/games/{game_id:str}/ops/abort", status_code=200, summary="Operator: abort a game (unrated)",
      tags=["operator"], security=[{OPERATOR: []}],
      opt=doc(*OPERATOR_AUTH, *GAME_BY_ID, *FOLD, "game_finished", "too_many_conflicts", *WRITE))
async def abort_game(request: Request[Any, Any, Any], game_id: GameId, data: JSONBody[AbortGame]) -> LifecycleDone:
    """The game ends now, unrated, with `reason` recorded (`game_aborted` in its history)."""
    operator = await _credential(request, OPERATOR_KIND)
    with _acting(operator.subject, operator.kind):
        commit, _ = await _service(request).play.platform(
            game_id, f"abort:{game_id}", Actor(operator.subject, operator.kind),
            lambda engine, meta, folded: platform_commits.abort(engine, meta, folded, data.reason, operator.subject))
    assert commit is not None
    return LifecycleDone(game_id, commit.last_version, commit.duplicate)


class Revoked(msgspec.Struct, frozen=True):
    scope: str  # "game" | "player"
    target: str
    revoked_before_ms: int  # seat tokens of the target issued at or before this moment are refused


async def _revoke(request: Request[Any, Any, Any], operator: Credential, scope: str, target: str) -> Revoked:
    revocations: Revocations = request.app.state.revocations
    with _acting(operator.subject, operator.kind):
        done: Revocation = await revocations.revoke(scope, target, operator.subject)
        TOKENS_REVOKED.labels(scope).inc()
        log().warning("seat_tokens_revoked", scope=scope, target=target, before_ms=done.before_ms)
    return Revoked(scope, target, done.before_ms)


@post("/games/{game_id:str}/ops/revoke", status_code=200, summary="Operator: revoke every seat token of a game",
      tags=["operator"], security=[{OPERATOR: []}], opt=doc(*OPERATOR_AUTH, *GAME_BY_ID, "game_finished"))
async def revoke_game(request: Request[Any, Any, Any], game_id: GameId) -> Revoked:
    """Every seat token of the game issued until now is refused from now on, on every replica (within a second);
    its players get new ones with their JWTs."""
    operator = await _credential(request, OPERATOR_KIND)
    await _service(request).meta(game_id)
    return await _revoke(request, operator, GAME, game_id)


@post("/players/{player_id:str}/ops/revoke", status_code=200,
      summary="Operator: revoke every seat token of a player", tags=["operator"], security=[{OPERATOR: []}],
      opt=doc(*OPERATOR_AUTH, "invalid_request", "reserved_player_id"))
async def revoke_player(request: Request[Any, Any, Any], player_id: Annotated[str, Parameter(
        pattern=PLAYER_ID.pattern, description="1-128 of [A-Za-z0-9_.:@|+-]")]) -> Revoked:
    """Every seat token of the player, in every game, issued until now is refused from now on (to lock a
    player out for good, also disable them at the identity provider)."""
    operator = await _credential(request, OPERATOR_KIND)
    check_player_id(player_id, "player_id")
    return await _revoke(request, operator, PLAYER_SCOPE, player_id)


@get("/game-types", summary="Registered game types", tags=["lobby"], sync_to_thread=False, opt=doc(store=False))
def list_game_types() -> list[gametypes.GameTypeEntry]:
    return gametypes.game_type_entries()


@get("/.well-known/jwks.json", summary="Dev mode: the development issuer's public keys", tags=["identity"],
     sync_to_thread=False, opt=doc(store=False))
def dev_jwks(request: Request[Any, Any, Any]) -> dict[str, Any]:
    """Only without an identity provider (dev mode): the JWKS of the built-in, insecure development issuer."""
    issuer: DevIssuer = request.app.state.dev_issuer
    return issuer.jwks()


@get("/game-types/{game_type:str}", summary="A game type: seats, options, commands, content version",
     tags=["content"], sync_to_thread=False,
     opt=doc("404:unknown_game_type", **{**_CACHEABLE, "ok": gametypes.GameType}))
def game_type(
    request: Request[Any, Any, Any], game_type: GameType, v: FromQuery[str | None] = None, lang: Lang = None
) -> Response[Any]:
    """Cacheable (strong `ETag`, `If-None-Match` → 304, long `max-age`); `?v=<content version>` pins it.  The name
    and the options' texts are in the language of `?lang=` or `Accept-Language`."""
    document = gametypes.game_type_document(game_type, request_language(request, lang))
    return gametypes.answer(document, request.headers.get("if-none-match"), v)


PackQuery = Annotated[str | None, Parameter(
    max_length=200, description="a content pack: `id` (its newest installed version) or `id@version`, as a game's "
                                "option `content` names it (and its lobby card's `content_pack`); default: the "
                                "default pack")]


@get("/game-types/{game_type:str}/content", summary="The content catalogue of a game type", tags=["content"],
     sync_to_thread=False,
     opt=doc("404:unknown_game_type", "unknown_content_pack", "content_pack_unavailable",
             **{**_CACHEABLE, "ok_headers": {**_CACHEABLE["ok_headers"],
                                            "X-Benthic-Content-Pack": "the pack (`id@version`) it is drawn from",
                                            "Content-Language": "the language of the texts"}}))
def game_type_content(request: Request[Any, Any, Any], game_type: GameType, v: FromQuery[str | None] = None,
                      pack: PackQuery = None, lang: Lang = None) -> Response[Any]:
    """Every card, tile, board, space, track, term and option, with texts and geometry (see
    docs/ENGINE_CONTRACT.md), of the default content pack or of `?pack=`.  Cacheable like `/game-types/{type}`.
    The game's name and the names and texts of its terms, boards, tracks and options are in the language of
    `?lang=` or `Accept-Language` (`Content-Language` says which; English by default)."""
    document = gametypes.content_document(game_type, pack, request_language(request, lang))
    return gametypes.answer(document, request.headers.get("if-none-match"), v)


def create_app(settings: Settings) -> Litestar:
    check_identity(settings)
    dev_mode = not (settings.jwks_url or settings.jwks_file)
    packs = install_content(settings)

    @contextlib.asynccontextmanager
    async def commands(app: Litestar) -> AsyncIterator[None]:
        identity, dev_issuer = build_identity(settings)
        redis, store = app.state.redis, app.state.store
        loader = StateLoader(store, settings.state_cache_games, settings.snapshot_every)
        tokens = SeatTokens(settings.token_keys, settings.seat_token_ttl_s)
        revocations = Revocations(redis, settings.seat_token_ttl_s)
        limits = RateLimits(settings)
        players = PlayerGames(redis, store, settings.max_open_games_per_player)
        archive = await open_archive_reader(settings, SERVICE)
        await revocations.start()
        updates = connect(settings, 4)  # the view pushes' subscription (play_socket ?push=views), held only in use
        hub = LiveHub(updates, ReadModels(redis, store), settings.partitions, settings.live_streams_max,
                      settings.live_buffer)
        await hub.start()
        app.state.update(
            tokens=tokens, revocations=revocations, limits=limits, identity=identity, hub=hub,
            dev_issuer=dev_issuer, gate=SeatGate(tokens, revocations), turn_pushes=TurnPushes(),
            service=CommandService(store, loader, tokens, settings.conflict_retries, players, archive),
        )
        ready = readiness(app)
        ready.require("revocations", lambda: (revocations.synced_within(10.0), "the revocation list is stale"))
        ready.require("game_types", lambda: (bool(game_types()), "no game type registered"))
        ready.details["game_types"] = lambda: list(game_types())
        zero_series(SERVICE, game_types())
        for game in game_types():  # built (and their data checked) now, not on the first request
            gametypes.content_document(game)
        if dev_issuer is not None:
            log().warning("insecure_dev_issuer", message=INSECURE_WARNING, keys=settings.dev_issuer_dir,
                          jwks="/.well-known/jwks.json")
        log().info("service_started", port=settings.command_port, game_types=list(game_types()),
                   identity="dev-issuer" if dev_issuer else settings.jwks_url or settings.jwks_file,
                   content_packs=packs["packs"], rejected_packs=packs["rejected"])
        try:
            yield
        finally:
            await hub.stop()
            await updates.aclose()
            await revocations.stop()
            await limits.aclose()
            if archive is not None:
                await archive.close()

    routes: list[Any] = [create_game, join_game, seat_token, my_seats, post_command, play_socket, legal_commands,
                         resign_seat, reclaim_seat, undo_move, abort_game, operator_state, operator_audit, revoke_game,
                         revoke_player, list_game_types, game_type, game_type_content]
    if dev_mode:
        routes += [dev_jwks, dev_token]
    return service_app(
        SERVICE, settings, [redis_lifespan(settings), commands], routes,
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors_config(settings),
        before_request=refuse_deep_bodies,
        openapi_config=OpenAPIConfig(
            title="Benthic command API", version="1", components=Components(security_schemes=security_schemes()),
            render_plugins=[FinishedJson(lambda: game_schemas().components, _refine), ScalarRenderPlugin()],
        ),
    )
