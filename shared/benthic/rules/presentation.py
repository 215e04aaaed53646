"""What the engines tell people: the content catalogue and readable descriptions of commands.

``Engine.catalogue()`` returns one JSON-ready dict per game (its shape is documented in
docs/ENGINE_CONTRACT.md); ``Engine.describe(state, command, seat)`` returns a :class:`Description`.
This module holds what the three engines share: the Description type, the catalogue's envelope and its
structural checks, the content version (a digest of the catalogue), and small English helpers.

Pure: no I/O (each engine reads its own layout and term files next to its content, at import).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

import msgspec

__all__ = [
    "MAX_LABEL",
    "N_",
    "as_sentence",
    "capitalised",
    "catalogue_messages",
    "joined",
    "message_keys",
    "CatalogueError",
    "Description",
    "Label",
    "Message",
    "SeatRef",
    "catalogue_ids",
    "check_catalogue",
    "count",
    "counted",
    "empty_catalogue",
    "envelope",
    "generic_description",
    "join_and",
    "join_or",
    "msg",
    "named_ids_in",
    "sentence",
    "snake_name",
    "terms_from",
]

MAX_LABEL = 120  # a label fits on one line of a phone screen


class SeatRef(msgspec.Struct, frozen=True):
    """A seat named in a message: the presentation layer writes the seat's player name, or "Seat 2"."""

    seat: int


class Message(msgspec.Struct, frozen=True):
    """A text to translate: ``key`` is its English template with ``{name}`` placeholders (the gettext msgid),
    ``params`` fill them.  A param that is itself a Message is translated too; a SeatRef becomes a player's
    name; any other value is written as it is (ids, coordinates, numbers).  The engines build Messages; the
    presentation layer (``benthic.i18n``) translates them; :meth:`english` is the untranslated text.

    ``plural``, when set, is the English plural template (gettext's ``msgid_plural``): the form is chosen by
    the count in ``params["n"]`` (ngettext).  ``capital`` writes the text with a capital first letter (a
    fragment made into a sentence)."""

    key: str
    params: dict[str, Any] = {}
    plural: str = ""
    capital: bool = False

    def english(self) -> str:
        template = self.plural if self.plural and self.params.get("n") != 1 else self.key
        text = template.format_map({k: _english(v) for k, v in self.params.items()}) if self.params else template
        return capitalised(text) if self.capital else text

    def msgid(self) -> str | tuple[str, str]:
        """The catalogue key: the template, or (singular, plural) for a plural message."""
        return (self.key, self.plural) if self.plural else self.key


def _english(value: Any) -> Any:
    if isinstance(value, Message):
        return value.english()
    if isinstance(value, SeatRef):
        return f"Seat {value.seat + 1}"
    return value


def capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def message_keys(value: Any) -> Iterator[str | tuple[str, str]]:
    """Every msgid a Message (and the Messages among its params) uses."""
    if isinstance(value, Message):
        yield value.msgid()
        for param in value.params.values():
            yield from message_keys(param)


def N_(text: str) -> str:
    """Marks a msgid that a Message is built from later (gettext's ``gettext_noop``: Babel's extractor finds it)."""
    return text


def counted(n: int, singular: str, plural: str, **params: Any) -> Message:
    """``counted(2, "{n} credit", "{n} credits")``: a plural message (one msgid with its plural, ngettext);
    ``params`` fill its other placeholders."""
    return Message(singular, {"n": n, **params}, plural=plural)


def msg(key: str, **params: Any) -> Message:
    """``msg("Build {tile} at {cell}", tile=..., cell="3,4")``: a Message (Babel's extractor finds ``msg``)."""
    return Message(key, params)


def as_sentence(fragment: Message) -> Message:
    """A lower-case fragment as a sentence: capitalised, with a full stop unless it ends with punctuation."""
    if fragment.english().endswith((".", "!", "?")):
        return msgspec.structs.replace(fragment, capital=True)
    return Message(N_("{text}."), {"text": fragment}, capital=True)


def joined(items: Sequence[Message | str], template: str, empty: Message | str = "") -> Message | str:
    """Items joined pairwise with ``template`` (a msgid with ``{a}`` and ``{b}``: "{a}, then {b}")."""
    parts = [i for i in items if i]
    if not parts:
        return empty
    out = parts[-1]
    for item in reversed(parts[:-1]):
        out = Message(template, {"a": item, "b": out})
    return out


