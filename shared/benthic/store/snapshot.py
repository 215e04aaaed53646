"""Packing the snapshot script's keys and arguments (``snapshot.lua``).  States are stored zlib-compressed."""

from __future__ import annotations

import zlib
from typing import Any

from benthic.game.keys import GameKeys
from benthic.store.records import Snapshot
from benthic.store.scripts import load_lua

SOURCE = load_lua(__package__, "snapshot")


def snapshot_call(keys: GameKeys, snapshot: Snapshot) -> tuple[list[str], list[Any]]:
    return [keys.snapshot, keys.meta], [snapshot.engine_version, snapshot.version, zlib.compress(snapshot.state, 1),
                                        snapshot.life]


def parse_snapshot(raw: dict[bytes, bytes]) -> Snapshot | None:
    if not raw:
        return None
    return Snapshot(raw[b"engine"].decode(), int(raw[b"version"]), zlib.decompress(raw[b"state"]),
                    raw.get(b"life", b""))
