"""A viewer's event history, derived from the stream entries: one function, used by the projection when it
writes histories and by the readers of archived games, so both serve the same bytes."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from benthic.events import Envelope
from benthic.rules import Engine

_json = msgspec.json.Encoder()


def history_entry(engine: Engine, envelope: Envelope, viewer: int | None, event: Any = None) -> bytes | None:
    """The history entry ``{"version", "ts_ms", "event"}`` of one stream entry as ``viewer`` (a seat, or None
    for a spectator) may see it, or None when that viewer does not see the event at all.  Platform events
    (``game_scored``) are public.  ``event``: the engine event already decoded (saves decoding it again for
    every viewer)."""
    if envelope.is_engine:
        shown = engine.redact(event if event is not None else engine.decode_event(envelope.data), viewer)
        if shown is None:
            return None
    else:
        shown = msgspec.json.decode(envelope.data)
    return _json.encode({"version": envelope.version, "ts_ms": envelope.ts_ms, "event": shown})


def history_page(
    engine: Engine, envelopes: Iterable[Envelope], viewer: int | None, after: int, limit: int
) -> list[bytes]:
    """The entries after version ``after``, at most ``limit`` of them, oldest first (what the read API's
    ``?after=&limit=`` pages through)."""
    page: list[bytes] = []
    for envelope in envelopes:
        if envelope.version <= after:
            continue
        entry = history_entry(engine, envelope, viewer)
        if entry is not None:
            page.append(entry)
            if len(page) >= limit:
                break
    return page
