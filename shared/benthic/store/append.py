"""Packing the append script's keys and arguments, and reading its reply (``append.lua``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from benthic.feed.keys import feed_key, lifecycle_key, managed_key
from benthic.game.keys import GameKeys
from benthic.store.scripts import load_lua, text

SOURCE = load_lua(__package__, "append")


class AppendReply(msgspec.Struct, frozen=True):
    status: str  # ok | duplicate | conflict | missing
    first: int
    last: int
    current: int


def append_call(
    keys: GameKeys,
    *,
    expected_version: int,
    command_id: str,
    now_ms: int,
    head: bytes,
    events: Sequence[bytes],
    notification: bytes,
    feed_maxlen: int,
    ended: bool,
    meta: Mapping[str, str],
    lifecycle: bool = False,
) -> tuple[list[str], list[Any]]:
    """``lifecycle``: the commit ends the game or carries platform events; its notification also goes to the
    partition's lifecycle feed."""
    args: list[Any] = [
        expected_version,
        command_id,
        now_ms,
        head,
        notification,
        feed_maxlen,
        "1" if ended else "0",
        len(events),
        len(meta),
        "1" if lifecycle or ended else "0",
        *events,
    ]
    for field, value in meta.items():
        args.extend((field, value))
    feeds = [feed_key(keys.partition), lifecycle_key(keys.partition), managed_key(keys.partition)]
    return [keys.events, keys.meta, keys.commands, *feeds], args


def parse_append_reply(reply: Sequence[Any]) -> AppendReply:
    status, versions, current = (text(part) for part in reply)
    first, _, last = versions.partition(":")
    return AppendReply(status, int(first or 0), int(last or 0), int(current))
