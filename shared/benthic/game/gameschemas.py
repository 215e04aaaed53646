"""JSON Schemas of what each registered game type sends and receives, generated from its engine's types
(msgspec): its commands, its events as a viewer sees them (redaction withholds fields, so only ``type`` is
required), its views (``engine.view_type``) and its game options.  Component names are prefixed with the game
type (``nautilus.Command``); :func:`game_schemas` returns the references and the components to merge."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import msgspec

from benthic.game.lifecycle import OPTION_DOCS
from benthic.rules import game_types, get_engine
from benthic.rules.bots import BOT_NAMES

PREFIX = "#/components/schemas/"


@dataclass
class GameSchemas:
    """References (``{"$ref": ...}``) per game type, and the components they need."""

    commands: dict[str, dict[str, Any]] = field(default_factory=dict)
    events: dict[str, dict[str, Any]] = field(default_factory=dict)
    views: dict[str, dict[str, Any]] = field(default_factory=dict)
    options: dict[str, dict[str, Any]] = field(default_factory=dict)
    components: dict[str, Any] = field(default_factory=dict)


def _components(game: str, kinds: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
    """msgspec's schemas of ``kinds`` (name -> type) with every component named ``<game>.<Name>``."""
    names = list(kinds)
    schemas, components = msgspec.json.schema_components(
        [kinds[n] for n in names], ref_template=PREFIX + game + ".{name}"
    )
    named = {f"{game}.{key}": value for key, value in components.items()}
    refs: dict[str, dict[str, Any]] = {}
    for name, schema in zip(names, schemas, strict=True):
        named[f"{game}.{name}"] = schema
        refs[name] = {"$ref": f"{PREFIX}{game}.{name}"}
    return refs, named


def _redacted(union: dict[str, Any], components: dict[str, Any], game: str) -> None:
    """An event as a viewer sees it: each event's own fields, any of them withheld but ``type``."""
    for member in union.get("anyOf") or union.get("oneOf") or [union]:
        ref = member.get("$ref", "")
        schema = components.get(ref.removeprefix(PREFIX))
        if schema is not None and "required" in schema:
            schema["required"] = [name for name in schema["required"] if name == "type"]


def _option_schema(option: dict[str, Any]) -> dict[str, Any]:
    values = option.get("values")
    if isinstance(values, list) and values and all(isinstance(v, (str, int, bool)) or v is None for v in values):
        return {"enum": values, "description": option.get("text", "")}
    return {"description": option.get("text", "")}


CLOCK = {"anyOf": [
    {"type": "object", "required": ["mode"], "additionalProperties": False, "properties": {
        "mode": {"const": "fischer"}, "initial_s": {"type": "integer", "minimum": 1, "maximum": 604800},
        "increment_s": {"type": "integer", "minimum": 0, "maximum": 3600}}},
    {"type": "object", "required": ["mode", "per_move_s"], "additionalProperties": False, "properties": {
        "mode": {"const": "per_move"}, "per_move_s": {"type": "integer", "minimum": 1, "maximum": 2592000}}},
    {"type": "null"},
]}


def options_schema(catalogue_options: list[dict[str, Any]], packs: bool) -> dict[str, Any]:
    """The ``options`` object of a game type: its option names and the platform's (others are refused), each
    with its values when the catalogue lists them; whether a combination is playable is the engine's (or the
    platform's) to say (422)."""
    properties = {o["name"]: _option_schema(o) for o in catalogue_options}
    for option in OPTION_DOCS:
        properties[option["name"]] = {**CLOCK, "description": option["text"]} if option["name"] == "clock" \
            else _option_schema(option)
    if packs:
        properties.setdefault("content", {"type": "string", "description": "the content pack, `id` or `id@version`"})
    return {"type": "object", "properties": properties, "additionalProperties": False}


