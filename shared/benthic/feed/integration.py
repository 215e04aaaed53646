"""The public integration events (docs/INTEGRATION_EVENTS.md): what platform teams may follow of every game, on
one Redis stream (``Settings.integration_stream``) in FastStream's message format.

Public only: each event carries what the spectator view and the lobby card show (seats, whose turn it is, the
deadline of a running clock, the final results, the new ratings), never a hand, a deck or any private state.

Every event has a deterministic ``id``, the same whoever publishes it and however often: a game's once-only events
``<game_id>:<type>``, a turn ``<game_id>:<version>:turn.started``, a new rating ``<game_id>:<player_id>:rating``.
Delivery is at least once; consumers drop the ids they have seen.

Versioning: ``schema_version`` is 1.  Fields may be added (consumers ignore the ones they do not know); renaming or
removing a field, or changing its meaning, makes a new ``schema_version``.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from benthic.feed.encoding import encode_message

SCHEMA_VERSION = 1


class IntegrationEvent(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=False):
    """What every integration event carries.  ``at``: when it happened (ms since the epoch), the time of the
    commit (or join) it reports."""

    id: str
    schema_version: int = SCHEMA_VERSION
    game_id: str
    game_type: str
    at: int


class SeatHolder(msgspec.Struct, frozen=True, kw_only=True):
    """A seat as the lobby card shows it (``kind``: player, bot or open)."""

    seat: int
    kind: str
    player_id: str | None = None
    name: str | None = None
    bot: str | None = None  # the bot playing the seat (kind bot)


class GameCreated(IntegrationEvent, frozen=True, tag="game.created"):
    """A game was created: its seats (open ones included), whether it is rated, its status (open: waiting for
    players; running: every seat taken)."""

    version: int
    status: Literal["open", "running"]
    rated: bool
    seats: list[SeatHolder]


class GameStarted(IntegrationEvent, frozen=True, tag="game.started"):
    """Every seat is taken: the game runs (at its creation, or at the join that took its last seat)."""

    version: int
    seats: list[SeatHolder]


class TurnStarted(IntegrationEvent, frozen=True, tag="turn.started"):
    """The seats to move changed, or their clock's deadline did.  ``prompt``: what they decide (the engine's
    prompt kind); ``deadline_ms``: when the earliest running clock of those seats runs out (None: no clock runs)."""

    version: int
    seats: list[int]
    prompt: str
    deadline_ms: int | None = None


class GameFinished(IntegrationEvent, frozen=True, tag="game.finished"):
    """The game is over: ``outcome`` completed (by its rules), ended (the platform ended it early) or aborted
    (unrated, no results); ``reason``: why it was ended or aborted."""

    version: int
    outcome: Literal["completed", "ended", "aborted"]
    reason: str | None = None


class SeatResult(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str | None
    score: int
    rank: int  # 1 is best; tied seats share a rank


class GameScored(IntegrationEvent, frozen=True, tag="game.scored"):
    """The final results (as ``GET /games/{id}/scores`` shows them); ``rated``: the ratings change with them
    (``rating.changed`` follows for each player)."""

    version: int
    rated: bool
    results: list[SeatResult]


class RatingChanged(IntegrationEvent, frozen=True, tag="rating.changed"):
    """A player's rating of the game type after a rated game (openskill: ``rating`` is the ordinal
    mu - 3 sigma the leaderboard ranks by)."""

    player_id: str
    rating: float
    mu: float
    sigma: float
    previous_rating: float | None = None  # None: the player's first rated game of this type


class MatchedSeat(msgspec.Struct, frozen=True, kw_only=True):
    seat: int
    player_id: str
    ticket_id: str | None = None  # None: seated from an invitation


class MatchFound(IntegrationEvent, frozen=True, kw_only=True, tag="match.found"):
    """The matchmaker seated waiting tickets (or an invitation's players) at a new game (published by the
    matchmaker once the game exists; ``game.created`` reports the game itself)."""

    match_id: str
    rated: bool
    pace: str
    seats: list[MatchedSeat]
    invitation_id: str | None = None


class TicketExpired(IntegrationEvent, frozen=True, kw_only=True, tag="ticket.expired"):
    """A matchmaking ticket waited until its expiry without a table (``game_id`` is empty: no game)."""

    game_id: str = ""
    ticket_id: str
    player_id: str
    waited_ms: int


EVENTS: tuple[type[IntegrationEvent], ...] = (GameCreated, GameStarted, TurnStarted, GameFinished, GameScored,
                                              RatingChanged, MatchFound, TicketExpired)
AnyIntegrationEvent = (GameCreated | GameStarted | TurnStarted | GameFinished | GameScored | RatingChanged | MatchFound
                       | TicketExpired)


def event_type(event: type[IntegrationEvent]) -> str:
    """The ``type`` an event class carries (its msgspec tag)."""
    return str(msgspec.inspect.type_info(event).tag)  # type: ignore[attr-defined]


_TYPES: dict[type[IntegrationEvent], str] = {}


def type_of(event: IntegrationEvent) -> str:
    """The ``type`` of ``event``."""
    cls = type(event)
    if cls not in _TYPES:
        _TYPES[cls] = event_type(cls)
    return _TYPES[cls]


def once_id(game_id: str, type_: str) -> str:
    """The id of an event a game has once (created, started, finished, scored)."""
    return f"{game_id}:{type_}"


def turn_id(game_id: str, version: int) -> str:
    return f"{game_id}:{version}:turn.started"


def rating_id(game_id: str, player_id: str) -> str:
    return f"{game_id}:{player_id}:rating"


def match_found_id(match_id: str) -> str:
    return f"{match_id}:match.found"


def ticket_expired_id(ticket_id: str) -> str:
    return f"{ticket_id}:ticket.expired"


_encoder = msgspec.json.Encoder()
_decoder: msgspec.json.Decoder[AnyIntegrationEvent] = msgspec.json.Decoder(AnyIntegrationEvent)


def encode_entry(event: IntegrationEvent) -> bytes:
    """The ``__data__`` field of the stream entry of ``event``: FastStream's message format, the event's JSON as
    the body, its id as the correlation id."""
    return encode_message(_encoder.encode(event), {"correlation_id": event.id, "content-type": "application/json"})


def decode_event(body: bytes) -> AnyIntegrationEvent:
    """An event from its JSON (a stream entry's body)."""
    return _decoder.decode(body)


# --- the webhooks' share of the stream --------------------------------------------------------------------------
# The notifier delivers ``turn.started`` and ``game.finished`` to the players who registered a webhook, and the
# matchmaker's ``match.found`` and ``ticket.expired``.  It does not read the integration stream (every turn of every
# game): its publishers copy the entries it needs onto its own stream, ``webhook_stream``, an entry of a game only
# when one of the players it goes to is in ``webhook_registry`` (the set of players with a registration, written by
# the notifier with each registration, in the same transaction), checked in the same script that adds the entry to
# the integration stream.  Both keys share the notifier's hash tag (one slot of a Redis Cluster with its queue).
WEBHOOK_PLAYERS_SEPARATOR = "\n"  # between the player ids an entry goes to (no player id holds one)


def webhook_tag(stream: str) -> str:
    """The hash tag of the notifier's keys for the integration stream ``stream``."""
    return f"{{webhooks:{stream}}}"


def webhook_registry(stream: str) -> str:
    """Set: the players who have a webhook registration."""
    return f"{webhook_tag(stream)}:registered"


def webhook_stream(stream: str) -> str:
    """Stream: the integration entries the notifier reads (the same bytes as on ``stream``)."""
    return f"{webhook_tag(stream)}:events"
