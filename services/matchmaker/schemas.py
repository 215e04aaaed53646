"""The matchmaker API's wire structs: request bodies (validated by msgspec) and answers (OpenAPI components by their
class names)."""

from __future__ import annotations

from typing import Annotated, Any

import msgspec

from benthic.trust.identity import PLAYER_ID

PlayerId = Annotated[str, msgspec.Meta(pattern=PLAYER_ID.pattern, description="1-128 of [A-Za-z0-9_.:@|+-]")]
RequestId = Annotated[str, msgspec.Meta(pattern=r"^[A-Za-z0-9_.:\-]{1,128}$",
                                        description="the client's id of this request: a repeat answers the first")]
SeatCount = Annotated[int, msgspec.Meta(ge=1, le=16)]
Seats = SeatCount | Annotated[list[SeatCount], msgspec.Meta(min_length=2, max_length=2)]
Name = Annotated[str, msgspec.Meta(max_length=64, pattern=r"^[^\u0000-\u001f\u007f]*$")]


class TicketRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``seats``: a table of exactly n seats, or ``[min, max]``; ``pace`` a clock preset (``GET /matchmaking/paces``);
    ``rating_window``: the most rating gap accepted (default: a window that widens with the time waited);
    ``expires_in``: seconds (default BENTHIC_MATCH_TICKET_TTL_S).  A backend names the player (``player_id``)."""

    game_type: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    seats: Seats = 2
    options: dict[str, Any] = {}
    rated: bool = True
    pace: Annotated[str, msgspec.Meta(min_length=1, max_length=32)] = "daily"
    rating_window: Annotated[float, msgspec.Meta(ge=0, le=1000)] | None = None
    expires_in: Annotated[int, msgspec.Meta(ge=1, le=30 * 86_400)] | None = None
    request_id: RequestId | None = None
    player_id: PlayerId | None = None
    name: Name = ""


class TicketView(msgspec.Struct, frozen=True, kw_only=True):
    """A ticket as its player sees it: ``status`` waiting, matched, cancelled or expired; ``position``: 1 for the
    ticket of its game type waiting longest; ``game_id`` and ``seat`` once matched (``seated``: the game exists)."""

    ticket_id: str
    player_id: str
    game_type: str
    seats: list[int]
    options: dict[str, Any]
    rated: bool
    pace: str
    rating: float
    rating_window: float | None
    status: str
    opened_at: int
    waited_s: float
    waves_missed: int
    position: int | None
    expires_at: int
    closed_at: int | None
    game_id: str | None
    seat: int | None
    seated: bool


class PlayerTickets(msgspec.Struct, frozen=True):
    player_id: str
    tickets: list[TicketView]


class Pace(msgspec.Struct, frozen=True):
    pace: str
    text: str
    clock: dict[str, Any]


class InvitationRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``invitees``: the players asked (1 to 3); ``seats``: the table (default: the inviter and every invitee),
    n or ``[min, max]``: it starts as soon as ``max`` players are in, or when every invitee has answered and at least
    ``min`` are in; at ``expires_in`` (seconds) it starts with those who accepted if they are enough, else expires."""

    game_type: Annotated[str, msgspec.Meta(min_length=1, max_length=64)]
    invitees: Annotated[list[PlayerId], msgspec.Meta(min_length=1, max_length=15)]
    seats: Seats | None = None
    options: dict[str, Any] = {}
    rated: bool = True
    pace: Annotated[str, msgspec.Meta(min_length=1, max_length=32)] = "daily"
    expires_in: Annotated[int, msgspec.Meta(ge=1, le=30 * 86_400)] | None = None
    request_id: RequestId | None = None
    name: Name = ""


class Answer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    name: Name = ""


class Invitee(msgspec.Struct, frozen=True):
    player_id: str
    answer: str  # pending | accepted | declined


class InvitationView(msgspec.Struct, frozen=True, kw_only=True):
    """``status``: open, started (``game_id``), expired, declined (too few could still accept) or cancelled."""

    invitation_id: str
    inviter: str
    inviter_name: str
    game_type: str
    options: dict[str, Any]
    rated: bool
    pace: str
    seats: list[int]
    invitees: list[Invitee]
    status: str
    sent_at: int
    expires_at: int
    closed_at: int | None
    game_id: str | None


class Invitations(msgspec.Struct, frozen=True):
    player_id: str
    sent: list[InvitationView]
    received: list[InvitationView]


class Blocks(msgspec.Struct, frozen=True):
    player_id: str
    blocks: list[str]


class VacationRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    days: Annotated[int, msgspec.Meta(ge=1, le=365)]


class VacationRecord(msgspec.Struct, frozen=True, kw_only=True):
    number: int
    days: int
    started_at: int
    until: int
    ended_at: int | None
    reason: str | None  # returned | moved | elapsed
    charged_days: int | None
    games: list[str]


class VacationPolicyView(msgspec.Struct, frozen=True):
    initial_days: int
    days_per_month: int
    cap_days: int
    min_charge_days: int


class VacationView(msgspec.Struct, frozen=True, kw_only=True):
    """``current``: the vacation under way (None: none); ``available_days``: what may be taken now."""

    player_id: str
    on_vacation: bool
    current: VacationRecord | None
    available_days: int
    policy: VacationPolicyView
    history: list[VacationRecord]
