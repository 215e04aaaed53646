"""The game-type documents of the command service: ``GET /game-types/{type}`` (seat counts, options, command
names, content version) and ``GET /game-types/{type}/content`` (the engine's catalogue), encoded once per
process, with a strong ETag and long-lived caching (both answers are versioned by the content version)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from functools import cache
from typing import Any
from urllib.parse import quote

import msgspec
from litestar import Response

from benthic.errors import ApiError
from benthic.game import lifecycle
from benthic.i18n import DEFAULT_LANGUAGE, localized_catalogue
from benthic.rules import RuleViolation, UnknownGameType, game_types, get_engine
from benthic.service.languages import language_headers

MAX_AGE = 86_400  # a day: the answers change only with a new content version
VERSIONED_MAX_AGE = 31_536_000  # a year: a URL naming the current content version never changes


@dataclass(frozen=True)
class Document:
    body: bytes
    etag: str  # strong, quoted
    content_version: str
    pack: str = ""  # the content pack (id@version) a catalogue is drawn from; "": not a catalogue, or no packs
    language: str = ""  # the language of a catalogue's texts; "": not a catalogue


def _document(payload: Any, content_version: str, pack: str = "", language: str = "") -> Document:
    body = msgspec.json.encode(payload)
    digest = hashlib.sha256(body).hexdigest()[:32]  # the body carries the content version (and language)
    return Document(body, f'"{digest}"', content_version, pack, language)


def _engine(game_type: str) -> Any:
    try:
        return get_engine(game_type)
    except UnknownGameType:
        raise ApiError(404, "unknown_game_type",
                       f"unknown game type {game_type!r}; known: {', '.join(game_types())}") from None


class GameType(msgspec.Struct, frozen=True):
    """``GET /game-types/{type}``."""

    game_type: str
    name: str
    min_seats: int
    max_seats: int
    engine_version: str
    content_version: str
    content_url: str  # the content catalogue, pinned to this content version
    options: list[dict[str, Any]]  # {name, default, values, text}: see docs/ENGINE_CONTRACT.md
    platform_options: list[dict[str, Any]]  # the platform's options of every game type (clock, on_expiry)
    commands: list[str]


class GameTypeEntry(msgspec.Struct, frozen=True):
    """An entry of ``GET /game-types``."""

    game_type: str
    min_seats: int
    max_seats: int
    commands: list[str]
    content_version: str


def game_type_entries() -> list[GameTypeEntry]:
    return [GameTypeEntry(g, get_engine(g).min_seats, get_engine(g).max_seats, sorted(get_engine(g).command_names),
                          get_engine(g).content_version) for g in game_types()]


@cache
def game_type_document(game_type: str, language: str = DEFAULT_LANGUAGE) -> Document:
    """The document of ``game_type``, its name and options' texts in ``language``."""
    engine = _engine(game_type)
    catalogue = localized_catalogue(engine.catalogue(), language)
    version = catalogue["content_version"]
    return _document(GameType(
        game_type=engine.game_type,
        name=catalogue.get("name", engine.game_type),
        min_seats=engine.min_seats,
        max_seats=engine.max_seats,
        engine_version=engine.version,
        content_version=version,
        content_url=f"/game-types/{engine.game_type}/content?v={quote(version, safe='')}",
        options=catalogue["options"],
        platform_options=lifecycle.OPTION_DOCS,  # clocks and their expiry policy (every game type)
        commands=sorted(engine.command_names),
    ), version, language=language)


def content_document(game_type: str, pack: str | None = None, language: str = DEFAULT_LANGUAGE) -> Document:
    """The catalogue of ``game_type`` drawn from content pack ``pack`` (``id`` (its newest installed version)
    or ``id@version``, as the option ``content`` of a game names it; None: the default pack), its texts in
    ``language`` (the ETag, a digest of the body, differs per language)."""
    engine = _engine(game_type)
    packs = engine.content_packs
    if pack is None:
        return _content_document(game_type, packs.default_ref.key if packs is not None else "", language)
    if packs is None:
        raise ApiError(404, "unknown_content_pack", f"{game_type} has no content packs")
    try:
        key = packs.resolve(pack).key
    except RuleViolation as refused:
        if refused.code == "unknown_content_pack":
            raise ApiError(404, "unknown_content_pack", refused.message,
                           {"installed": sorted(packs.installed())}) from None
        raise ApiError(503, "content_pack_unavailable", refused.message) from None
    return _content_document(game_type, key, language)


@cache
def _content_document(game_type: str, key: str, language: str) -> Document:
    engine = get_engine(game_type)
    packs = engine.content_packs
    catalogue = packs.run(key, engine.catalogue) if packs is not None and key else engine.catalogue()
    return _document(localized_catalogue(catalogue, language), catalogue["content_version"], key, language)


def _matches(if_none_match: str | None, etag: str) -> bool:
    """RFC 9110 §13.1.2: `*`, or any listed entity tag equal to ours under the weak comparison."""
    if not if_none_match:
        return False
    if if_none_match.strip() == "*":
        return True
    ours = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == ours for tag in if_none_match.split(","))


def answer(document: Document, if_none_match: str | None, version: str | None) -> Response[Any]:
    """200 with the document, or 304 when the client's copy is current.  ``?v=`` naming the current content
    version makes the answer immutable; naming another one gets the current document, not to be cached."""
    if version is None:
        cache_control = f"public, max-age={MAX_AGE}"
    elif version == document.content_version:
        cache_control = f"public, max-age={VERSIONED_MAX_AGE}, immutable"
    else:
        cache_control = "no-cache"
    headers = {"ETag": document.etag, "Cache-Control": cache_control,
               "X-Benthic-Content-Version": document.content_version}
    if document.pack:
        headers["X-Benthic-Content-Pack"] = document.pack
    if document.language:
        headers.update(language_headers(document.language))
    if _matches(if_none_match, document.etag):
        return Response(b"", status_code=304, headers=headers)
    return Response(document.body, media_type="application/json", headers=headers)
