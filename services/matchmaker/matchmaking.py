"""What the matchmaker's routes do: tickets, invitations, blocks and vacations, each a decision on a folded stream
made through :meth:`Streams.transact` (store.py).  The waves are waves.py; the vacations' platform events in the
games, vacations.py."""

from __future__ import annotations

import hashlib
import secrets
import time
from typing import Any

from benthic.errors import ApiError
from benthic.game.keys import RatingKeys
from benthic.play import PlayerGames
from benthic.play.creation import check_options
from benthic.rules import UnknownGameType, game_types, get_engine
from benthic.runtime.config import Settings
from benthic.runtime.telemetry import TICKETS_OPENED
from benthic.trust.identity import is_bot_player_id
from services.matchmaker import events as ev
from services.matchmaker.paces import game_options
from services.matchmaker.player import PlayerState, Vacation
from services.matchmaker.pool import WAITING, Invitation, Pool, Ticket
from services.matchmaker.schemas import (
    Blocks,
    InvitationRequest,
    InvitationView,
    Invitee,
    PlayerTickets,
    TicketRequest,
    TicketView,
    VacationPolicyView,
    VacationRecord,
    VacationView,
)
from services.matchmaker.store import Streams

MAX_BLOCKS = 500


def now_ms() -> int:
    return int(time.time() * 1000)


def derived_id(prefix: str, *parts: str) -> str:
    return prefix + hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:20]


def seat_range(seats: int | list[int], game_type: str) -> tuple[int, int]:
    engine = get_engine(game_type)
    low, high = (seats, seats) if isinstance(seats, int) else (seats[0], seats[1])
    if low > high or low < max(2, engine.min_seats) or high > engine.max_seats:
        raise ApiError(422, "invalid_seats", f"{game_type} seats {max(2, engine.min_seats)}..{engine.max_seats} "
                       f"players; asked for {low}..{high}")
    return low, high


def check_game_type(game_type: str) -> None:
    try:
        get_engine(game_type)
    except UnknownGameType:
        raise ApiError(422, "unknown_game_type",
                       f"unknown game type {game_type!r}; known: {', '.join(game_types())}") from None


def table_options(game_type: str, options: dict[str, Any], pace: str, low: int, high: int) -> dict[str, Any]:
    """The game's options, checked as creating the game would check them for every table size asked for."""
    full = game_options(options, pace)
    engine = get_engine(game_type)
    for seats in range(low, high + 1):
        check_options(engine, full, seats)
    return full


