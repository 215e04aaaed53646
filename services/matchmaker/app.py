"""The matchmaker service (port 8007): matchmaking tickets paired in waves, invitations, blocks and vacations,
event-sourced in Redis streams (store.py); health, readiness, metrics, and its OpenAPI at ``/schema``.

Who may call: a player's JWT acts for that player; a trusted backend (a JWT with scope ``benthic:matchmaker``) may
open, read and cancel tickets for a player it names (``player_id``), as it names the players of games it creates.
Invitations, blocks and vacations are the player's own.

The wiring of the service, in one place: the streams it writes (the pool and the players' streams, store.py), the
games it creates and pauses through the play path (benthic.play), what it publishes (``match.found`` and
``ticket.expired`` on the integration stream) and the one feed it follows (the lifecycle feeds, consumer group
``matchmaker``: a player's move that ends their vacation)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Annotated, Any

from litestar import Controller, HttpMethod, Litestar, Request, Response, delete, get, post, put, route
from litestar.openapi import OpenAPIConfig
from litestar.openapi.plugins import ScalarRenderPlugin
from litestar.openapi.spec import Components
from litestar.params import JSONBody, Parameter

from benthic.errors import JWT_AUTH, PLAYER_AUTH, WRITE, ApiError
from benthic.feed.consumer import FeedConsumer
from benthic.feed.system import follower
from benthic.game.content import install as install_content
from benthic.play import PlayerGames, PlayPath
from benthic.play.creation import GameCreation
from benthic.rules import game_types
from benthic.runtime.config import Settings, check_identity
from benthic.runtime.redisconn import on_primary_change
from benthic.runtime.telemetry import TICKETS_CLOSED, zero_series
from benthic.service.apidoc import FinishedJson, doc
from benthic.service.bootstrap import ack_of, consumer_lifespan, redis_lifespan, service_app, tasks_lifespan
from benthic.service.http import PLAYER_JWT, cors_config, refuse_deep_bodies, security_schemes
from benthic.store.loader import StateLoader
from benthic.trust.callers import caller_credential
from benthic.trust.identity import MATCHMAKER, PLAYER, PLAYER_ID, Credential, is_bot_player_id
from benthic.trust.provider import build_identity
from services.matchmaker.matchmaking import Matchmaking, invitation_view
from services.matchmaker.paces import PACES
from services.matchmaker.player import VacationPolicy
from services.matchmaker.schemas import (
    Answer,
    Blocks,
    InvitationRequest,
    Invitations,
    InvitationView,
    Pace,
    PlayerTickets,
    TicketRequest,
    TicketView,
    VacationRequest,
    VacationView,
)
from services.matchmaker.store import Streams
from services.matchmaker.upkeep import upkeep_loop
from services.matchmaker.vacations import Vacations
from services.matchmaker.waves import Waves

SERVICE = "matchmaker"
FOLLOWS = follower("matchmaker")  # the stream it follows, its group and mechanism: benthic.feed.system
GROUP = FOLLOWS.group
PlayerPath = Annotated[str, Parameter(pattern=PLAYER_ID.pattern, description="a player's id")]
ItemId = Annotated[str, Parameter(pattern=r"^[a-z]_[0-9a-f]{20}$", description="the id the matchmaker gave it")]
ForPlayer = Annotated[str | None, Parameter(pattern=PLAYER_ID.pattern, description="a backend: the player it acts for")]
TICKET_AUTH = (*JWT_AUTH, "player_only", "player_mismatch", "reserved_player_id", "invalid_request")
VACATION_CODES = ("already_on_vacation", "vacation_budget_exceeded", "not_on_vacation")


def _mm(request: Request[Any, Any, Any]) -> Matchmaking:
    return request.app.state.matchmaking  # type: ignore[no-any-return]


async def _credential(request: Request[Any, Any, Any], *kinds: str) -> Credential:
    return await caller_credential(
        request.headers.get("authorization"), request.app.state.settings.operator_token, request.app.state.identity,
        kinds,
        missing="send your JWT as `Authorization: Bearer <jwt>`",
        wrong_kind=lambda kind: ApiError(403, "player_only", f"this endpoint acts for a player: send the player's own "
                                                             f"JWT (or a backend's), not a {kind} credential"))


async def _player(request: Request[Any, Any, Any]) -> Credential:
    return await _credential(request, PLAYER)


async def _acting_for(request: Request[Any, Any, Any], named: str | None) -> tuple[str, str, str]:
    """(player id, display name, backend id or ''): a player acts for themselves; a backend for the player it
    names."""
    credential = await _credential(request, PLAYER, MATCHMAKER)
    if credential.kind == PLAYER:
        if named is not None and named != credential.subject:
            raise ApiError(403, "player_mismatch", f"a player acts as themselves ({credential.subject!r})")
        return credential.subject, credential.name or credential.subject, ""
    if named is None:
        raise ApiError(400, "invalid_request", "a backend names the player it acts for (player_id)")
    if is_bot_player_id(named):
        raise ApiError(400, "reserved_player_id", "bots do not queue: a bot seat is asked for in POST /games")
    return named, named, credential.subject


# --- tickets ----------------------------------------------------------------------------------------------------

_TICKETS = ["tickets"]


@post("/matchmaking/tickets", status_code=201, summary="Ask for a game: a ticket that waits for a table",
      tags=_TICKETS, security=[{PLAYER_JWT: []}],
      opt=doc(*TICKET_AUTH, "422:unknown_game_type", "invalid_seats", "unknown_pace", "invalid_option", "<rule>",
              "too_many_tickets", "too_many_open_games", "on_vacation", "too_many_conflicts", *WRITE))
async def open_ticket(request: Request[Any, Any, Any], data: JSONBody[TicketRequest]) -> TicketView:
    """The ticket waits, across disconnects, restarts and failovers, until it is matched (a game is created with
    its player in a seat: `game_id`, `seat`), cancelled or expired.  Each wave (every BENTHIC_MATCH_WAVE_S) pairs
    compatible tickets (game type, a seat count both accept, options, pace, rated) of players within each other's
    rating window, which widens with the waves missed; blocked players never meet.  A repeated `request_id` answers
    the same ticket."""
    player_id, name, by = await _acting_for(request, data.player_id)
    ticket = await _mm(request).open_ticket(player_id, data.name or name, data, by)
    pool = request.app.state.streams.pool.state
    return _mm(request).ticket_view(pool, ticket)


class TicketRoutes(Controller):
    path = "/matchmaking/tickets/{ticket_id:str}"
    tags = _TICKETS
    security = [{PLAYER_JWT: []}]

    @route(http_method=HttpMethod.OPTIONS, include_in_schema=False, status_code=204, sync_to_thread=False)
    def allowed_methods(self) -> Response[None]:
        return Response(None, status_code=204, headers={"Allow": "DELETE, GET, OPTIONS"})

    @get(summary="A ticket: its state, position and time waited", opt=doc(*TICKET_AUTH, "ticket_not_found"))
    async def get_ticket(self, request: Request[Any, Any, Any], ticket_id: ItemId,
                         player_id: ForPlayer = None) -> TicketView:
        player, _name, _by = await _acting_for(request, player_id)
        mm = _mm(request)
        ticket = await mm.ticket(player, ticket_id)
        return mm.ticket_view(request.app.state.streams.pool.state, ticket)

    @delete(summary="Cancel a waiting ticket", status_code=200,
            opt=doc(*TICKET_AUTH, "ticket_not_found", "ticket_closed", "too_many_conflicts", *WRITE))
    async def cancel_ticket(self, request: Request[Any, Any, Any], ticket_id: ItemId,
                            player_id: ForPlayer = None) -> TicketView:
        """`409 ticket_closed` once it is matched (`details.game_id`), expired or cancelled."""
        player, _name, by = await _acting_for(request, player_id)
        mm = _mm(request)
        ticket = await mm.cancel_ticket(player, ticket_id, by)
        TICKETS_CLOSED.labels("cancelled").inc()
        return mm.ticket_view(request.app.state.streams.pool.state, ticket)


@get("/players/me/tickets", summary="Your tickets (waiting, and closed recently)", tags=_TICKETS,
     security=[{PLAYER_JWT: []}], opt=doc(*TICKET_AUTH))
async def my_tickets(request: Request[Any, Any, Any], player_id: ForPlayer = None) -> PlayerTickets:
    """Newest first; matched, cancelled and expired tickets for BENTHIC_MATCH_KEEP_S after they closed."""
    player, _name, _by = await _acting_for(request, player_id)
    return await _mm(request).tickets(player)


@get("/matchmaking/paces", summary="The paces a ticket may ask for", tags=_TICKETS, sync_to_thread=False,
     opt=doc(store=False))
def paces() -> list[Pace]:
    """Each a clock preset of the game's `clock` option."""
    return [Pace(name, spec["text"], spec["clock"]) for name, spec in PACES.items()]


