"""The history sentences of the platform's own events (``clock_expired``, ``command_undone``, ``game_scored``,
...): templates in ``platform_sentences.json`` beside this module, in the format of an engine's
``sentences.json`` (:class:`benthic.rules.presentation.Sentences`), read once.  Platform events are public, so
a sentence is made from the event as stored."""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

import msgspec

from benthic.rules.presentation import Message, Sentences


@cache
def platform_sentences() -> Sentences:
    raw = msgspec.json.decode((files("benthic.i18n") / "platform_sentences.json").read_bytes())
    return Sentences(raw, {}, {})


def platform_sentence(event: dict[str, Any]) -> Message | None:
    """The sentence of a platform event (its JSON object, ``type`` included), or None for a type without one."""
    return platform_sentences().sentence(event)
