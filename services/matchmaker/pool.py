"""The pool's folded state: every ticket, match and invitation as its events left it (pure, no I/O).

The fold is kept in memory and brought up to the stream's head before every decision (store.py): it is mutable
for speed (a pool of 100,000 tickets is not copied per event) and changed only by :meth:`Pool.apply`.  Closed
tickets, matches and invitations are kept for ``keep_ms`` after they closed (their answers: the game and seat of a
matched ticket), then dropped from the fold; their events stay in the stream."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from services.matchmaker import events as ev

WAITING = "waiting"
MATCHED = "matched"  # in a match (its game being created, or created: ``game_id``/``seat``)
CANCELLED = "cancelled"
EXPIRED = "expired"


@dataclass
class Ticket:
    opened: ev.TicketOpened
    wave_opened: int  # the pool's wave count when it opened: waves missed = waves since
    status: str = WAITING
    closed_at: int | None = None
    match_id: str = ""
    game_id: str = ""
    seat: int | None = None
    seated: bool = False  # its game exists
    announced: bool = False  # ticket.expired published

    @property
    def id(self) -> str:
        return self.opened.ticket_id

    @property
    def player_id(self) -> str:
        return self.opened.player_id


@dataclass
class Match:
    made: ev.MatchMade
    seated: bool = False
    version: int = 0  # the game's version at seating
    failed: str = ""
    announced: bool = False

    @property
    def id(self) -> str:
        return self.made.match_id


@dataclass
class Invitation:
    sent: ev.InvitationSent
    answers: dict[str, tuple[bool, str, int]] = field(default_factory=dict)  # player -> (accepted, name, at)
    status: str = "open"  # open | started | expired | cancelled | declined
    closed_at: int | None = None
    match_id: str = ""

    @property
    def id(self) -> str:
        return self.sent.invitation_id

    def accepted(self) -> list[str]:
        return [p for p in self.sent.invitees if self.answers.get(p, (False,))[0]]

    def declined(self) -> list[str]:
        return [p for p, (ok, _n, _a) in self.answers.items() if not ok]


class Pool:
    def __init__(self, keep_ms: int = 7 * 86_400_000) -> None:
        self.version = 0
        self.waves = 0
        self.newest = 0  # the newest event's time
        self.keep_ms = keep_ms
        self.tickets: dict[str, Ticket] = {}
        self.waiting: dict[str, Ticket] = {}  # in the order they opened
        self.by_player: dict[str, list[str]] = {}  # open (waiting or matched, not seated) and recent ticket ids
        self.matches: dict[str, Match] = {}
        self.pending: dict[str, Match] = {}  # made, not seated or not announced yet
        self.invitations: dict[str, Invitation] = {}
        self.unannounced: dict[str, Ticket] = {}  # expired tickets whose ticket.expired is not published yet
        self._closed: list[tuple[int, str, str]] = []  # (closed at, kind, id): pruned after keep_ms

    # --- reading ----------------------------------------------------------------------------------------------
    def open_tickets(self, player_id: str) -> list[Ticket]:
        """The player's tickets still waiting or matched into a game not created yet."""
        return [t for t in self.player_tickets(player_id) if t.status == WAITING or t.status == MATCHED
                and not t.seated]

    def player_tickets(self, player_id: str) -> list[Ticket]:
        return [self.tickets[t] for t in self.by_player.get(player_id, ()) if t in self.tickets]

    def position(self, ticket: Ticket) -> int | None:
        """1 for the ticket waiting longest among the waiting tickets of its game type (None: not waiting)."""
        if ticket.status != WAITING:
            return None
        ahead = 0
        for other in self.waiting.values():
            if other is ticket:
                return ahead + 1
            if other.opened.game_type == ticket.opened.game_type:
                ahead += 1
        return None

    def misses(self, ticket: Ticket) -> int:
        return self.waves - ticket.wave_opened

    def invitations_of(self, player_id: str) -> tuple[list[Invitation], list[Invitation]]:
        """(sent, received) by the player, newest first; an invitation hidden from the player is not received."""
        sent, received = [], []
        for invitation in reversed(self.invitations.values()):
            if invitation.sent.inviter == player_id:
                sent.append(invitation)
            elif player_id in invitation.sent.invitees and player_id not in invitation.sent.hidden:
                received.append(invitation)
        return sent, received

    # --- folding ----------------------------------------------------------------------------------------------
    def apply_all(self, version: int, events: Iterable[ev.Event]) -> None:
        """Fold the events of one commit, which brings the pool to ``version``."""
        for event in events:
            self.apply(event)
        self.version = version
        self._prune()

    def apply(self, event: ev.Event) -> None:
        self.newest = max(self.newest, event.at)
        handler = _HANDLERS.get(type(event))
        if handler is not None:
            handler(self, event)

    def _close(self, kind: str, item_id: str, at: int) -> None:
        self._closed.append((at, kind, item_id))

    def _prune(self) -> None:
        horizon = self.newest - self.keep_ms
        while self._closed and self._closed[0][0] < horizon:
            _at, kind, item_id = self._closed.pop(0)
            if kind == "ticket":
                ticket = self.tickets.get(item_id)
                if ticket is not None and ticket.status != WAITING and (ticket.status != MATCHED or ticket.seated):
                    del self.tickets[item_id]
                    ids = self.by_player.get(ticket.player_id, [])
                    if item_id in ids:
                        ids.remove(item_id)
                    if not ids:
                        self.by_player.pop(ticket.player_id, None)
            elif kind == "match":
                match = self.matches.get(item_id)
                if match is not None and item_id not in self.pending:
                    del self.matches[item_id]
            elif kind == "invitation":
                self.invitations.pop(item_id, None)

    def _opened(self, event: ev.TicketOpened) -> None:
        ticket = Ticket(event, self.waves)
        self.tickets[event.ticket_id] = ticket
        self.waiting[event.ticket_id] = ticket
        self.by_player.setdefault(event.player_id, []).append(event.ticket_id)

    def _ended(self, ticket_id: str, status: str, at: int) -> Ticket | None:
        ticket = self.tickets.get(ticket_id)
        if ticket is None or ticket.status != WAITING:
            return None
        ticket.status = status
        ticket.closed_at = at
        self.waiting.pop(ticket_id, None)
        self._close("ticket", ticket_id, at)
        return ticket

    def _cancelled(self, event: ev.TicketCancelled) -> None:
        self._ended(event.ticket_id, CANCELLED, event.at)

    def _expired(self, event: ev.TicketExpired) -> None:
        ticket = self._ended(event.ticket_id, EXPIRED, event.at)
        if ticket is not None:
            self.unannounced[ticket.id] = ticket

    def _wave(self, event: ev.WaveRan) -> None:
        self.waves = max(self.waves, event.wave)

    def _made(self, event: ev.MatchMade) -> None:
        match = Match(event)
        self.matches[event.match_id] = match
        self.pending[event.match_id] = match
        for seat, ticket_id in enumerate(event.tickets):
            ticket = self.tickets.get(ticket_id)
            if ticket is None:
                continue
            ticket.status = MATCHED
            ticket.closed_at = event.at
            ticket.match_id = event.match_id
            ticket.game_id = event.game_id
            ticket.seat = seat
            self.waiting.pop(ticket_id, None)

    def _seated(self, event: ev.MatchSeated) -> None:
        match = self.matches.get(event.match_id)
        if match is None or match.seated:
            return
        match.seated = True
        match.version = event.version
        for ticket_id in match.made.tickets:
            ticket = self.tickets.get(ticket_id)
            if ticket is not None and ticket.match_id == event.match_id:
                ticket.seated = True
                self._close("ticket", ticket_id, event.at)
        self._close("match", event.match_id, event.at)

    def _failed(self, event: ev.MatchFailed) -> None:
        match = self.pending.pop(event.match_id, None)
        if match is None:
            return
        match.failed = event.reason
        self._close("match", event.match_id, event.at)
        for ticket_id in match.made.tickets:  # back to the pool, keeping the waves they missed
            ticket = self.tickets.get(ticket_id)
            if ticket is not None and ticket.match_id == event.match_id and not ticket.seated:
                ticket.status, ticket.closed_at, ticket.match_id = WAITING, None, ""
                ticket.game_id, ticket.seat = "", None
                self.waiting[ticket_id] = ticket

    def _announced(self, event: ev.Announced) -> None:
        for match_id in event.matches:
            match = self.matches.get(match_id)
            if match is not None:
                match.announced = True
                if match.seated:
                    self.pending.pop(match_id, None)
        for ticket_id in event.tickets:
            ticket = self.unannounced.pop(ticket_id, None)
            if ticket is not None:
                ticket.announced = True

    def _invited(self, event: ev.InvitationSent) -> None:
        self.invitations[event.invitation_id] = Invitation(event)

    def _answered(self, event: ev.InvitationAnswered) -> None:
        invitation = self.invitations.get(event.invitation_id)
        if invitation is not None and invitation.status == "open":
            invitation.answers[event.player_id] = (event.accepted, event.name, event.at)

    def _invitation_closed(self, event: ev.InvitationClosed) -> None:
        invitation = self.invitations.get(event.invitation_id)
        if invitation is not None and invitation.status == "open":
            invitation.status = event.outcome
            invitation.closed_at = event.at
            invitation.match_id = event.match_id
            self._close("invitation", event.invitation_id, event.at)


def _seated_fix(pool: Pool, event: ev.MatchSeated) -> None:
    pool._seated(event)
    match = pool.matches.get(event.match_id)
    if match is not None and match.announced:
        pool.pending.pop(event.match_id, None)


_HANDLERS: dict[type, Any] = {
    ev.TicketOpened: Pool._opened,
    ev.TicketCancelled: Pool._cancelled,
    ev.TicketExpired: Pool._expired,
    ev.WaveRan: Pool._wave,
    ev.MatchMade: Pool._made,
    ev.MatchSeated: _seated_fix,
    ev.MatchFailed: Pool._failed,
    ev.Announced: Pool._announced,
    ev.InvitationSent: Pool._invited,
    ev.InvitationAnswered: Pool._answered,
    ev.InvitationClosed: Pool._invitation_closed,
}