# --- invitations ------------------------------------------------------------------------------------------------

_INVITATIONS = ["invitations"]


@post("/invitations", status_code=201, summary="Invite players to a game", tags=_INVITATIONS,
      security=[{PLAYER_JWT: []}],
      opt=doc(*PLAYER_AUTH, "422:unknown_game_type", "invalid_seats", "unknown_pace", "invalid_option", "<rule>",
              "invalid_invitees", "invitee_blocked", "too_many_conflicts", *WRITE))
async def invite(request: Request[Any, Any, Any], data: JSONBody[InvitationRequest]) -> InvitationView:
    """Each invitee accepts or declines; the game starts (its `game_id` here, and in everyone's "your games") as soon
    as `seats` max are in, or once everyone answered and at least `seats` min are in; at `expires_in` it starts with
    those who accepted if they are enough, else it expires.  An invitee who blocks the inviter never sees it (and
    never answers)."""
    credential = await _player(request)
    invitation = await _mm(request).invite(credential.subject, data.name or credential.name or credential.subject,
                                           data)
    return invitation_view(request.app.state.streams.pool.state, invitation)


class InvitationRoutes(Controller):
    path = "/invitations/{invitation_id:str}"
    tags = _INVITATIONS
    security = [{PLAYER_JWT: []}]

    @route(http_method=HttpMethod.OPTIONS, include_in_schema=False, status_code=204, sync_to_thread=False)
    def allowed_methods(self) -> Response[None]:
        return Response(None, status_code=204, headers={"Allow": "DELETE, GET, OPTIONS"})

    @get(summary="An invitation you sent or received", opt=doc(*PLAYER_AUTH, "invitation_not_found"))
    async def get_invitation(self, request: Request[Any, Any, Any], invitation_id: ItemId) -> InvitationView:
        credential = await _player(request)
        invitation = await _mm(request).invitation(credential.subject, invitation_id)
        return invitation_view(request.app.state.streams.pool.state, invitation)

    @delete(summary="Cancel an invitation you sent", status_code=200,
            opt=doc(*PLAYER_AUTH, "invitation_not_found", "invitation_closed", "too_many_conflicts", *WRITE))
    async def cancel_invitation(self, request: Request[Any, Any, Any], invitation_id: ItemId) -> InvitationView:
        credential = await _player(request)
        invitation = await _mm(request).cancel_invitation(credential.subject, invitation_id)
        return invitation_view(request.app.state.streams.pool.state, invitation)