class Label(msgspec.Struct, frozen=True):
    """A Description as the answers carry it: the label in the reader's language and the highlights."""

    # Its name in the OpenAPI documents: the answers' labels were `Description` before this type split from the
    # engines' (which gained its Message), and clients generated from the documents name their types after it.
    __schema_name__: ClassVar[str] = "Description"

    label: str
    highlights: list[str] = []


class Description(msgspec.Struct, frozen=True):
    """One legal command as a person reads it.

    ``label`` is a short English sentence ("Build a farm at C24 for 1 kelp"); ``highlights`` are catalogue
    ids (component ids, or space ids of a board in play) of the things the command concerns.  ``message``,
    when the engine gives one, is the label as a Message to translate (the answers carry only the label,
    translated: ``benthic.i18n.localized_labels``).
    """

    label: str
    highlights: list[str] = []
    message: Message | None = None

    @classmethod
    def of(cls, message: Message, highlights: list[str] | None = None) -> Description:
        return cls(message.english(), highlights or [], message)


class CatalogueError(ValueError):
    """A catalogue (or the layout / term data it is built from) breaks a structural rule."""


# --- English -------------------------------------------------------------------------------------------------

def count(n: int, singular: str, plural: str | None = None) -> str:
    """``count(2, "credit")`` -> "2 credits"; uncountable nouns pass ``plural=singular``."""
    return f"{n} {singular if n == 1 else (plural if plural is not None else singular + 's')}"


def _join(items: Iterable[str], word: str) -> str:
    parts = [i for i in items if i]
    if len(parts) <= 1:
        return "".join(parts)
    return f"{', '.join(parts[:-1])} {word} {parts[-1]}"


def join_and(items: Iterable[str]) -> str:
    return _join(items, "and")


def join_or(items: Iterable[str]) -> str:
    return _join(items, "or")


def sentence(text: str) -> str:
    """Capitalised, ending with a full stop (unless it already ends with punctuation)."""
    text = text.strip()
    if not text:
        return text
    text = text[0].upper() + text[1:]
    return text if text[-1] in ".!?" else text + "."


def snake_name(term: str) -> str:
    """A default readable name of a snake_case term: ``choose_play`` -> "Choose play"."""
    words = term.replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else term


def terms_from(raw: Mapping[str, str | Mapping[str, str]], extra: Iterable[str] = ()) -> dict[str, dict[str, str]]:
    """The ``terms`` section: every term of ``raw`` (name, or {name, text}) plus ``extra`` terms that
    ``raw`` does not name (their name is derived from the term itself)."""
    out: dict[str, dict[str, str]] = {}
    for term, value in raw.items():
        if isinstance(value, str):
            out[term] = {"name": value}
        else:
            entry = {"name": value.get("name") or snake_name(term)}
            if value.get("text"):
                entry["text"] = value["text"]
            out[term] = entry
    for term in extra:
        out.setdefault(term, {"name": snake_name(term)})
    return dict(sorted(out.items()))


# --- the catalogue -------------------------------------------------------------------------------------------

SECTIONS = ("components", "boards", "tracks", "terms", "options")


def envelope(engine_version: str, game_type: str, name: str, seats: tuple[int, int],
             body: dict[str, Any]) -> dict[str, Any]:
    """The complete catalogue: ``body`` (the sections of :data:`SECTIONS` and any game-specific extras)
    checked, under the common keys, with ``content_version`` = the engine version plus a digest of the
    catalogue itself (any change of a text, a number or a coordinate gives a new version)."""
    catalogue: dict[str, Any] = {
        "game_type": game_type,
        "name": name,
        "seats": {"min": seats[0], "max": seats[1]},
        "units": "abstract: every board has a view_box [x, y, width, height] (SVG viewBox) around its spaces; "
                 "a space's x, y are its centre, w, h its size",
        **body,
    }
    messages: dict[str, Message] = {}
    catalogue = _english_texts(catalogue, messages)
    check_catalogue(catalogue)
    plain: dict[str, Any] = msgspec.json.decode(msgspec.json.encode(catalogue))  # JSON types only (no tuples)
    digest = hashlib.sha256(msgspec.json.encode(plain, order="sorted")).hexdigest()[:12]
    version = f"{engine_version}~{digest}"
    _MESSAGES[version] = messages
    return {"content_version": version, **plain}


