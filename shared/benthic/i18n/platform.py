"""The history sentences of the platform's own events (``clock_expired``, ``command_undone``, ``game_scored``,
...: the table of benthic.game.platform_events): templates in ``platform_sentences.json`` beside this module, in
the format of an engine's ``sentences.json`` (:class:`benthic.rules.presentation.Sentences`), read once.  Platform
events are public, so a sentence is made from the event as stored."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import msgspec

from benthic.game import platform_events
from benthic.rules.presentation import Message, Sentences


@cache
def platform_sentences() -> Sentences:
    raw = msgspec.json.decode((files("benthic.i18n") / "platform_sentences.json").read_bytes())
    return Sentences(raw, {}, {})


def platform_sentence(event: dict[str, Any] | platform_events.PlatformEvent) -> Message | None:
    """The sentence of a platform event (its Struct, or its JSON object, ``type`` included), or None for a type
    without one."""
    shown = msgspec.to_builtins(event) if isinstance(event, platform_events.PlatformEvent) else event
    return platform_sentences().sentence(shown)


def stored_sentence(type_: str, data: bytes) -> Message | None:
    """The sentence of a platform event as stored (its type, its JSON), decoded through the table; an entry the
    table does not know (or cannot decode) is read as the JSON object it holds, None when it holds none."""
    try:
        known = platform_events.decode(type_, data)
        event = known if known is not None else msgspec.json.decode(data)
    except msgspec.DecodeError:
        try:
            event = msgspec.json.decode(data)
        except msgspec.DecodeError:
            return None
    return platform_sentence(event) if isinstance(event, (dict, platform_events.PlatformEvent)) else None