async def _answer(request: Request[Any, Any, Any], invitation_id: str, name: str, accepted: bool) -> InvitationView:
    credential = await _player(request)
    invitation = await _mm(request).answer(credential.subject, name or credential.name or credential.subject,
                                           invitation_id, accepted)
    request.app.state.waves.kick()
    return invitation_view(request.app.state.streams.pool.state, invitation)


_ANSWER_CODES = (*PLAYER_AUTH, "invitation_not_found", "invitation_closed", "too_many_conflicts", *WRITE)


@post("/invitations/{invitation_id:str}/accept", status_code=200, summary="Accept an invitation",
      tags=_INVITATIONS, security=[{PLAYER_JWT: []}], opt=doc(*_ANSWER_CODES))
async def accept(request: Request[Any, Any, Any], invitation_id: ItemId, data: JSONBody[Answer]) -> InvitationView:
    """`name`: how you appear at the table (default: your JWT's name)."""
    return await _answer(request, invitation_id, data.name, True)


@post("/invitations/{invitation_id:str}/decline", status_code=200, summary="Decline an invitation",
      tags=_INVITATIONS, security=[{PLAYER_JWT: []}], opt=doc(*_ANSWER_CODES))
async def decline(request: Request[Any, Any, Any], invitation_id: ItemId, data: JSONBody[Answer]) -> InvitationView:
    return await _answer(request, invitation_id, data.name, False)