# content_version -> {English text: its Message}: the texts a catalogue builder gave as Messages (effect texts,
# space names ...).  Kept beside the catalogue, not in it: the catalogue is JSON, and its English stays as it
# was; the presentation layer translates a text by finding its Message here (``catalogue_messages``).
_MESSAGES: dict[str, dict[str, Message]] = {}


def _english_texts(value: Any, messages: dict[str, Message]) -> Any:
    """``value`` with every Message in it replaced by its English text (recorded in ``messages``)."""
    if isinstance(value, Message):
        text = value.english()
        messages.setdefault(text, value)
        return text
    if isinstance(value, dict):
        return {k: _english_texts(v, messages) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_english_texts(v, messages) for v in value]
    return value


def catalogue_messages(catalogue: Mapping[str, Any]) -> Mapping[str, Message]:
    """English text -> Message of the texts of ``catalogue`` (built by :func:`envelope`) that were given as
    Messages; empty for a catalogue built elsewhere."""
    return _MESSAGES.get(str(catalogue.get("content_version")), {})


def catalogue_ids(catalogue: Mapping[str, Any]) -> dict[str, set[str]]:
    """The ids a catalogue describes, by kind: ``components``, ``spaces`` (of every board), ``track_spaces``
    (labels, scoped to their track) and ``terms``."""
    spaces: set[str] = set()
    for board in catalogue["boards"].values():
        spaces.update(board["spaces"])
    track_spaces = {s["id"] for track in catalogue["tracks"].values() for s in track["spaces"]}
    return {"components": set(catalogue["components"]), "spaces": spaces, "track_spaces": track_spaces,
            "terms": set(catalogue["terms"])}


def _fail(message: str) -> None:
    raise CatalogueError(message)


def _check_box(where: str, item: Mapping[str, Any]) -> None:
    for key in ("x", "y", "w", "h"):
        if not isinstance(item.get(key), (int, float)):
            _fail(f"{where}: needs a number {key!r}")
    if item["w"] <= 0 or item["h"] <= 0:
        _fail(f"{where}: a size must be positive")


def _check_no_overlap(board_id: str, spaces: Mapping[str, Mapping[str, Any]]) -> None:
    """No two spaces of a board overlap (touching edges is fine): a sweep over the left edges."""
    boxes = sorted((s["x"] - s["w"] / 2, s["x"] + s["w"] / 2, s["y"] - s["h"] / 2, s["y"] + s["h"] / 2, sid)
                   for sid, s in spaces.items())
    for i, (_left, right, top, bottom, sid) in enumerate(boxes):
        for other_left, _, other_top, other_bottom, other in boxes[i + 1:]:
            if other_left >= right:
                break
            if other_top < bottom and top < other_bottom:
                _fail(f"board {board_id!r}: spaces {sid!r} and {other!r} overlap")