class Matchmaking:
    def __init__(self, streams: Streams, redis: Any, players: PlayerGames, settings: Settings) -> None:
        self.streams = streams
        self.redis = redis
        self.players = players
        self.settings = settings

    # --- tickets ----------------------------------------------------------------------------------------------
    async def open_ticket(self, player_id: str, name: str, request: TicketRequest, by: str = "") -> Ticket:
        check_game_type(request.game_type)
        low, high = seat_range(request.seats, request.game_type)
        options = table_options(request.game_type, request.options, request.pace, low, high)
        player = (await self.streams.players([player_id]))[player_id]
        now = now_ms()
        if request.request_id is None and player.on_vacation(now):
            raise ApiError(409, "on_vacation", "you are on vacation: end it (DELETE /players/me/vacation) to queue")
        cap = self.settings.max_open_games_per_player
        if cap and len(await self.players.unfinished(player_id)) >= cap:
            raise ApiError(409, "too_many_open_games", f"a player may hold seats in at most {cap} unfinished games; "
                           "finish one first", {"limit": cap})
        rating = await self.rating(request.game_type, player_id)
        ticket_id = (derived_id("t_", player_id, request.request_id) if request.request_id
                     else "t_" + secrets.token_hex(10))
        ttl_s = request.expires_in or self.settings.match_ticket_ttl_s
        limit = self.settings.match_tickets_per_player

        def decide(pool: Pool) -> list[ev.Event]:
            if ticket_id in pool.tickets:
                return []  # a repeated request: its ticket
            if player.on_vacation(now):
                raise ApiError(409, "on_vacation", "you are on vacation: end it to queue")
            if len([t for t in pool.player_tickets(player_id) if t.status == WAITING]) >= limit:
                raise ApiError(409, "too_many_tickets", f"a player may hold at most {limit} open tickets",
                               {"limit": limit})
            return [ev.TicketOpened(
                at=now, ticket_id=ticket_id, player_id=player_id, name=name or player_id, game_type=request.game_type,
                seats_min=low, seats_max=high, options=options, rated=request.rated, pace=request.pace,
                rating=rating, window=request.rating_window, expires_at=now + ttl_s * 1000,
                request_id=request.request_id or "", by=by)]

        pool, made = await self.streams.transact(self.streams.pool, decide)
        if made:
            TICKETS_OPENED.labels(request.game_type).inc()
        return pool.tickets[ticket_id]

    async def rating(self, game_type: str, player_id: str) -> float:
        """The player's rating as the leaderboard shows it (openskill's ordinal; 0 before a first rated game)."""
        score = await self.redis.zscore(RatingKeys(game_type).leaderboard, player_id)
        return round(float(score), 3) if score is not None else 0.0

    async def ticket(self, player_id: str, ticket_id: str) -> Ticket:
        pool = await self.streams.catch_up(self.streams.pool)
        ticket = pool.tickets.get(ticket_id)
        if ticket is None or ticket.player_id != player_id:
            raise ApiError(404, "ticket_not_found", f"you have no ticket {ticket_id!r}")
        return ticket

    async def cancel_ticket(self, player_id: str, ticket_id: str, by: str = "") -> Ticket:
        def decide(pool: Pool) -> list[ev.Event]:
            ticket = pool.tickets.get(ticket_id)
            if ticket is None or ticket.player_id != player_id:
                raise ApiError(404, "ticket_not_found", f"you have no ticket {ticket_id!r}")
            if ticket.status != WAITING:
                details: dict[str, Any] = {"status": ticket.status}
                if ticket.game_id:
                    details["game_id"] = ticket.game_id
                raise ApiError(409, "ticket_closed", f"the ticket is {ticket.status} already", details)
            return [ev.TicketCancelled(at=now_ms(), ticket_id=ticket_id, by=by)]

        pool, _ = await self.streams.transact(self.streams.pool, decide)
        return pool.tickets[ticket_id]

    async def tickets(self, player_id: str) -> PlayerTickets:
        pool = await self.streams.catch_up(self.streams.pool)
        return PlayerTickets(player_id, [self.ticket_view(pool, t) for t in reversed(pool.player_tickets(player_id))])

    def ticket_view(self, pool: Pool, ticket: Ticket) -> TicketView:
        o = ticket.opened
        end = ticket.closed_at if ticket.closed_at is not None else now_ms()
        return TicketView(
            ticket_id=ticket.id, player_id=o.player_id, game_type=o.game_type, seats=[o.seats_min, o.seats_max],
            options={k: v for k, v in o.options.items() if k != "clock"}, rated=o.rated, pace=o.pace,
            rating=o.rating, rating_window=o.window, status=ticket.status, opened_at=o.at,
            waited_s=round(max(0, end - o.at) / 1000, 1), waves_missed=pool.misses(ticket)
            if ticket.status == WAITING else 0, position=pool.position(ticket), expires_at=o.expires_at,
            closed_at=ticket.closed_at, game_id=ticket.game_id or None, seat=ticket.seat, seated=ticket.seated)

    # --- invitations ------------------------------------------------------------------------------------------
    async def invite(self, player_id: str, name: str, request: InvitationRequest) -> Invitation:
        check_game_type(request.game_type)
        invitees = list(request.invitees)
        if player_id in invitees or len(set(invitees)) != len(invitees) or any(map(is_bot_player_id, invitees)):
            raise ApiError(422, "invalid_invitees", "invite other players, each once (bots are seated by POST /games)")
        low, high = seat_range(request.seats if request.seats is not None else len(invitees) + 1, request.game_type)
        if len(invitees) + 1 < low:
            raise ApiError(422, "invalid_invitees", f"a table of at least {low} needs at least {low - 1} invitees")
        options = table_options(request.game_type, request.options, request.pace, low, high)
        folds = await self.streams.players([player_id, *invitees])
        blocked = sorted(p for p in invitees if p in folds[player_id].blocks)
        if blocked:
            raise ApiError(422, "invitee_blocked", f"you block {', '.join(blocked)}: unblock them to invite them")
        hidden = [p for p in invitees if player_id in folds[p].blocks]  # silently: they never see it
        now = now_ms()
        invitation_id = (derived_id("i_", player_id, request.request_id) if request.request_id
                         else "i_" + secrets.token_hex(10))
        ttl_s = request.expires_in or self.settings.invitation_ttl_s

        def decide(pool: Pool) -> list[ev.Event]:
            if invitation_id in pool.invitations:
                return []
            return [ev.InvitationSent(
                at=now, invitation_id=invitation_id, inviter=player_id, inviter_name=name or player_id,
                game_type=request.game_type, options=options, rated=request.rated, pace=request.pace, seats_min=low,
                seats_max=high, invitees=invitees, hidden=hidden, expires_at=now + ttl_s * 1000,
                request_id=request.request_id or "")]

        pool, _ = await self.streams.transact(self.streams.pool, decide)
        return pool.invitations[invitation_id]

    def _visible(self, pool: Pool, player_id: str, invitation_id: str) -> Invitation:
        invitation = pool.invitations.get(invitation_id)
        if invitation is None or (invitation.sent.inviter != player_id and (
                player_id not in invitation.sent.invitees or player_id in invitation.sent.hidden)):
            raise ApiError(404, "invitation_not_found", f"no invitation {invitation_id!r} for you")
        return invitation

    async def invitation(self, player_id: str, invitation_id: str) -> Invitation:
        return self._visible(await self.streams.catch_up(self.streams.pool), player_id, invitation_id)

    async def answer(self, player_id: str, name: str, invitation_id: str, accepted: bool) -> Invitation:
        def decide(pool: Pool) -> list[ev.Event]:
            invitation = self._visible(pool, player_id, invitation_id)
            if invitation.sent.inviter == player_id:
                raise ApiError(404, "invitation_not_found", f"no invitation {invitation_id!r} to you")
            if invitation.status != "open":
                raise ApiError(409, "invitation_closed", f"the invitation is {invitation.status}",
                               {"status": invitation.status})
            if player_id in invitation.answers and invitation.answers[player_id][0] == accepted:
                return []
            return [ev.InvitationAnswered(at=now_ms(), invitation_id=invitation_id, player_id=player_id,
                                          name=name or player_id, accepted=accepted)]

        pool, _ = await self.streams.transact(self.streams.pool, decide)
        return pool.invitations[invitation_id]

    async def cancel_invitation(self, player_id: str, invitation_id: str) -> Invitation:
        def decide(pool: Pool) -> list[ev.Event]:
            invitation = self._visible(pool, player_id, invitation_id)
            if invitation.sent.inviter != player_id:
                raise ApiError(404, "invitation_not_found", f"you sent no invitation {invitation_id!r}")
            if invitation.status != "open":
                raise ApiError(409, "invitation_closed", f"the invitation is {invitation.status}",
                               {"status": invitation.status})
            return [ev.InvitationClosed(at=now_ms(), invitation_id=invitation_id, outcome="cancelled")]

        pool, _ = await self.streams.transact(self.streams.pool, decide)
        return pool.invitations[invitation_id]

    async def invitations(self, player_id: str) -> tuple[list[InvitationView], list[InvitationView]]:
        pool = await self.streams.catch_up(self.streams.pool)
        sent, received = pool.invitations_of(player_id)
        return [invitation_view(pool, i) for i in sent], [invitation_view(pool, i) for i in received]

    # --- blocks -----------------------------------------------------------------------------------------------
    async def block(self, player_id: str, other: str, blocking: bool) -> Blocks:
        if other == player_id:
            raise ApiError(400, "cannot_block_self", "you cannot block yourself")

        def decide(state: PlayerState) -> list[ev.Event]:
            if blocking == (other in state.blocks):
                return []
            if blocking and len(state.blocks) >= MAX_BLOCKS:
                raise ApiError(409, "too_many_blocks", f"a player blocks at most {MAX_BLOCKS} players",
                               {"limit": MAX_BLOCKS})
            return [ev.BlockAdded(at=now_ms(), player_id=other) if blocking
                    else ev.BlockRemoved(at=now_ms(), player_id=other)]

        state, _ = await self.streams.transact(self.streams.player(player_id), decide)
        return Blocks(player_id, sorted(state.blocks))

    async def blocks(self, player_id: str) -> Blocks:
        state = (await self.streams.players([player_id]))[player_id]
        return Blocks(player_id, sorted(state.blocks))

    # --- vacation (the decisions; vacations.py applies them to the games) -------------------------------------
    def vacation_view(self, player_id: str, state: PlayerState) -> VacationView:
        now = now_ms()
        current = state.on_vacation(now)
        p = state.policy
        return VacationView(
            player_id=player_id, on_vacation=current is not None,
            current=vacation_record(current) if current is not None else None,
            available_days=state.available(now),
            policy=VacationPolicyView(p.initial_days, p.days_per_month, p.cap_days, p.min_charge_days),
            history=[vacation_record(v) for v in reversed(state.vacations)])


def vacation_record(vacation: Vacation) -> VacationRecord:
    s, e = vacation.started, vacation.ended
    return VacationRecord(number=s.number, days=s.days, started_at=s.at, until=s.until,
                          ended_at=e.at if e else None, reason=e.reason if e else None,
                          charged_days=e.charged if e else None, games=s.games)


def invitation_view(pool: Pool, invitation: Invitation) -> InvitationView:
    s = invitation.sent
    invitees = []
    for p in s.invitees:
        answered = invitation.answers.get(p)
        invitees.append(Invitee(p, "pending" if answered is None else "accepted" if answered[0] else "declined"))
    match = pool.matches.get(invitation.match_id)
    return InvitationView(
        invitation_id=invitation.id, inviter=s.inviter, inviter_name=s.inviter_name, game_type=s.game_type,
        options={k: v for k, v in s.options.items() if k != "clock"}, rated=s.rated, pace=s.pace,
        seats=[s.seats_min, s.seats_max], invitees=invitees, status=invitation.status, sent_at=s.at,
        expires_at=s.expires_at, closed_at=invitation.closed_at,
        game_id=match.made.game_id if match is not None and match.seated else None)