@get("/players/me/invitations", summary="The invitations you sent and received", tags=_INVITATIONS,
     security=[{PLAYER_JWT: []}], opt=doc(*PLAYER_AUTH))
async def my_invitations(request: Request[Any, Any, Any]) -> Invitations:
    credential = await _player(request)
    sent, received = await _mm(request).invitations(credential.subject)
    return Invitations(credential.subject, sent, received)


# --- blocks -----------------------------------------------------------------------------------------------------

_BLOCKS = ["blocks"]


class BlockRoutes(Controller):
    path = "/players/me/blocks/{player_id:str}"
    tags = _BLOCKS
    security = [{PLAYER_JWT: []}]

    @route(http_method=HttpMethod.OPTIONS, include_in_schema=False, status_code=204, sync_to_thread=False)
    def allowed_methods(self) -> Response[None]:
        return Response(None, status_code=204, headers={"Allow": "DELETE, OPTIONS, PUT"})

    @put(summary="Block a player: never at your table, their invitations unseen", status_code=200,
         opt=doc(*PLAYER_AUTH, "cannot_block_self", "too_many_blocks", "too_many_conflicts", *WRITE))
    async def block(self, request: Request[Any, Any, Any], player_id: PlayerPath) -> Blocks:
        credential = await _player(request)
        return await _mm(request).block(credential.subject, player_id, True)

    @delete(summary="Unblock a player", status_code=200,
            opt=doc(*PLAYER_AUTH, "cannot_block_self", "too_many_conflicts", *WRITE))
    async def unblock(self, request: Request[Any, Any, Any], player_id: PlayerPath) -> Blocks:
        credential = await _player(request)
        return await _mm(request).block(credential.subject, player_id, False)


@get("/players/me/blocks", summary="The players you block", tags=_BLOCKS, security=[{PLAYER_JWT: []}],
     opt=doc(*PLAYER_AUTH))
async def my_blocks(request: Request[Any, Any, Any]) -> Blocks:
    credential = await _player(request)
    return await _mm(request).blocks(credential.subject)


# --- vacation ---------------------------------------------------------------------------------------------------

_VACATION = ["vacation"]


