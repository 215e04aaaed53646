"""The matchmaker's events: every ticket, wave, match, invitation, block and vacation is one of these, appended to
a stream (services/matchmaker/store.py) and folded into the state that answers queries (pool.py, player.py).

Two kinds of stream: **the pool** (one for the deployment: tickets, waves, matches, invitations; one Redis slot, so
a wave's decision and a cancellation race on one version and exactly one wins) and **a player** (one per player:
blocks and vacations).  Each event carries ``at``, the time (ms) it was decided.  Fields may be added; an event
type is never renamed (old streams must fold)."""

from __future__ import annotations

from typing import Any

import msgspec


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type"):
    at: int


# --- the pool ---------------------------------------------------------------------------------------------------

class TicketOpened(Event, frozen=True, kw_only=True, tag="ticket_opened"):
    ticket_id: str
    player_id: str
    name: str
    game_type: str
    seats_min: int
    seats_max: int
    options: dict[str, Any]
    rated: bool
    pace: str
    rating: float  # the player's rating of the game type when the ticket opened (the leaderboard's ordinal)
    window: float | None  # the most rating gap the player accepts (None: the platform's widening window)
    expires_at: int
    request_id: str = ""  # the client's id of the request (a repeat answers this ticket)
    by: str = ""  # a backend that opened it for the player (empty: the player)


class TicketCancelled(Event, frozen=True, kw_only=True, tag="ticket_cancelled"):
    ticket_id: str
    by: str = ""


class TicketExpired(Event, frozen=True, kw_only=True, tag="ticket_expired"):
    ticket_id: str


class WaveRan(Event, frozen=True, kw_only=True, tag="wave_ran"):
    """A wave looked at the waiting tickets: every ticket still waiting after it has missed one more wave."""

    wave: int
    waiting: int
    matched: int


class MatchMade(Event, frozen=True, kw_only=True, tag="match_made"):
    """A table: its players in seat order (each from a ticket, or an invitation's), the game to create (its id is
    derived from the match id, so creating it again is a duplicate, never a second game)."""

    match_id: str
    game_id: str
    game_type: str
    options: dict[str, Any]
    rated: bool
    pace: str
    players: list[str]
    names: list[str]
    tickets: list[str] = []  # aligned with players; empty for an invitation's game
    invitation_id: str = ""
    wave: int = 0


class MatchSeated(Event, frozen=True, kw_only=True, tag="match_seated"):
    """The match's game exists (created now, or found created by an earlier try)."""

    match_id: str
    game_id: str
    version: int


class MatchFailed(Event, frozen=True, kw_only=True, tag="match_failed"):
    """The game could not be created (its options no longer valid, say): the tickets wait again."""

    match_id: str
    reason: str


class Announced(Event, frozen=True, kw_only=True, tag="announced"):
    """The integration events of these matches (match.found) and expired tickets (ticket.expired) are published."""

    matches: list[str] = []
    tickets: list[str] = []


class InvitationSent(Event, frozen=True, kw_only=True, tag="invitation_sent"):
    invitation_id: str
    inviter: str
    inviter_name: str
    game_type: str
    options: dict[str, Any]
    rated: bool
    pace: str
    seats_min: int
    seats_max: int
    invitees: list[str]
    hidden: list[str] = []  # invitees who block the inviter: they never see it; the inviter sees no answer
    expires_at: int
    request_id: str = ""


class InvitationAnswered(Event, frozen=True, kw_only=True, tag="invitation_answered"):
    invitation_id: str
    player_id: str
    name: str
    accepted: bool


class InvitationClosed(Event, frozen=True, kw_only=True, tag="invitation_closed"):
    """``outcome``: started (its match was made), expired (too few accepted in time), cancelled (by the inviter),
    declined (too many declined to start)."""

    invitation_id: str
    outcome: str
    match_id: str = ""


PoolEvent = (TicketOpened | TicketCancelled | TicketExpired | WaveRan | MatchMade | MatchSeated | MatchFailed
             | Announced | InvitationSent | InvitationAnswered | InvitationClosed)


# --- a player ---------------------------------------------------------------------------------------------------

class BlockAdded(Event, frozen=True, kw_only=True, tag="block_added"):
    player_id: str


class BlockRemoved(Event, frozen=True, kw_only=True, tag="block_removed"):
    player_id: str


class VacationStarted(Event, frozen=True, kw_only=True, tag="vacation_started"):
    """``number``: the player's vacations counted from 1 (the command ids of its platform events derive from
    it); ``games``: the unfinished games the player sat in when it started (each gets a platform event)."""

    number: int
    days: int
    until: int
    games: list[str]


class VacationEnded(Event, frozen=True, kw_only=True, tag="vacation_ended"):
    """``reason``: returned (DELETE), moved (the player's first move in a game), elapsed; ``charged``: the days
    the budget is charged (the policy's minimum at least)."""

    number: int
    reason: str
    charged: int
    game_id: str = ""  # the game of the move that ended it (reason moved)


PlayerEvent = BlockAdded | BlockRemoved | VacationStarted | VacationEnded

pool_decoder = msgspec.json.Decoder(PoolEvent)
player_decoder = msgspec.json.Decoder(PlayerEvent)
encoder = msgspec.json.Encoder()
