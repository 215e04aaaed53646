"""The content catalogue of Aquatica (``ENGINE.catalogue()``): every Location, Character (each physical copy:
starting cards per seat, Ocean Character copies, Kings), Manta (kinds and each physical Manta), goal and goal
token, the central board, the player board and the goal tracks, with texts written from the effect data
(``texts.py``) and the geometry of ``content/layout.json`` (our own drawing, validated at load).

Built once per process from the loaded ``catalog()`` content.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import msgspec

from benthic.rules.presentation import (
    N_,
    CatalogueError,
    Message,
    as_sentence,
    counted,
    envelope,
    joined,
    msg,
    terms_from,
)

from . import content as content_module
from .content import MAX_SEATS, Catalog, Character, Location, catalog
from .effects import Effect, Gain
from .options import Rules
from .prompts import HEAD_PROMPTS
from .setup import MAX_SEATS as MAX_PLAYERS
from .setup import MIN_SEATS
from .texts import TYPE_NAMES, depth_text, effects_text, gained, manta_text, manta_use

Point = tuple[float, float]
PROMPT_KINDS = ("turn", "pay", "choose_king", "scout_decide", "scout_discard", "place_ichthyander", "resolving",
                "setup")


class Row(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    first: Point
    step: float


class GoalLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    card: Point
    first: Point
    row_step: float
    spot_first: Point
    spot_step: float
    spot_size: Point


class Grid(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    first: Point
    step: Point
    size: Point


class Box(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    at: Point
    size: Point


class CentralLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    view_box: tuple[float, float, float, float]
    goals: GoalLayout
    character_row: Row
    ocean_deck: Point
    top_row: Row
    bottom_row: Row
    location_deck: Point
    location_discard: Point
    wild_reserve: Grid


class PlayerLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    view_box: tuple[float, float, float, float]
    slots: Row
    king: Point
    hand: Point
    discard: Point
    scoring_pile: Point
    mantas: Box


class DepthRows(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    x: float
    first_y: float
    step: float
    size: Point


class LocationCard(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    size: Point
    depth_rows: DepthRows


class Layout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    data_version: str
    character_card: Point
    location_card: LocationCard
    manta: Point
    central_board: CentralLayout
    player_board: PlayerLayout
    note: str = ""


def _read(name: str) -> Any:
    try:
        return json.loads((content_module.CONTENT_DIR / name).read_bytes())
    except (OSError, ValueError) as exc:
        raise CatalogueError(f"{name}: {exc}") from None


def load_layout() -> Layout:
    try:
        return msgspec.convert(_read("layout.json"), Layout)
    except msgspec.ValidationError as exc:
        raise CatalogueError(f"layout.json: {exc}") from None


# --- components ---------------------------------------------------------------------------------------------

def _location_entry(cat: Catalog, loc: Location) -> dict[str, Any]:
    discount = cat.board.top_row_conquer_discount
    depths = joined([msg("{number}) {depth}", number=i + 1, depth=depth_text(d)) for i, d in enumerate(loc.depths)],
                    N_("{a}; {b}"), msg("none (placed fully risen)"))
    manta: Message | str = ""
    if loc.wild_manta is not None:
        name = _manta_kind_entry(cat, loc.wild_manta)["name"]
        manta = msg(" When it is fully risen, you take a {manta}.", manta=Message(name))
    text = msg("{type}. Buy for {coins} or conquer for {power} power ({top} from the top row). Depths, top to "
               "bottom: {depths}.{manta} Worth {prosperity} PP once scored.", type=Message(TYPE_NAMES[loc.type]),
               coins=counted(loc.coin_price, "{n} coin", "{n} coins"), power=loc.power_price,
               top=max(0, loc.power_price - discount), depths=depths, manta=manta, prosperity=loc.prosperity)
    return {"id": loc.id, "category": "location", "name": loc.name, "type": loc.type, "coin_price": loc.coin_price,
            "power_price": loc.power_price, "prosperity": loc.prosperity, "wild_manta": loc.wild_manta,
            "depth_count": len(loc.depths), "text": text,
            "effect": {"depths": msgspec.to_builtins(loc.depths)}}


def _character_text(cat: Catalog, c: Character) -> Message:
    if c.setup is not None:
        return as_sentence(msg("at setup, exchange this King for a Wild Manta that you can {use}",
                               use=manta_use(cat.face(c.setup.kind))))
    parts = [as_sentence(effects_text(c.effects))]
    if c.is_matrona:
        parts.append(msg("Matrona returns to your hand after she is played."))
    if c.after_play == "remove_from_game":
        parts.append(msg("One use: removed from the game after it is played."))
    out = joined(parts, N_("{a} {b}"))
    assert isinstance(out, Message)
    return out


def _character_entry(cat: Catalog, card_id: str, c: Character, **extra: Any) -> dict[str, Any]:
    category = {"starting": "starting_character", "ocean": "ocean_character", "king": "king"}[c.category]
    return {"id": card_id, "category": category, "name": c.name, "template": c.id, "number": c.number,
            "text": _character_text(cat, c), "effect": msgspec.to_builtins(c.effects), **extra}


def _manta_kind_entry(cat: Catalog, kind_id: str) -> dict[str, Any]:
    kind = cat.manta_kinds[kind_id]
    what = "Trained" if kind.category == "trained" else "Wild"
    face = kind.face
    name = kind.name or f"{what} Manta ({(gained(face) if isinstance(face, Gain) else depth_text(face)).english()})"
    return {"id": kind_id, "category": "manta_kind", "name": name, "kind_category": kind.category,
            "count": kind.count, "text": as_sentence(manta_text(face)), "effect": msgspec.to_builtins(face)}


def _goal_name(template: str, n: int) -> str:
    return template.replace("{n}", str(n))


def _goal_text(cat: Catalog, goal_id: str) -> Message:
    """A goal's condition (content data, a msgid) without its full stop."""
    return Message(cat.goals[goal_id].text.rstrip("."))


