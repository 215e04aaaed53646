"""A game's history as one viewer may see it: each stream entry redacted for that viewer, with its sentence in
the reader's language, derived when read (from the live stream or the archive alike, by this one function, so
both serve the same bytes), never stored per viewer."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import msgspec

from benthic.game import platform_events
from benthic.game.events import Envelope
from benthic.i18n import DEFAULT_LANGUAGE, render
from benthic.i18n.platform import platform_sentence
from benthic.rules import AnyEngine, Message

_json = msgspec.json.Encoder()


class _Entry(msgspec.Struct, frozen=True):
    version: int
    ts_ms: int
    event: Any
    text: str | None  # the event as a sentence, or None for an event without one


def history_entry(
    engine: AnyEngine, envelope: Envelope, viewer: int | None, event: Any = None,
    language: str = DEFAULT_LANGUAGE, names: Sequence[str | None] = (),
) -> bytes | None:
    """The history entry ``{"version", "ts_ms", "event", "text"}`` of one stream entry as ``viewer`` (a seat, or
    None for a spectator) may see it, or None when that viewer does not see the event at all.  ``text`` is the
    engine's sentence made from that same redacted event, in ``language``, seats written as their ``names``
    (when known).  Platform events (``game_scored``, ``command_undone``, ...) are public: shown as stored, their
    sentence from ``benthic.i18n.platform``.
    ``event``: the engine event already decoded."""
    if envelope.is_engine:
        if event is None:
            event = engine.decode_event(envelope.data, envelope.engine_version)
        shown = engine.redact(event, viewer)
        if shown is None:
            return None
        sentence = engine.sentence(shown)
        text = render(sentence, language, names) if sentence is not None else None
        return _json.encode(_Entry(envelope.version, envelope.ts_ms, shown, text))
    sentence = stored_sentence(envelope.type, envelope.data)
    text = render(sentence, language, names) if sentence is not None else None
    return _json.encode(_Entry(envelope.version, envelope.ts_ms, msgspec.Raw(envelope.data), text))


def stored_sentence(type_: str, data: bytes) -> Message | None:
    """The sentence of a platform event as stored (its type, its JSON), decoded through the table
    (benthic.game.platform_events); an entry the table does not know, or cannot decode, is read as the JSON object
    it holds (None when it holds none)."""
    try:
        known = platform_events.decode(type_, data)
        event = msgspec.to_builtins(known) if known is not None else msgspec.json.decode(data)
    except msgspec.DecodeError:
        try:
            event = msgspec.json.decode(data)
        except msgspec.DecodeError:
            return None
    return platform_sentence(event) if isinstance(event, dict) else None


def seat_names(seats: Sequence[dict[str, Any] | None]) -> list[str | None]:
    """The names sentences give the seats (their display names, else player ids; None: an open seat) from the
    game's seats as stored (``SeatInfo`` as JSON)."""
    return [(s.get("name") or s.get("player_id") or None) if s else None for s in seats]


def history_page(
    engine: AnyEngine, envelopes: Iterable[Envelope], viewer: int | None, after: int, limit: int,
    language: str = DEFAULT_LANGUAGE, names: Sequence[str | None] = (),
) -> list[bytes]:
    """The entries after version ``after``, at most ``limit`` of them, oldest first (what the read API's
    ``?after=&limit=`` pages through), their sentences in ``language``."""
    page: list[bytes] = []
    for envelope in envelopes:
        if envelope.version <= after:
            continue
        entry = history_entry(engine, envelope, viewer, language=language, names=names)
        if entry is not None:
            page.append(entry)
            if len(page) >= limit:
                break
    return page


def history_body(game_id: str, version: int, entries: list[bytes], language: str = DEFAULT_LANGUAGE) -> bytes:
    """The body of ``GET /games/{id}/history``."""
    return b"".join(
        (b'{"game_id":', _json.encode(game_id), b',"version":', str(version).encode(), b',"language":',
         _json.encode(language), b',"events":[', b",".join(entries), b"]}")
    )
