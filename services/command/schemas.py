"""The command API's wire structs: request bodies (validated by msgspec) and answers (OpenAPI components by their
class names)."""

from __future__ import annotations

import re
from typing import Annotated, Any

import msgspec

from benthic.errors import ApiError
from benthic.patterns import whole
from benthic.rules import Label
from services.command.seating import Name, PlayerId, SeatRequest

ID_PATTERN = whole(r"[A-Za-z0-9_.:\-]{1,128}")  # command ids
_ID = re.compile(ID_PATTERN)
CommandId = Annotated[str, msgspec.Meta(pattern=_ID.pattern, description="1-128 of [A-Za-z0-9_.:-]; unique per "
                                                                         "command: a repeat returns the first answer")]
Seed = Annotated[int, msgspec.Meta(ge=-(2**53), le=2**53)]  # JSON-safe integers: exact in every client


def check_id(value: str, what: str) -> None:
    """``CommandId``'s rule, for ids that did not come through a validated body (the play socket's frames)."""
    if not _ID.match(value):
        raise ApiError(400, "invalid_request", f"{what} must be 1-128 characters of [A-Za-z0-9_.:-]")


class CreateGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    game_type: str
    seats: list[SeatRequest | None]
    options: dict[str, Any] = {}
    seed: Seed | None = None
    rated: bool = True  # false: a casual game that never changes ratings


class JoinGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    player_id: PlayerId | None = None  # the caller's own id (the JWT's sub); may be left out
    name: Name = ""
    seat: Annotated[int, msgspec.Meta(ge=0, le=2**53)] | None = None


class CommandRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    command_id: CommandId
    command: dict[str, Any]
    expected_version: Annotated[int, msgspec.Meta(ge=0, le=2**53)] | None = None


class UndoRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    command_id: CommandId  # the undo's own id (a repeat returns the first answer)
    expected_version: Annotated[int, msgspec.Meta(ge=0, le=2**53)] | None = None


class UndoneCommit(msgspec.Struct, frozen=True):
    """The commit an undo took back (the data of its ``command_undone`` event)."""

    seat: int
    command_id: str
    first_version: int
    last_version: int


class UndoDone(msgspec.Struct, frozen=True):
    game_id: str
    command_id: str
    version: int  # the game's version after the undo (the undone versions still count)
    duplicate: bool  # this command id was committed before: its first answer, nothing new
    undone: UndoneCommit | None  # None only for a command id first used for something other than an undo


class SeatGrant(msgspec.Struct, frozen=True):
    seat: int
    player_id: str | None
    name: str | None
    token: str | None = None  # only the creating player's own seat; everyone else gets theirs with their JWT
    expires_at_ms: int | None = None


class GameCreated(msgspec.Struct, frozen=True):
    game_id: str
    game_type: str
    version: int
    status: str
    rated: bool
    seats: list[SeatGrant]


class Joined(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    token: str
    expires_at_ms: int
    status: str
    rated: bool


class SeatToken(msgspec.Struct, frozen=True):
    """A fresh seat token for the caller's seat in a game (refresh, or reconnect from another device)."""

    game_id: str
    game_type: str
    seat: int
    player_id: str
    status: str
    rated: bool
    token: str
    expires_at_ms: int


class PlayerSeats(msgspec.Struct, frozen=True):
    player_id: str
    seats: list[SeatToken]


class CommandAccepted(msgspec.Struct, frozen=True):
    game_id: str
    command_id: str
    seat: int
    first_version: int
    last_version: int
    duplicate: bool
    events: list[dict[str, Any]]
    # With ?include=legal: the prompt after this commit and the caller's legal commands in it, and their labels
    # (aligned with `legal` by index).
    prompt: dict[str, Any] | None = None
    legal: list[Any] | None = None
    labels: list[Label] | None = None


class LegalCommands(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    version: int
    prompt: dict[str, Any] | None
    commands: list[Any]
    labels: list[Label]  # labels[i] describes commands[i]: {label, highlights}