def _components(cat: Catalog, goal_names: dict[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for loc in cat.locations.values():
        out[loc.id] = _location_entry(cat, loc)
    for seat in range(MAX_SEATS):
        for card_id in cat.starting_ids[seat]:
            out[card_id] = _character_entry(cat, card_id, cat.card[card_id], seat=seat)
    for card_id, mark in cat.ocean_ids:
        out[card_id] = _character_entry(cat, card_id, cat.card[card_id], copy=card_id.rsplit("-", 1)[1], mark=mark)
    for king_id in cat.king_ids:
        out[king_id] = _character_entry(cat, king_id, cat.card[king_id])
    for kind_id in cat.manta_kinds:
        out[kind_id] = _manta_kind_entry(cat, kind_id)
    for seat_ids in cat.trained_ids:
        for manta_id in seat_ids:
            kind = _manta_kind_entry(cat, cat.trained_kind_of[manta_id])
            out[manta_id] = {"id": manta_id, "category": "manta", "name": kind["name"], "kind": kind["id"],
                             "seat": cat.trained_owner[manta_id], "text": kind["text"], "effect": kind["effect"]}
    for kind_id, n in zip(cat.wild_kinds, cat.wild_counts, strict=True):
        kind = _manta_kind_entry(cat, kind_id)
        for taken in range(n):
            manta_id = cat.wild_manta_id(kind_id, taken)
            out[manta_id] = {"id": manta_id, "category": "manta", "name": kind["name"], "kind": kind_id,
                             "text": kind["text"], "effect": kind["effect"]}
    for manta_id in cat.ichthyander_ids:
        out[manta_id] = {"id": manta_id, "category": "manta", "name": f"Ichthyander Manta {manta_id[2:]}",
                         "kind": "ichthyander",
                         "text": msg("Solo: the rival's Manta; it only takes spots on goal tracks.")}
    for goal in cat.goals.values():
        name = _goal_name(goal_names.get(goal.condition.kind, goal.id), goal.condition.n)
        out[goal.id] = {"id": goal.id, "category": "goal", "name": name,
                        "text": msg("{goal}. Claim it by putting one of your Trained Mantas on the first free spot "
                                    "of its track.", goal=_goal_text(cat, goal.id)),
                        "effect": msgspec.to_builtins(goal.condition)}
    for token in cat.tokens.values():
        out[token.id] = {"id": token.id, "category": "goal_token", "name": f"Goal token {token.id[3:]}",
                         "front": token.front, "back": token.back,
                         "text": msg("Front: {front}. Back: {back}.", front=_goal_text(cat, token.front),
                                     back=_goal_text(cat, token.back))}
    return out


# --- boards and tracks --------------------------------------------------------------------------------------

def _space(sid: str, kind: str, name: str | Message, at: Point, size: Point, **extra: Any) -> dict[str, Any]:
    return {"id": sid, "kind": kind, "name": name, "x": at[0], "y": at[1], "w": size[0], "h": size[1], **extra}


def _central(cat: Catalog, layout: Layout) -> dict[str, Any]:
    c = layout.central_board
    spaces: dict[str, Any] = {}
    card = layout.character_card
    loc = layout.location_card.size
    for slot, cost in enumerate(cat.board.character_row_costs):
        at = (c.character_row.first[0] + slot * c.character_row.step, c.character_row.first[1])
        spaces[f"row:{slot}"] = _space(f"row:{slot}", "character_row", msg("Character row slot {n}", n=slot + 1),
                                       at, card,
                                       slot=slot, cost=cost,
                                       text=msg("Recruiting from here costs {coins}.",
                                                coins=counted(cost, "{n} coin", "{n} coins")))
    for i in range(cat.board.top_row_size):
        at = (c.top_row.first[0] + i * c.top_row.step, c.top_row.first[1])
        spaces[f"top:{i}"] = _space(f"top:{i}", "top_row", msg("Top Location row, place {n}", n=i + 1), at, loc,
                                    index=i,
                                    text=msg("Conquering from here costs {n} power less.",
                                             n=cat.board.top_row_conquer_discount))
    for i in range(cat.board.bottom_row_size):
        at = (c.bottom_row.first[0] + i * c.bottom_row.step, c.bottom_row.first[1])
        spaces[f"bottom:{i}"] = _space(f"bottom:{i}", "bottom_row", msg("Bottom Location row, place {n}", n=i + 1),
                                       at, loc,
                                       index=i)
    spaces["ocean_deck"] = _space("ocean_deck", "deck", msg("Ocean Character deck"), c.ocean_deck, card)
    spaces["location_deck"] = _space("location_deck", "deck", msg("Location deck"), c.location_deck, loc)
    spaces["location_discard"] = _space("location_discard", "discard", msg("Location discard pile"),
                                        c.location_discard, loc)
    for g in range(cat.board.goal_tracks):
        at = (c.goals.first[0], c.goals.first[1] + g * c.goals.row_step)
        spaces[f"goal:{g}"] = _space(f"goal:{g}", "goal", msg("Goal {n}", n=g + 1), at, c.goals.card, index=g)
    for i, kind in enumerate(cat.wild_kinds):
        at = (c.wild_reserve.first[0] + i * c.wild_reserve.step[0],
              c.wild_reserve.first[1] + i * c.wild_reserve.step[1])
        name = _manta_kind_entry(cat, kind)["name"]
        spaces[f"wild:{kind}"] = _space(f"wild:{kind}", "wild_reserve", msg("Reserve: {manta}", manta=Message(name)),
                                        at, c.wild_reserve.size, manta_kind=kind)
    return {"id": "central", "kind": "central_board", "name": "Central board", "view_box": list(c.view_box),
            "spaces": spaces, "connections": []}


def _player_board(cat: Catalog, layout: Layout) -> dict[str, Any]:
    p = layout.player_board
    spaces: dict[str, Any] = {}
    for slot in range(cat.board.player_board_slots):
        at = (p.slots.first[0] + slot * p.slots.step, p.slots.first[1])
        spaces[f"slot:{slot}"] = _space(f"slot:{slot}", "board_slot", msg("Board slot {n}", n=slot + 1), at,
                                        layout.location_card.size, slot=slot)
    card = layout.character_card
    for sid, kind, name, at, size in (
        ("player:king", "king", msg("King"), p.king, card),
        ("player:hand", "hand", msg("Hand"), p.hand, card),
        ("player:discard", "discard", msg("Discard pile (top card public)"), p.discard, card),
        ("player:scoring_pile", "scoring_pile", msg("Scoring Pile (private)"), p.scoring_pile, card),
        ("player:mantas", "manta_reserve", msg("Manta reserve"), p.mantas.at, p.mantas.size),
    ):
        spaces[sid] = _space(sid, kind, name, at, size)
    return {"id": "player_board", "kind": "player_board", "name": "Player board (one per seat)",
            "view_box": list(p.view_box), "spaces": spaces, "connections": []}


def _tracks(cat: Catalog, layout: Layout) -> dict[str, Any]:
    g = layout.central_board.goals
    tracks: dict[str, Any] = {}
    for track in range(cat.board.goal_tracks):
        y = g.first[1] + track * g.row_step
        spaces = [{"id": str(spot + 1), "name": msg("Spot {n}: {points} PP", n=spot + 1, points=points),
                   "points": points,
                   "x": g.spot_first[0] + spot * g.spot_step, "y": y, "w": g.spot_size[0], "h": g.spot_size[1]}
                  for spot, points in enumerate(cat.board.goal_track_points)]
        tracks[f"goal:{track}"] = {"id": f"goal:{track}", "name": msg("Track of goal {n}", n=track + 1),
                                   "board_kind": "central_board", "goal_index": track, "spaces": spaces,
                                   "text": msg("The first Manta to claim the goal takes spot 1, the next spot 2, ...")}
    return tracks


def _options() -> list[dict[str, Any]]:
    data = catalog().rulesets
    out: list[dict[str, Any]] = []
    texts = {
        "printing": "The ruleset preset: first or updated printing (sets the preset flags below).",
        "mode": "advanced turns on variable goals and the King draft.",
        "first_seat": "The seat that starts: null (random) or a seat number.",
        "max_rounds": "Round limit (R22): an integer of at least 1.",
    }
    defaults = msgspec.to_builtins(Rules())
    for field in msgspec.inspect.type_info(Rules).fields:  # type: ignore[attr-defined]
        allowed: list[Any] | None = None
        info = field.type
        if isinstance(info, msgspec.inspect.BoolType):
            allowed = [True, False]
        elif isinstance(info, msgspec.inspect.LiteralType):
            allowed = list(info.values)
        default = msgspec.to_builtins(data.defaults).get(field.name, defaults[field.name])
        if field.name == "printing":
            default = data.default_preset
        elif field.name in msgspec.to_builtins(data.presets[data.default_preset]):
            default = msgspec.to_builtins(data.presets[data.default_preset])[field.name]
        out.append({"name": field.name, "default": default, "values": allowed,
                    "text": texts.get(field.name, "Rule flag of spec §9.1 (the preset decides unless given).")})
    return out


def component_names() -> dict[str, Message]:
    """Component id -> name (what labels call things: the catalogue name, a msgid), of the pack in use."""
    return _component_names(content_module.PACKS.key)


@cache
def _component_names(pack: str) -> dict[str, Message]:
    names = {cid: entry["name"] for cid, entry in _body(pack)["components"].items()}
    return {cid: Message(name) for cid, name in names.items()}


@cache
def catalogue(engine_version: str, pack: str = "") -> dict[str, Any]:
    """The catalogue of the pack in use (``pack``, its key, keys the cache: one catalogue per pack)."""
    return envelope(engine_version, "aquatica", "Aquatica", (MIN_SEATS, MAX_PLAYERS), _body(pack))


@cache
def _body(pack: str = "") -> dict[str, Any]:
    """The catalogue's sections from the pack in use (``pack`` keys the cache)."""
    cat = catalog()
    layout = load_layout()
    raw = _read("terms.json")
    effect_types = [t.tag for t in msgspec.inspect.type_info(Effect).types]  # type: ignore[attr-defined]
    extra = [*HEAD_PROMPTS.values(), *PROMPT_KINDS, *effect_types]
    body = {
        "components": _components(cat, raw.get("goal_names", {})),
        "boards": {"central": _central(cat, layout), "player_board": _player_board(cat, layout)},
        "tracks": _tracks(cat, layout),
        "terms": terms_from(raw["terms"], extra),
        "options": _options(),
        "card_sizes": {"character": list(layout.character_card), "location": list(layout.location_card.size),
                       "manta": list(layout.manta)},
        "location_depth_rows": msgspec.to_builtins(layout.location_card.depth_rows),
        "tables": msgspec.to_builtins(cat.board),
        "data_versions": {**cat.data_versions, "layout": layout.data_version},
    }
    return body
