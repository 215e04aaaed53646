"""A game's history as one viewer may see it: each stream entry redacted for that viewer, derived when read
(from the live stream or the archive alike), never stored per viewer."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from benthic.events import Envelope
from benthic.rules import Engine

_json = msgspec.json.Encoder()


class _Entry(msgspec.Struct, frozen=True):
    version: int
    ts_ms: int
    event: Any


def history_entry(engine: Engine, envelope: Envelope, viewer: int | None) -> bytes | None:
    """The JSON of one history entry for ``viewer`` (None: a spectator), or None when it sees nothing of it.
    Platform events (``game_scored``, ...) are public and shown as stored."""
    if envelope.is_engine:
        shown = engine.redact(engine.decode_event(envelope.data), viewer)
        if shown is None:
            return None
        return _json.encode(_Entry(envelope.version, envelope.ts_ms, shown))
    return _json.encode(_Entry(envelope.version, envelope.ts_ms, msgspec.Raw(envelope.data)))


def history_entries(engine: Engine, envelopes: Iterable[Envelope], viewer: int | None) -> list[bytes]:
    entries = []
    for envelope in envelopes:
        entry = history_entry(engine, envelope, viewer)
        if entry is not None:
            entries.append(entry)
    return entries


def history_body(game_id: str, version: int, entries: list[bytes]) -> bytes:
    """The body of ``GET /games/{id}/history``."""
    return b"".join(
        (b'{"game_id":', _json.encode(game_id), b',"version":', str(version).encode(), b',"events":[',
         b",".join(entries), b"]}")
    )