def check_catalogue(catalogue: Mapping[str, Any]) -> None:
    """Structural rules every catalogue keeps (raises CatalogueError):

    * the sections exist; component ids are unique (they are dict keys, and each entry's ``id`` is its key);
    * every component and term has a non-empty ``name``; every component with ``effect`` data has ``text``;
    * every board has a ``view_box`` and spaces with a centre and size inside it, none overlapping another;
      boards of different
      ``kind`` share no space id, and no space id is also a component id;
    * every connection joins spaces of its board; every track space has an id and a name;
    * the whole catalogue is JSON-encodable.
    """
    for section in SECTIONS:
        if not isinstance(catalogue.get(section), (dict, list)):
            _fail(f"catalogue: section {section!r} missing")
    components = catalogue["components"]
    for cid, entry in components.items():
        if entry.get("id") != cid:
            _fail(f"component {cid!r}: its id field differs from its key")
        if not entry.get("name") or not entry.get("category"):
            _fail(f"component {cid!r}: needs a name and a category")
        if entry.get("effect") is not None and not entry.get("text"):
            _fail(f"component {cid!r}: an effect needs a text")
    for term, entry in catalogue["terms"].items():
        if not entry.get("name"):
            _fail(f"term {term!r}: needs a name")
    kind_of_space: dict[str, str] = {}
    for bid, board in catalogue["boards"].items():
        if board.get("id") != bid or not board.get("name") or not board.get("kind"):
            _fail(f"board {bid!r}: needs its id, a name and a kind")
        box = board.get("view_box")
        if not (isinstance(box, list) and len(box) == 4 and box[2] > 0 and box[3] > 0):
            _fail(f"board {bid!r}: view_box is [x, y, width, height]")
        x0, y0, width, height = box
        for sid, space in board["spaces"].items():
            where = f"board {bid!r} space {sid!r}"
            if space.get("id") != sid or not space.get("name") or not space.get("kind"):
                _fail(f"{where}: needs its id, a name and a kind")
            _check_box(where, space)
            if not (x0 <= space["x"] - space["w"] / 2 and space["x"] + space["w"] / 2 <= x0 + width
                    and y0 <= space["y"] - space["h"] / 2 and space["y"] + space["h"] / 2 <= y0 + height):
                _fail(f"{where}: outside the view_box")
            if sid in components:
                _fail(f"{where}: the id is also a component id")
            other = kind_of_space.setdefault(sid, board["kind"])
            if other != board["kind"]:
                _fail(f"{where}: the id is also a space of a {other} board")
        _check_no_overlap(bid, board["spaces"])
        for link in board.get("connections", ()):
            if link.get("a") not in board["spaces"] or link.get("b") not in board["spaces"]:
                _fail(f"board {bid!r}: connection {link} joins unknown spaces")
    for tid, track in catalogue["tracks"].items():
        if track.get("id") != tid or not track.get("name") or not track.get("spaces"):
            _fail(f"track {tid!r}: needs its id, a name and spaces")
        labels = [s.get("id") for s in track["spaces"]]
        if len(set(labels)) != len(labels) or not all(labels) or not all(s.get("name") for s in track["spaces"]):
            _fail(f"track {tid!r}: spaces need distinct ids and names")
    for option in catalogue["options"]:
        if not option.get("name") or "default" not in option or "values" not in option or not option.get("text"):
            _fail(f"option {option}: needs a name, a default, values (a list, or null when open) and a text")
    msgspec.json.encode(catalogue)


# --- engines that describe nothing yet -----------------------------------------------------------------------

_EMPTY: dict[str, dict[str, Any]] = {}


def empty_catalogue(engine: Any) -> dict[str, Any]:
    """The catalogue of an engine without one (a plugin): no components, boards or terms; cached per engine."""
    key = f"{engine.game_type}@{engine.version}"
    if key not in _EMPTY:
        body: dict[str, Any] = {"components": {}, "boards": {}, "tracks": {}, "terms": {}, "options": []}
        _EMPTY[key] = envelope(engine.version, engine.game_type, snake_name(engine.game_type),
                               (engine.min_seats, engine.max_seats), body)
    return _EMPTY[key]


def generic_description(name: str, fields: Mapping[str, Any]) -> Description:
    """ "Play card: x" from a command's name and JSON fields (for engines without ``describe``)."""
    args = ", ".join(f"{k} {msgspec.json.encode(v).decode()}" for k, v in fields.items() if k != "type")
    label = snake_name(name) + (f": {args}" if args else "")
    return Description(label if len(label) <= MAX_LABEL else label[:MAX_LABEL - 1] + "…", [])


# --- labels --------------------------------------------------------------------------------------------------

_TOKEN = re.compile(r"[^\s,;()\[\]\"']+")


def named_ids_in(label: str, named: Mapping[str, str]) -> list[str]:
    """The component ids of ``named`` (id -> name, for components whose name differs from the id) that a
    label writes raw instead of by name (a trailing full stop or colon is not part of an id)."""
    found = []
    for token in _TOKEN.findall(label):
        for candidate in (token, token.rstrip(".:")):
            if candidate in named:
                found.append(candidate)
                break
    return found


# --- history sentences ---------------------------------------------------------------------------------------

_PLACEHOLDER = re.compile(r"{(\w+)}")


