"""Messages in a language: the engines' Messages, the labels of legal commands and the content catalogue."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from benthic.i18n.catalogs import DEFAULT_LANGUAGE, gettext
from benthic.rules.presentation import MAX_LABEL, Description, Label, Message, SeatRef


def render(message: Message, language: str, names: Sequence[str | None] = ()) -> str:
    """``message`` in ``language``; a seat is written as its player's name in ``names`` when known."""
    if not message.params:
        return gettext(language, message.key)
    values = {key: _value(value, language, names) for key, value in message.params.items()}
    return gettext(language, message.key).format_map(values)


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
# fields).  A component's name is its msgid: the labels and sentences that name it translate the same key.
# Components' effect texts stay English (written from effect data by each engine's texts.py).
def catalogue_texts(catalogue: dict[str, Any]) -> list[str]:
    texts = [catalogue["name"]]
    texts.extend(component["name"] for component in catalogue["components"].values())
    for term in catalogue["terms"].values():
        texts.append(term["name"])
        if term.get("text"):
            texts.append(term["text"])
    texts.extend(board["name"] for board in catalogue["boards"].values())
    texts.extend(track["name"] for track in catalogue["tracks"].values())
    texts.extend(option["text"] for option in catalogue["options"])
    return texts


def localized_catalogue(catalogue: dict[str, Any], language: str) -> dict[str, Any]:
    """A copy of ``catalogue`` with its texts (:func:`catalogue_texts`) in ``language`` and ``language`` set;
    the catalogue itself when English.  Its ``content_version`` stays: it versions the content, and an
    answer's ETag (a digest of the body) differs per language."""
    if language == DEFAULT_LANGUAGE:
        return catalogue
    out = copy.deepcopy(catalogue)
    out["language"] = language
    out["name"] = gettext(language, out["name"])
    for component in out["components"].values():
        component["name"] = gettext(language, component["name"])
    for term in out["terms"].values():
        term["name"] = gettext(language, term["name"])
        if term.get("text"):
            term["text"] = gettext(language, term["text"])
    for section in ("boards", "tracks"):
        for item in out[section].values():
            item["name"] = gettext(language, item["name"])
    for option in out["options"]:
        option["text"] = gettext(language, option["text"])
    return out