class VacationRoutes(Controller):
    path = "/players/me/vacation"
    tags = _VACATION
    security = [{PLAYER_JWT: []}]

    @route(http_method=HttpMethod.OPTIONS, include_in_schema=False, status_code=204, sync_to_thread=False)
    def allowed_methods(self) -> Response[None]:
        return Response(None, status_code=204, headers={"Allow": "DELETE, GET, OPTIONS, POST"})

    @get(summary="Your vacation: under way or not, the days you may take, the policy, the history",
         opt=doc(*PLAYER_AUTH))
    async def get_vacation(self, request: Request[Any, Any, Any]) -> VacationView:
        credential = await _player(request)
        state = (await request.app.state.streams.players([credential.subject]))[credential.subject]
        return _mm(request).vacation_view(credential.subject, state)

    @post(summary="Go on vacation: your clocks stop in every game you sit in", status_code=200,
          opt=doc(*PLAYER_AUTH, "already_on_vacation", "vacation_budget_exceeded", "too_many_conflicts", *WRITE))
    async def start_vacation(self, request: Request[Any, Any, Any], data: JSONBody[VacationRequest]) -> VacationView:
        """`days` from the budget (`available_days`): a platform event in each of your unfinished games stops your
        clock there until the vacation ends (its days run out, `DELETE`, or your first move in any game).  Charged
        the days it lasted, rounded up, at least the policy's minimum."""
        credential = await _player(request)
        state = await request.app.state.vacations.start(credential.subject, data.days)
        return _mm(request).vacation_view(credential.subject, state)

    @delete(summary="Come back from vacation early", status_code=200,
            opt=doc(*PLAYER_AUTH, "not_on_vacation", "too_many_conflicts", *WRITE))
    async def end_vacation(self, request: Request[Any, Any, Any]) -> VacationView:
        credential = await _player(request)
        state = await request.app.state.vacations.end(credential.subject, "returned")
        return _mm(request).vacation_view(credential.subject, state)


def create_app(settings: Settings) -> Litestar:
    check_identity(settings)
    install_content(settings)

    @contextlib.asynccontextmanager
    async def matchmaker(app: Litestar) -> AsyncIterator[None]:
        identity, _dev_issuer = build_identity(settings)
        redis, store = app.state.redis, app.state.store
        policy = VacationPolicy(settings.vacation_initial_days, settings.vacation_days_per_month,
                                settings.vacation_cap_days, settings.vacation_min_charge_days)
        streams = Streams(redis, ack_of(settings), policy, settings.conflict_retries,
                          keep_ms=settings.match_keep_s * 1000)
        forget = on_primary_change(streams.primary_changed)
        players = PlayerGames(redis, store, settings.max_open_games_per_player)
        play = PlayPath(store, StateLoader(store, 1000, settings.snapshot_every), players, settings.conflict_retries)
        waves = Waves(streams, GameCreation(store, play, players), settings, redis)
        vacations = Vacations(streams, play, players, redis)
        app.state.update(identity=identity, streams=streams, waves=waves, vacations=vacations,
                         matchmaking=Matchmaking(streams, redis, players, settings))
        zero_series(SERVICE, game_types(), (GROUP,))
        try:
            yield
        finally:
            forget()

    def consumer(app: Litestar) -> FeedConsumer:
        return FeedConsumer(settings, GROUP, app.state.vacations.handle, pause_s=0.05, feed=FOLLOWS.feed)

    def loops(app: Litestar) -> list[Any]:
        return [app.state.waves.run(), upkeep_loop(app.state.streams, app.state.vacations, settings)]

    return service_app(
        SERVICE, settings,
        [redis_lifespan(settings), matchmaker, consumer_lifespan("lifecycle_consumer", consumer),
         tasks_lifespan("waves", loops, settings, stop=lambda app: app.state.waves.stop())],
        [open_ticket, TicketRoutes, my_tickets, paces, invite, InvitationRoutes, accept, decline, my_invitations,
         BlockRoutes, my_blocks, VacationRoutes],
        started={"port": settings.matchmaker_port, "wave_s": settings.match_wave_s},
        request_max_body_size=settings.max_body_bytes,
        cors_config=cors_config(settings),
        before_request=refuse_deep_bodies,
        openapi_config=OpenAPIConfig(
            title="Benthic matchmaker API", version="1",
            components=Components(security_schemes=security_schemes(PLAYER_JWT)),
            render_plugins=[FinishedJson(), ScalarRenderPlugin()],
        ),
    )

