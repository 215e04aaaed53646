"""Who may sit where, and whether a game is rated.

- A player creates games for themselves: every seat they name is their own (``player_id`` may be left out),
  the others are open; they must hold one.  A trusted backend (matchmaker) or an operator names any players.
- A player joins an open seat as themselves.
- A player or a backend may seat server-side bots: ``{"bot": name, "level"?}`` (names in
  ``benthic.rules.bots.BOT_NAMES``); a bot's player id is ``bot:<name>`` (``bot:<name>@<level>`` with a level).
- A game is **rated** when its creator asked for it (the default), it is not seeded (a fixed seed reveals
  every hidden card to whoever chose it), it was created by a player seated in it or by a trusted backend,
  every seat is held by a rated-compatible holder (an authenticated player or a bot), and no holder holds two
  seats (a bot seated twice makes the game unrated: nobody is rated against themselves).

Adding a kind of seat means: a field of :class:`SeatRequest`, a branch in :func:`seat_holder`, and its
kind in :data:`RATED_SEAT_KINDS`.
"""

from __future__ import annotations

import re
from typing import Annotated

import msgspec

from benthic.errors import ApiError
from benthic.patterns import END
from benthic.rules.bots import BOT_NAMES, make_bot
from benthic.store import SeatInfo
from benthic.trust.identity import BOT_PLAYER_PREFIX, PLAYER, PLAYER_ID, Credential, is_bot_player_id

BOT = "bot"
RATED_SEAT_KINDS = frozenset({PLAYER, BOT})
NAME_LIMIT = 64
# A display name: no control, format, separator (but the space) or private-use characters; the same pattern is
# enforced (msgspec) and documented (OpenAPI).
NAME_PATTERN = ("^[^\\u0000-\\u001f\\u007f-\\u00a0\\u00ad\\u061c\\u1680\\u180e\\u2000-\\u200f\\u2028-\\u202f"
                "\\u205f-\\u206f\\u3000\\ue000-\\uf8ff\\ufeff\\ufff0-\\uffff]*" + END)
_NAME = re.compile(NAME_PATTERN)
PlayerId = Annotated[str, msgspec.Meta(pattern=PLAYER_ID.pattern, description="1-128 of [A-Za-z0-9_.:@|+-]")]
Name = Annotated[str, msgspec.Meta(max_length=NAME_LIMIT, pattern=NAME_PATTERN,
                                   description="a display name: at most 64 printable characters")]


class SeatRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A seat at creation: a player (``player_id``; a player creating the game may leave it out for
    themselves), or null in the seats list for an open seat."""

    player_id: PlayerId | None = None
    name: Name = ""
    bot: str | None = None  # a server-side bot plays this seat
    level: int | None = None  # the bot's level (stronger bots' budget)


def check_name(value: str, what: str) -> None:
    if len(value) > NAME_LIMIT or not _NAME.match(value):
        raise ApiError(400, "invalid_request", f"{what} must be at most {NAME_LIMIT} printable characters")


def check_player_id(value: str, what: str) -> None:
    if not PLAYER_ID.match(value):
        raise ApiError(400, "invalid_request", f"{what} must be 1-128 characters of [A-Za-z0-9_.:@|+-]")
    if is_bot_player_id(value):
        raise ApiError(400, "reserved_player_id", f"{what}: ids starting with {BOT_PLAYER_PREFIX!r} are the "
                                                  "platform's bots; a bot seat is asked for with {\"bot\": name}")


def display_name(requested: str, credential: Credential | None, player_id: str) -> str:
    if requested:
        return requested
    if credential is not None and credential.name:
        return credential.name
    return player_id


def seat_holder(index: int, seat: SeatRequest, creator: Credential) -> SeatInfo:
    """The holder of a seat named at creation, as ``creator`` may name it."""
    what = f"seats[{index}]"
    check_name(seat.name, f"{what}.name")
    if seat.bot is not None:
        return bot_holder(what, seat)
    if seat.level is not None:
        raise ApiError(400, "invalid_request", f"{what}.level: only a bot seat has a level")
    if creator.kind == PLAYER:
        player_id = seat.player_id if seat.player_id is not None else creator.subject
        if player_id != creator.subject:
            raise ApiError(403, "player_mismatch",
                           f"a player seats only themselves ({creator.subject!r}), not {player_id!r}: other seats "
                           "stay open for their players to join, or a trusted backend names the players")
        return SeatInfo(player_id, display_name(seat.name, creator, player_id), PLAYER)
    if seat.player_id is None:
        raise ApiError(400, "invalid_request", f"{what}.player_id: a backend names the player of every seat")
    check_player_id(seat.player_id, f"{what}.player_id")
    return SeatInfo(seat.player_id, seat.name or seat.player_id, PLAYER)


def bot_holder(what: str, seat: SeatRequest) -> SeatInfo:
    if seat.player_id is not None:
        raise ApiError(400, "invalid_request", f"{what}: a bot seat names no player_id")
    if seat.bot not in BOT_NAMES:
        raise ApiError(400, "unknown_bot", f"{what}.bot: unknown bot {seat.bot!r}; bots: {', '.join(BOT_NAMES)}")
    if seat.level is not None and not 1 <= seat.level <= 10:
        raise ApiError(400, "invalid_bot_level", f"{what}.level must be 1..10")
    try:
        make_bot(seat.bot, seat.level)
    except ValueError as error:  # a known bot: its levels are fewer (the search bot has 1..3)
        raise ApiError(400, "invalid_bot_level", f"{what}.level: {error}") from None
    player_id = f"{BOT_PLAYER_PREFIX}{seat.bot}" + ("" if seat.level is None else f"@{seat.level}")
    name = seat.name or (f"{seat.bot} bot" if seat.level is None else f"{seat.bot} bot (level {seat.level})")
    return SeatInfo(player_id, name, BOT, bot=seat.bot, level=seat.level)


def seats_at_creation(requested: list[SeatRequest | None], creator: Credential) -> list[SeatInfo | None]:
    seats: list[SeatInfo | None] = []
    for index, seat in enumerate(requested):
        holder = seat_holder(index, seat, creator) if seat is not None else None
        if holder is not None and holder.kind != BOT and any(
                s is not None and s.player_id == holder.player_id for s in seats):
            raise ApiError(422, "duplicate_player", f"player {holder.player_id!r} holds two seats")
        seats.append(holder)
    if creator.kind == PLAYER and not any(s is not None and s.player_id == creator.subject for s in seats):
        raise ApiError(422, "creator_not_seated",
                       "a player creates games to play them: take a seat (e.g. {} as the first seat)")
    return seats


def rated_at_creation(requested: bool, seeded: bool, creator: Credential, seats: list[SeatInfo | None]) -> bool:
    """Open seats do not count yet: each join keeps the game rated only if its holder is rated-compatible."""
    creator_ok = creator.trusted or any(s is not None and s.player_id == creator.subject for s in seats)
    held = [s.player_id for s in seats if s is not None]
    return (
        requested
        and not seeded
        and creator_ok
        and all(s is None or s.kind in RATED_SEAT_KINDS for s in seats)
        and len(set(held)) == len(held)
    )


def keeps_rated(holder: SeatInfo) -> bool:
    return holder.kind in RATED_SEAT_KINDS
