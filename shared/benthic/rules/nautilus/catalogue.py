"""The content catalogue of Nautilus (``ENGINE.catalogue()``): the 41 station tiles, the 60 sea-find chips,
the 4 special assignments, the map (every cell, with its zone and find space), the supply, the Atlantis
tracker and the research tracks, with texts written from the loaded tables and the geometry of
``content/layout.json`` (our own drawing, validated at load).

Built once per process from the loaded ``CONTENT``.  A cell's id is ``"x,y"`` (the views and commands
write cells as ``[x, y]``).
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
    counted,
    envelope,
    join_messages,
    joined,
    msg,
    terms_from,
)

from . import content as content_module
from .content import ChipDef, Content, TileDef
from .events import Options
from .flow import PHASE_PROMPTS
from .legal import PASS_COMMANDS
from .options import OPTION_CHOICES

Point = tuple[float, float]
RESEARCH_NAMES = {"training": "Training", "technology": "Technology", "echo": "Echo", "trial": "Trial",
                  "analysis": "Analysis"}
KIND_NAMES = {"gold": "Gold", "luminous_crab": "Luminous Crab", "deep_sea_urchin": "Deep-Sea Urchin",
              "shell": "Shell", "snail": "Snail", "atlantis": "Atlantis", "treasure_chest": "Treasure chest",
              "tempo": "Tempo"}
DEPTH_NAMES = {"lagoon": "Lagoon", "slope": "Slope", "deep": "Deep Sea", "gorge": "Gorge"}


class StationLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    corner_cut: float
    lock_size: Point
    lock_offsets: dict[str, Point]


class SupplyLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    view_box: tuple[float, float, float, float]
    tile_size: Point
    stacks: dict[str, Point]
    box: Point


class RowLayout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    view_box: tuple[float, float, float, float]
    size: Point
    first: Point
    step: Point
    row_step: Point = (0, 0)


class Layout(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    data_version: str
    cell_size: float
    map_margin: float
    station: StationLayout
    supply: SupplyLayout
    atlantis_tracker: RowLayout
    research_track: RowLayout
    note: str = ""


def _read(name: str) -> Any:
    path = content_module.CONTENT_DIR / name
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError) as exc:
        raise CatalogueError(f"{name}: {exc}") from None


def load_layout(c: Content) -> Layout:
    try:
        layout = msgspec.convert(_read("layout.json"), Layout)
    except msgspec.ValidationError as exc:
        raise CatalogueError(f"layout.json: {exc}") from None
    if set(layout.station.lock_offsets) != set(c.slots):
        raise CatalogueError(f"layout.json: a lock offset for each slot {list(c.slots)} expected")
    if set(layout.supply.stacks) != set(c.stack_kinds):
        raise CatalogueError(f"layout.json: a supply position for each stack {list(c.stack_kinds)} expected")
    return layout


# --- names and texts ----------------------------------------------------------------------------------------

def tile_name(tile: TileDef) -> str:
    if tile.kind == "base":
        return "Base station"
    number = int(tile.id.rsplit("_", 1)[1])
    if tile.kind == "research":
        return f"{RESEARCH_NAMES.get(tile.research_type or '', tile.research_type)} station {number}"
    colour = "Green" if tile.kind == "residential_green" else "Blue"
    return f"{colour} residential station {number}"


def chip_name(chip: ChipDef) -> str:
    if chip.atlantis_number is not None:
        return f"Atlantis {chip.atlantis_number}"
    return KIND_NAMES.get(chip.kind, chip.kind)


_MEANINGS = {"training": N_("Steps for your researchers in Phase 2"), "technology": N_("Spaces per submarine move"),
             "echo": N_("Echo range"), "trial": N_("Finds you look at after recovering a Shell or Snail"),
             "analysis": N_("Nemo per treasure chest")}


def _nemo(n: int) -> Message:
    return msg("{n} Nemo", n=n)


def _benefit_text(c: Content, research_type: str) -> Message:
    values = c.benefits[research_type]
    name = Message(RESEARCH_NAMES.get(research_type, research_type))
    changes = [n for n, v in enumerate(values) if n == 0 or v != values[n - 1]]
    steps: list[Message | str] = []
    for i, n in enumerate(changes):
        if not i:
            steps.append(msg("{value} with {n} {name} stations in operation", value=values[n], n=n, name=name))
        elif n < len(values) - 1 and i == len(changes) - 1:
            steps.append(msg("{value} with {n} or more", value=values[n], n=n))
        else:
            steps.append(msg("{value} with {n}", value=values[n], n=n))
    return msg("{meaning}: {steps}", meaning=Message(_MEANINGS.get(research_type, N_("Benefit"))),
               steps=joined(steps, N_("{a}, {b}")))


def _tile_entry(c: Content, tile: TileDef) -> dict[str, Any]:
    tables = c.tables
    if tile.kind == "base":
        text: Message = msg("The first station, placed at setup: 8 locks, no owner, not a research station.")
        effect = None
    elif tile.kind == "research":
        rtype = tile.research_type or ""
        text = msg("Research station ({type}). Costs {price}; its builder owns it, and another player's first "
                   "researcher entering it pays the owner {fee}. {benefit}.",
                   type=Message(RESEARCH_NAMES.get(rtype, rtype)), price=_nemo(tables.research_station_price),
                   fee=_nemo(tables.activation_fee), benefit=_benefit_text(c, rtype))
        effect = {"research_type": rtype, "benefits": list(c.benefits[rtype])}
    else:
        by_cap: dict[int, list[str]] = {}
        for n, pc in sorted(c.player_counts.items()):
            by_cap.setdefault(pc.residential_cap, []).append(str(n))
        caps = joined([msg("1 to {cap} with {players} players", cap=cap, players=join_messages(ns, "or"))
                       for cap, ns in by_cap.items()], N_("{a}, {b}"))
        text = msg("Residential station: free, but bought staffed with researchers at {price} each ({caps}); "
                   "no owner.", price=_nemo(tables.researcher_staff_price), caps=caps)
        effect = None
    entry: dict[str, Any] = {"id": tile.id, "category": "tile", "name": tile_name(tile), "kind": tile.kind,
                             "research_type": tile.research_type, "stack": tile.stack,
                             "locks": list(tile.board_locks[0]),
                             "distinct_rotations": [r * 90 for r in tile.distinct_rotations],
                             "text": text}
    if effect is not None:
        entry["effect"] = effect
    return entry


def _chip_entry(c: Content, chip: ChipDef) -> dict[str, Any]:
    front = c.kind_front[chip.kind]
    points = c.kind_points[chip.kind]
    costs = join_messages([msg("{price} in the {depth}", price=_nemo(v), depth=Message(DEPTH_NAMES[d]))
                           for d, v in c.recovery_cost.items()])
    if chip.kind == "atlantis":
        text = msg("Blue front (recovering it costs {costs}). Goes to space {number} of the Atlantis tracker with "
                   "the finder's marker; the finder may move one researcher up to {steps} stations. Atlantis point "
                   "chips go to the players with the most Atlantis finds.", costs=costs,
                   number=chip.atlantis_number, steps=c.tables.atlantis_bonus_steps)
    elif front == "blue":
        extra = msg(" After recovering it, Trial stations let you look at face-down finds.") if chip.kind in (
            "shell", "snail") else ""
        text = msg("Blue front (recovering it costs {costs}). Kept on your tableau: worth {points} (special "
                   "assignments can raise it).{extra}", costs=costs,
                   points=counted(points or 0, "{n} point", "{n} points"), extra=extra)
    elif chip.kind == "treasure_chest":
        values = c.benefits["analysis"]
        text = msg("Beige front (free). The bank pays you {n} Nemo, more with Analysis stations (up to {most}); "
                   "then it leaves the game.", n=values[0], most=max(values))
    else:
        text = msg("Beige front (free). One of your submarines may move up to {n} more spaces at once; then the "
                   "chip leaves the game.", n=c.tables.tempo_steps)
    return {"id": chip.id, "category": "chip", "name": chip_name(chip), "kind": chip.kind, "depth": chip.depth,
            "front": front, "points": points, "atlantis_number": chip.atlantis_number, "text": text,
            "effect": {"kind": chip.kind, "front": front, "points": points}}


def _assignment_entry(c: Content, card_id: str) -> dict[str, Any]:
    kinds = c.cards[card_id]
    names = [KIND_NAMES.get(k, k) for k in kinds]
    price = _nemo(c.tables.assignment_upgrade_price)
    return {"id": card_id, "category": "assignment", "name": f"Special assignment: {' and '.join(names)}",
            "kinds": list(kinds), "effect": {"kinds": list(kinds), "price": c.tables.assignment_upgrade_price},
            "text": msg("Secret until the end. At the end, each {kinds} on your tableau may be raised by 1 point "
                        "for {price} each.", kinds=join_messages([Message(n) for n in names]), price=price)}


# --- boards and tracks --------------------------------------------------------------------------------------

def _map_board(c: Content, layout: Layout) -> dict[str, Any]:
    size = layout.cell_size
    spaces: dict[str, Any] = {}
    find_depth = {c.find_space_cell[i]: d for i, d in enumerate(c.find_space_depth)}
    for cell in range(c.n_cells):
        x, y = c.xy(cell)
        zone = c.zone[cell]
        sid = f"{x},{y}"
        where = f"{chr(ord('A') + x)}-{y + 1}"  # as describe.cell_name writes it, and the map's edges
        name = msg("{depth} {cell}", depth=Message(DEPTH_NAMES[zone]), cell=where)
        entry: dict[str, Any] = {"id": sid, "kind": "cell", "name": name,
                                 "x": (x + 0.5) * size, "y": (y + 0.5) * size, "w": size, "h": size,
                                 "cell": [x, y], "zone": zone, "build_cost": c.build_cost[cell]}
        if cell in find_depth:
            entry["find_space"] = find_depth[cell]
        spaces[sid] = entry
    station = layout.station
    return {
        "id": "map", "kind": "map", "name": "The sea floor", "view_box": [0, 0, c.width * size, c.height * size],
        "spaces": spaces, "connections": [],
        "grid": {"columns": c.width, "rows": c.height, "cell_size": size,
                 "cell_id": "\"x,y\" (views and commands write [x, y]); cells are orthogonal neighbours"},
        "station": {
            "size": [c.block_size * size, c.block_size * size], "corner_cut": station.corner_cut,
            "lock_size": list(station.lock_size),
            "slots": list(c.slots),
            "lock_offsets": {slot: [dx * size, dy * size] for slot, (dx, dy) in station.lock_offsets.items()},
            "neighbour_offsets": {slot: list(c.neighbour_offset[i]) for i, slot in enumerate(c.slots)},
            "exit_cells": {slot: [list(o) for o in c.exit_offsets[i]] for i, slot in enumerate(c.slots)},
            "text": msg("A station covers the 3×3 cells from its anchor [x0, y0] (north-west). Views give its "
                        "locks already rotated, in slot order N..NW; rotation r turns the printed locks clockwise "
                        "(slot i -> i + r/45)."),
        },
        "first_game_base_anchor": list(c.first_game_base_anchor),
    }


def _supply_board(c: Content, layout: SupplyLayout) -> dict[str, Any]:
    spaces: dict[str, Any] = {}
    for kind, (x, y) in layout.stacks.items():
        name = (Message(RESEARCH_NAMES[kind]) if kind in RESEARCH_NAMES else
                msg("Green residential") if kind == "residential_green" else msg("Blue residential"))
        spaces[f"stack:{kind}"] = {"id": f"stack:{kind}", "kind": "stack", "name": msg("{name} stack", name=name),
                                   "stack": kind,
                                   "x": x, "y": y, "w": layout.tile_size[0], "h": layout.tile_size[1]}
    bx, by = layout.box
    spaces["box"] = {"id": "box", "kind": "box", "name": msg("The box (finds out of play)"), "x": bx, "y": by,
                     "w": layout.tile_size[0], "h": layout.tile_size[1]}
    return {"id": "supply", "kind": "supply", "name": "Station stacks and the box", "view_box": list(layout.view_box),
            "spaces": spaces, "connections": []}


def _row(layout: RowLayout, index: int, row: int = 0) -> dict[str, float]:
    return {"x": layout.first[0] + index * layout.step[0] + row * layout.row_step[0],
            "y": layout.first[1] + index * layout.step[1] + row * layout.row_step[1],
            "w": layout.size[0], "h": layout.size[1]}


def _tracks(c: Content, layout: Layout) -> dict[str, Any]:
    extra = set(c.extra_round_numbers)
    atlantis = [{"id": str(n), "name": f"Atlantis {n}", **_row(layout.atlantis_tracker, n - 1),
                 "text": msg("One of the three that end the game a round later when all are out.")
                 if n in extra else ""}
                for n in range(1, c.atlantis_count + 1)]
    tracks: dict[str, Any] = {
        "atlantis": {"id": "atlantis", "name": "Ruins of Atlantis tracker",
                     "view_box": list(layout.atlantis_tracker.view_box),
                     "text": msg("A recovered Atlantis find lies on its number with the finder's marker; a covered "
                                 "or unaffordable one without a marker (still out)."),
                     "spaces": atlantis},
    }
    values = c.tables.research_values
    for row, rtype in enumerate(c.research_types):
        spaces = []
        for n, value in enumerate(c.benefits[rtype]):
            points = values.two_or_more if n >= 2 else values.fewer_than_two
            spaces.append({"id": str(n), "name": msg("{n} {type} stations in operation", n=n,
                                                     type=Message(RESEARCH_NAMES.get(rtype, rtype))),
                           "benefit": value, "points": points, **_row(layout.research_track, n, row)})
        tracks[f"research:{rtype}"] = {
            "id": f"research:{rtype}", "name": f"{RESEARCH_NAMES.get(rtype, rtype)} research track",
            "view_box": list(layout.research_track.view_box), "research_type": rtype,
            "text": msg("{benefit}. Research value: {low} below 2 stations, {high} from 2, {chip} with the 3-chip "
                        "(a strict majority of at least 2).", benefit=_benefit_text(c, rtype),
                        low=values.fewer_than_two, high=values.two_or_more, chip=values.three_chip),
            "spaces": spaces}
    return tracks


def _options() -> list[dict[str, Any]]:

    defaults = Options()
    texts = {
        "allow_withdraw_in_place": "A submarine standing on a blue-lock exit may be withdrawn without moving.",
        "tiebreak": "How tied final scores are ranked.",
        "assignment_cashing": "Whether players choose their special-assignment upgrades or the engine does.",
        "auto_pass": "End a turn by itself when the seat has nothing left but to pass.",
    }
    out: list[dict[str, Any]] = [
        {"name": "base_placement", "default": defaults.base_placement, "values": None,
         "text": "Where the base station stands: \"first_game\", \"random\", or the anchor [x, y] of an all-Lagoon "
                 "3×3 block."},
        {"name": "start_seat", "default": defaults.start_seat, "values": None,
         "text": "Who starts the first round: \"random\" or a seat number."},
    ]
    for name, allowed in OPTION_CHOICES.items():
        out.append({"name": name, "default": getattr(defaults, name), "values": list(allowed), "text": texts[name]})
    return out


@cache
def catalogue(engine_version: str, pack: str = "") -> dict[str, Any]:
    """The catalogue of the pack in use (``pack``, its key, keys the cache: one catalogue per pack)."""
    c = content_module.CONTENT
    layout = load_layout(c)
    components: dict[str, Any] = {}
    for tile in c.tiles.values():
        components[tile.id] = _tile_entry(c, tile)
    for chip in c.chips.values():
        components[chip.id] = _chip_entry(c, chip)
    for card_id in c.card_ids:
        components[card_id] = _assignment_entry(c, card_id)
    raw_terms = _read("terms.json")["terms"]
    extra = [*PHASE_PROMPTS.values(), *PASS_COMMANDS, "pending", *c.zone_names, *c.research_types, *c.colours,
             *c.kind_front]
    body = {
        "components": components,
        "boards": {"map": _map_board(c, layout), "supply": _supply_board(c, layout.supply)},
        "tracks": _tracks(c, layout),
        "terms": terms_from(raw_terms, extra),
        "options": _options(),
        "tables": msgspec.to_builtins(c.tables),
        "data_versions": {"layout": layout.data_version},
    }
    return envelope(engine_version, "nautilus", "Nautilus", (min(c.player_counts), max(c.player_counts)), body)