class Sentences:
    """The history sentences of one game, from its ``sentences.json``: per event type, one template or a list
    of variants ``{"text", "when"?, "seats"?, "terms"?, "components"?, "places"?, "bags"?,
    "lengths"?}``.  The first variant whose
    ``when`` fields equal the event's and whose placeholders all name fields the event shows (not null: a
    redacted field skips the variant) makes the sentence.  A placeholder is the event field of that name:
    ``seat`` and the fields in ``seats`` are seats (SeatRef), those in ``terms`` catalogue terms (their names,
    translated), those in ``components`` component ids or lists of them (their names, translated: a component's
    name is a msgid), those in ``places`` ids of places (board sites) named as the labels name them (the
    ``places`` given: id -> its name; an id without one is written as it is), those in ``bags`` {term: amount}
    maps ("2 × Credit and 1 × Kelp"), a pair of numbers a cell "x,y"; a placeholder named in ``lengths``
    (placeholder -> field) is the length of that list field."""

    def __init__(self, raw: Mapping[str, Any], components: Mapping[str, str], terms: Mapping[str, str],
                 places: Mapping[str, Message | str] | None = None) -> None:
        self.variants: dict[str, list[dict[str, Any]]] = {
            event_type: [{"text": v} if isinstance(v, str) else v for v in (variants if isinstance(variants, list)
                                                                             else [variants])]
            for event_type, variants in raw.items() if not event_type.startswith("_")}
        self.components = components
        self.terms = terms
        self.places: Mapping[str, Message | str] = places or {}

    def keys(self) -> list[str | tuple[str, str]]:
        """Every template (a msgid), and every counted phrase (a singular and plural msgid)."""
        keys: list[str | tuple[str, str]] = []
        for variants in self.variants.values():
            for v in variants:
                keys.append(v["text"])
                keys.extend((one, many) for one, many in v.get("counted", {}).values())
        return keys

    def sentence(self, shown: Mapping[str, Any]) -> Message | None:
        for variant in self.variants.get(shown.get("type", ""), ()):
            lengths = variant.get("lengths", {})
            if any(self._field(shown, k, lengths) != v for k, v in variant.get("when", {}).items()):
                continue
            params: dict[str, Any] = {}
            for name in _PLACEHOLDER.findall(variant["text"]):
                value = shown.get(lengths.get(name, name))
                if name in lengths and isinstance(value, (list, tuple)):
                    value = len(value)
                if value is None:
                    break
                params[name] = self._param(name, value, variant)
            else:
                template = variant["text"]
                return Message(template, params)
        return None

    @staticmethod
    def _field(shown: Mapping[str, Any], name: str, lengths: Mapping[str, str]) -> Any:
        """A field a variant's ``when`` compares: the event's, or the length of the list a ``lengths`` name counts."""
        if name in lengths:
            value = shown.get(lengths[name])
            return len(value) if isinstance(value, (list, tuple)) else value
        return shown.get(name)

    def _param(self, name: str, value: Any, variant: Mapping[str, Any]) -> Any:
        if name in variant.get("counted", {}) and isinstance(value, int):  # "{n} time" / "{n} times", by the count
            one, many = variant["counted"][name]
            return Message(one, {"n": value}, plural=many)
        if name == "seat" or name in variant.get("seats", ()):
            return SeatRef(int(value))
        if name in variant.get("terms", ()):
            return Message(self.terms.get(str(value), snake_name(str(value))))
        if name in variant.get("components", ()):
            if isinstance(value, (list, tuple)):
                return join_messages([self._component(str(v)) for v in value])
            return self._component(str(value))
        if name in variant.get("places", ()):
            return self.places.get(str(value), str(value))
        if name in variant.get("bags", ()) and isinstance(value, Mapping):
            return join_messages([Message("{n} × {what}", {"n": n, "what": Message(self.terms.get(k, snake_name(k)))})
                                  for k, n in value.items() if n])
        if isinstance(value, (list, tuple)) and len(value) == 2 and all(isinstance(v, int) for v in value):
            cell = f"{value[0]},{value[1]}"
            return self.places.get(cell, cell)
        return value

    def _component(self, cid: str) -> Message | str:
        known = self.components.get(cid)
        return Message(known) if known is not None else cid


def join_messages(items: Sequence[Message | str], word: str = "and") -> Message | str:
    """ "a, b and c" (``word`` "or": "a, b or c") as one Message (each joint translated; items are Messages or
    names)."""
    if not items:
        return Message("nothing")
    joined: Message | str = items[-1]
    last = N_("{a} and {b}") if word == "and" else N_("{a} or {b}")
    for i, item in enumerate(reversed(items[:-1])):
        joined = Message(last if i == 0 else N_("{a}, {b}"), {"a": item, "b": joined})
    return joined


def sentences_from(raw: Mapping[str, Any], catalogue: Mapping[str, Any],
                   places: Mapping[str, Message | str] | None = None) -> Sentences:
    """A game's Sentences, naming components and terms as its catalogue does, and places as ``places`` does."""
    return Sentences(raw, {cid: c["name"] for cid, c in catalogue["components"].items()},
                     {term: t["name"] for term, t in catalogue["terms"].items()}, places)