def _view_schema(game: str, engine: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    view_type = getattr(engine, "view_type", None)
    if view_type is None:
        schema = {"type": "object", "description": f"the {game} view (no view type declared by its engine)"}
        return {"$ref": f"{PREFIX}{game}.View"}, {f"{game}.View": schema}
    refs, components = _components(game, {"View": view_type})
    return refs["View"], components


@cache
def game_schemas() -> GameSchemas:
    out = GameSchemas()
    for game in game_types():
        engine = get_engine(game)
        refs, components = _components(game, {"Command": engine.command_type, "Event": engine.event_type})
        _redacted(components[f"{game}.Event"], components, game)
        components[f"{game}.Event"]["description"] = (
            f"a {game} event as the viewer sees it: hidden fields withheld, so only `type` is always present")
        out.commands[game] = refs["Command"]
        out.events[game] = refs["Event"]
        out.components.update(components)
        out.views[game], view_components = _view_schema(game, engine)
        out.components.update(view_components)
        out.options[game] = options_schema(engine.catalogue().get("options", []), engine.content_packs is not None)
    return out


def _any_of(refs: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"anyOf": list(refs.values())} if len(refs) != 1 else next(iter(refs.values()))


def commands_schema() -> dict[str, Any]:
    """A command of any game type (the game's type decides which: see each game's component)."""
    return _any_of(game_schemas().commands)


def redacted_events_schema() -> dict[str, Any]:
    return _any_of(game_schemas().events)


def view_schema(statuses: tuple[str, ...]) -> dict[str, Any]:
    """The body of ``GET /games/{id}/view`` and of each ``event: view`` of ``/live``: the view of the game's
    type under ``view``."""
    views = game_schemas().views
    return {
        "type": "object",
        "required": ["game_id", "version", "status", "seat", "view"],
        "properties": {
            "game_id": {"type": "string"},
            "version": {"type": "integer", "minimum": 0},
            "status": {"enum": list(statuses)},
            "seat": {"anyOf": [{"type": "integer", "minimum": 0}, {"type": "null"}],
                     "description": "the seat whose view this is; null: the spectator's"},
            "view": {"anyOf": list(views.values()), "description": "the view of the game's type"},
        },
    }


PLATFORM_EVENT = {
    "type": "object",
    "required": ["type"],
    "properties": {"type": {"type": "string"}},
    "description": "an event the platform adds (e.g. `game_scored` with `results` and `ratings`), public, as stored",
}


def history_schema() -> dict[str, Any]:
    """The body of ``GET /games/{id}/history``: entries of one game type (its redacted events, or the
    platform's own events)."""
    per_game = []
    for game, events in game_schemas().events.items():
        entry = {
            "type": "object",
            "required": ["version", "ts_ms", "event"],
            "properties": {"version": {"type": "integer", "minimum": 1}, "ts_ms": {"type": "integer"},
                           "event": {"anyOf": [events, PLATFORM_EVENT]},
                           "text": {"type": ["string", "null"],
                                    "description": "the event as a sentence in the answer's language, made "
                                                   "from the same redacted event (null: no sentence)"}},
        }
        per_game.append({
            "title": f"{game} history",
            "type": "object",
            "required": ["game_id", "version", "events"],
            "properties": {"game_id": {"type": "string"}, "version": {"type": "integer", "minimum": 0},
                           "language": {"type": "string", "description": "the language of the sentences"},
                           "events": {"type": "array", "items": entry}},
        })
    return {"anyOf": per_game}


def _seat_schemas(seat_request: dict[str, Any]) -> list[dict[str, Any]]:
    """A seat at creation: a player, or a server-side bot (by name, with a level 1..10)."""
    fields = seat_request["properties"]
    null = {"type": "null"}
    player = {"type": "object", "additionalProperties": False, "properties": {
        "player_id": fields["player_id"], "name": fields["name"], "bot": null, "level": null}}
    bot = {"type": "object", "required": ["bot"], "additionalProperties": False, "properties": {
        "bot": {"enum": list(BOT_NAMES)}, "level": {"anyOf": [{"type": "integer", "minimum": 1, "maximum": 10}, null]},
        "name": fields["name"], "player_id": null}}
    return [player, bot]


def create_game_schema(seat_request: dict[str, Any]) -> dict[str, Any]:
    """The body of ``POST /games``, one alternative per game type: its seat counts and its options."""
    alternatives = []
    for game in game_types():
        engine = get_engine(game)
        alternatives.append({
            "title": game,
            "type": "object",
            "required": ["game_type", "seats"],
            "properties": {
                "game_type": {"const": game},
                "seats": {"type": "array", "minItems": engine.min_seats, "maxItems": engine.max_seats,
                          "items": {"anyOf": [*_seat_schemas(seat_request), {"type": "null"}]},
                          "description": "one entry per seat: a player, or null for an open seat"},
                "options": game_schemas().options[game],
                "seed": {"anyOf": [{"type": "integer", "minimum": -(2**53), "maximum": 2**53}, {"type": "null"}],
                         "description": "a fixed seed (operator only; the game is then unrated)"},
                "rated": {"type": "boolean", "default": True},
            },
            "additionalProperties": False,
        })
    return {"oneOf": alternatives, "discriminator": {"propertyName": "game_type"}}
