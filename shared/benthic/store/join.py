"""Packing the join script's keys and arguments, and reading its reply (``join.lua``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from benthic.feed.keys import feed_key, managed_key
from benthic.game.keys import GameKeys
from benthic.store.scripts import load_lua, text

SOURCE = load_lua(__package__, "join")


class JoinReply(msgspec.Struct, frozen=True):
    outcome: str  # ok | missing | no_such_seat | seat_taken | already_seated
    status: str = ""  # the game's status after an ok
    seat: int | None = None  # the seat the player already holds (already_seated)


def join_call(
    keys: GameKeys, *, seat: int, player_id: str, record: bytes, now_ms: int, notification: bytes, feed_maxlen: int,
    keeps_rated: bool = True,
) -> tuple[list[str], list[Any]]:
    """``keeps_rated`` False: the seat's holder makes the game unrated (not an authenticated player)."""
    feeds = [feed_key(keys.partition), managed_key(keys.partition)]
    arguments = [seat, player_id, record, now_ms, notification, feed_maxlen, "1" if keeps_rated else "0"]
    return [keys.meta, *feeds], arguments


def parse_join_reply(reply: Sequence[Any]) -> JoinReply:
    parts = [text(part) for part in reply]
    if parts[0] == "ok":
        return JoinReply("ok", status=parts[1])
    if parts[0] == "already_seated":
        return JoinReply("already_seated", seat=int(parts[1]))
    return JoinReply(parts[0])
