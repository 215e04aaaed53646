"""Messages in a language: the engines' Messages, the labels of legal commands and the content catalogue."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from benthic.i18n.catalogs import DEFAULT_LANGUAGE, gettext, ngettext
from benthic.rules.presentation import (
    MAX_LABEL,
    Description,
    Label,
    Message,
    SeatRef,
    capitalised,
    catalogue_messages,
    message_keys,
)


def render(message: Message, language: str, names: Sequence[str | None] = ()) -> str:
    """``message`` in ``language``; a seat is written as its player's name in ``names`` when known."""
    if message.plural:
        template = ngettext(language, message.key, message.plural, int(message.params.get("n", 0)))
    else:
        template = gettext(language, message.key)
    if message.params:
        template = template.format_map({key: _value(value, language, names) for key, value in message.params.items()})
    return capitalised(template) if message.capital else template


def _value(value: Any, language: str, names: Sequence[str | None]) -> Any:
    if isinstance(value, Message):
        return render(value, language, names)
    if isinstance(value, SeatRef):
        name = names[value.seat] if value.seat < len(names) else None
        return name or render(Message("Seat {number}", {"number": value.seat + 1}), language)
    return value


def localized_labels(descriptions: Sequence[Description], language: str) -> list[Label]:
    """The labels as the answers carry them, in ``language`` (a Description without a Message keeps its
    English label)."""
    if language == DEFAULT_LANGUAGE:
        return [Label(d.label, d.highlights) for d in descriptions]
    return [Label(_line(render(d.message, language)) if d.message is not None else d.label, d.highlights)
            for d in descriptions]


def _line(label: str) -> str:
    """A translated label clipped to one line, like the English ones."""
    if len(label) <= MAX_LABEL:
        return label
    return label[:MAX_LABEL - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


# The texts of a catalogue that are translated: the game's name, every component's name, every term's name and
# text, every board's and track's name, every option's text (tests/unit/test_i18n_catalogue.py walks the same
# fields), plus every text the catalogue's builder gave as a Message (effect texts of components, spaces'
# names and texts ...: ``catalogue_messages``).  A component's name is its msgid: the labels and sentences that
# name it translate the same key.
def catalogue_texts(catalogue: dict[str, Any]) -> list[str | tuple[str, str]]:
    texts: list[str | tuple[str, str]] = [catalogue["name"]]
    texts.extend(component["name"] for component in catalogue["components"].values())
    for term in catalogue["terms"].values():
        texts.append(term["name"])
        if term.get("text"):
            texts.append(term["text"])
    texts.extend(board["name"] for board in catalogue["boards"].values())
    texts.extend(track["name"] for track in catalogue["tracks"].values())
    for option in catalogue["options"]:
        texts.append(option["text"])
        texts.extend(flag["text"] for flag in option.get("flags", ()) if flag.get("text"))
    for message in catalogue_messages(catalogue).values():
        texts.extend(message_keys(message))
    return texts


_WALKED = ("components", "boards", "tracks", "terms")  # the sections whose names and texts are read


def localized_catalogue(catalogue: dict[str, Any], language: str) -> dict[str, Any]:
    """A copy of ``catalogue`` with its names and texts in ``language`` and ``language`` set; the catalogue
    itself when English.  A ``name`` or ``text`` is translated from its Message when the builder gave one
    (``catalogue_messages``), else as a msgid (unchanged without a translation); options keep their names.
    Its ``content_version`` stays: it versions the content, and an answer's ETag (a digest of the body)
    differs per language."""
    if language == DEFAULT_LANGUAGE:
        return catalogue
    messages = catalogue_messages(catalogue)

    def text(value: str) -> str:
        found = messages.get(value)
        return render(found, language) if found is not None else gettext(language, value)

    def walk(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: text(v) if k in ("name", "text") and isinstance(v, str) else walk(v) for k, v in value.items()}
        if isinstance(value, list):
            return [walk(v) for v in value]
        return value

    out: dict[str, Any] = {k: walk(v) if k in _WALKED else copy.deepcopy(v) for k, v in catalogue.items()}
    out["language"] = language
    out["name"] = text(catalogue["name"])
    for option in out["options"]:
        option["text"] = text(option["text"])
        for flag in option.get("flags", ()):  # the rule flags an option holds (Underwater Cities' `rules`)
            if flag.get("text"):
                flag["text"] = text(flag["text"])
    return out
