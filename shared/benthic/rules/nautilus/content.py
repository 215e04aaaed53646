"""The printed and PROPOSED component data of Nautilus (spec §3): a content pack (``benthic.rules.packs``),
by default the built-in one in ``content/``, loaded once per pack and validated.

The raw JSON files are decoded into strict msgspec Structs, checked against the spec's load-time rules
(§3.2: exact counts, zone membership, involutions ...), then turned into :class:`Content`, a set of
precomputed indexes the engine uses (cells are ints ``y * width + x``).  ``CONTENT`` is the live object the
engine's modules read: the content of the pack of the game at hand.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any, Literal

import msgspec

from benthic.rules.packs import PackSet

CONTENT_DIR = Path(__file__).with_name("content")

Lock = Literal["green", "blue", "brown"]
Depth = Literal["slope", "deep", "gorge"]
ZoneName = Literal["lagoon", "slope", "deep", "gorge"]
STACK_KINDS_RESIDENTIAL = ("residential_green", "residential_blue")
# The research types are rules (each has its own effect in the engine): every pack has these five, in order.
RESEARCH_TYPES = ("training", "technology", "echo", "trial", "analysis")


class ContentError(ValueError):
    """The data files break a load-time check of spec §3.2."""


# --- raw file schemas ----------------------------------------------------------------------------


class BoardFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    width: int
    height: int
    zone_legend: dict[str, ZoneName]
    zones: list[str]
    find_spaces: dict[Depth, list[tuple[int, int]]]
    first_game_base_anchor: tuple[int, int]


class GeometryFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    block_size: int
    slots: list[str]
    neighbour_offset: dict[str, tuple[int, int]]
    facing_slot: dict[str, str]
    exit_cells: dict[str, list[tuple[int, int]]]


class TileFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    kind: Literal["base", "residential_green", "residential_blue", "research"]
    research_type: str | None
    locks: list[Lock | None]
    display_colour: str | None = None


class TilesFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    tiles: list[TileFile]


class FindKindFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    front: Literal["blue", "beige"]
    points: int | None


class ChipFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    depth: Depth
    kind: str
    atlantis_number: int | None = None


class SeaFindsFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    kinds: dict[str, FindKindFile]
    distribution: dict[Depth, dict[str, int]]
    chips: list[ChipFile]


class CardFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    id: str
    kinds: list[str]


class AssignmentsFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    cards: list[CardFile]


class PlayerCountFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    starting_nemo: int
    residential_cap: int
    atlantis_points: list[int]


class ResearchValuesFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    fewer_than_two: int
    two_or_more: int
    three_chip: int


class TablesFile(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    colours: list[str]
    player_counts: dict[str, PlayerCountFile]
    build_cost: dict[ZoneName, int]
    recovery_cost_blue_front: dict[Depth, int]
    research_station_price: int
    researcher_staff_price: int
    echo_price: int
    activation_fee: int
    assignment_upgrade_price: int
    benefits: dict[str, list[int]]
    research_values: ResearchValuesFile
    extra_round_atlantis_numbers: list[int]
    hand_limit: int
    max_researchers_moved: int
    tempo_steps: int
    atlantis_bonus_steps: int
    researchers_per_player: int
    subs_per_player: int


# --- the indexes the engine uses -----------------------------------------------------------------


class TileDef(msgspec.Struct, frozen=True):
    id: str
    kind: str  # base | residential_green | residential_blue | research
    research_type: str | None
    stack: str | None  # the buy_station kind of its stack (None for the base)
    board_locks: tuple[tuple[str | None, ...], ...]  # per rotation index 0..3, in slot order N..NW
    distinct_rotations: tuple[int, ...]  # rotation indexes giving distinct layouts, smallest first


class ChipDef(msgspec.Struct, frozen=True):
    id: str
    depth: str
    kind: str
    atlantis_number: int | None


class Content:
    """Every table of the game, indexed for the engine.  Built once; never mutated."""

    def __init__(
        self,
        board: BoardFile,
        geometry: GeometryFile,
        tiles: TilesFile,
        finds: SeaFindsFile,
        assignments: AssignmentsFile,
        tables: TablesFile,
    ) -> None:
        _validate(board, geometry, tiles, finds, assignments, tables)
        self.width = board.width
        self.height = board.height
        self.n_cells = board.width * board.height
        self.zone: tuple[str, ...] = tuple(
            board.zone_legend[board.zones[y][x]] for y in range(board.height) for x in range(board.width)
        )
        self.zone_names: tuple[str, ...] = tuple(tables.build_cost)
        self.is_gorge: tuple[bool, ...] = tuple(z == "gorge" for z in self.zone)
        zone_cost: dict[str, int] = {zone: cost for zone, cost in tables.build_cost.items()}
        self.build_cost: tuple[int, ...] = tuple(zone_cost[z] for z in self.zone)
        self.depths: tuple[str, ...] = tuple(board.find_spaces)
        # find spaces: index -> cell; order = slope spaces, deep spaces, gorge spaces (deal order, §4.2)
        spaces = [(self.cell(x, y), depth) for depth, cells in board.find_spaces.items() for x, y in cells]
        self.find_space_cell: tuple[int, ...] = tuple(c for c, _ in spaces)
        self.find_space_depth: tuple[str, ...] = tuple(d for _, d in spaces)
        self.find_space_at: dict[int, int] = {c: i for i, (c, _) in enumerate(spaces)}
        self.neighbours4: tuple[tuple[int, ...], ...] = tuple(
            self._orthogonal_neighbours(c) for c in range(self.n_cells)
        )
        bx, by = board.first_game_base_anchor
        self.first_game_base_anchor: tuple[int, int] = (bx, by)
        self.base_anchors: tuple[tuple[int, int], ...] = tuple(
            (x0, y0)
            for y0 in range(board.height - 2)
            for x0 in range(board.width - 2)
            if all(self.zone[self.cell(x0 + dx, y0 + dy)] == "lagoon" for dx in range(3) for dy in range(3))
        )

        self._block_cells: dict[tuple[int, int], tuple[int, ...]] = {}
        # geometry (slots are indexed 0..7 in the file's order N, NE, E, SE, S, SW, W, NW)
        self.block_size = geometry.block_size
        self.slots: tuple[str, ...] = tuple(geometry.slots)
        slot_index = {s: i for i, s in enumerate(self.slots)}
        self.neighbour_offset: tuple[tuple[int, int], ...] = tuple(
            tuple(geometry.neighbour_offset[s]) for s in self.slots  # type: ignore[misc]
        )
        self.facing: tuple[int, ...] = tuple(slot_index[geometry.facing_slot[s]] for s in self.slots)
        self.exit_offsets: tuple[tuple[tuple[int, int], ...], ...] = tuple(
            tuple(tuple(o) for o in geometry.exit_cells[s]) for s in self.slots  # type: ignore[misc]
        )

        # tiles and stacks
        self.research_types: tuple[str, ...] = tuple(tables.benefits)
        self.stack_kinds: tuple[str, ...] = STACK_KINDS_RESIDENTIAL + self.research_types
        self.tiles: dict[str, TileDef] = {}
        stacks: dict[str, list[str]] = {k: [] for k in self.stack_kinds}
        for t in tiles.tiles:
            stack = None if t.kind == "base" else (t.research_type if t.kind == "research" else t.kind)
            rotated = tuple(self._rotate(tuple(t.locks), r) for r in range(4))
            distinct: list[int] = []
            for r in range(4):
                if rotated[r] not in (rotated[d] for d in distinct):
                    distinct.append(r)
            self.tiles[t.id] = TileDef(t.id, t.kind, t.research_type, stack, rotated, tuple(distinct))
            if stack is not None:
                stacks[stack].append(t.id)
        self.initial_stacks: dict[str, tuple[str, ...]] = {k: tuple(v) for k, v in stacks.items()}
        self.base_tile: str = next(t.id for t in tiles.tiles if t.kind == "base")

        # sea finds
        self.kind_front: dict[str, str] = {k: v.front for k, v in finds.kinds.items()}
        self.kind_points: dict[str, int | None] = {k: v.points for k, v in finds.kinds.items()}
        self.chips: dict[str, ChipDef] = {
            c.id: ChipDef(c.id, c.depth, c.kind, c.atlantis_number) for c in finds.chips
        }
        self.chips_by_depth: dict[str, tuple[str, ...]] = {
            d: tuple(c.id for c in finds.chips if c.depth == d) for d in self.depths
        }
        self.atlantis_chip: dict[int, str] = {
            c.atlantis_number: c.id for c in finds.chips if c.atlantis_number is not None
        }
        self.atlantis_count = len(self.atlantis_chip)
        # tableau kinds: blue-front, scored by points (Atlantis is scored through the tracker)
        self.tableau_kinds: tuple[str, ...] = tuple(
            k for k, v in finds.kinds.items() if v.front == "blue" and v.points is not None
        )

        # special assignments
        self.cards: dict[str, tuple[str, ...]] = {c.id: tuple(c.kinds) for c in assignments.cards}
        self.card_ids: tuple[str, ...] = tuple(c.id for c in assignments.cards)

        # numbers
        self.tables = tables
        self.colours: tuple[str, ...] = tuple(tables.colours)
        self.player_counts: dict[int, PlayerCountFile] = {int(k): v for k, v in tables.player_counts.items()}
        self.benefits: dict[str, tuple[int, ...]] = {k: tuple(v) for k, v in tables.benefits.items()}
        self.recovery_cost: dict[str, int] = {depth: cost for depth, cost in tables.recovery_cost_blue_front.items()}
        self.extra_round_numbers: tuple[int, ...] = tuple(tables.extra_round_atlantis_numbers)
        # caches of values derived from this content (see city.memo, block_level)
        self.memos: dict[str, dict[int, tuple[Any, Any]]] = {}
        self._block_levels: dict[tuple[int, int], int] = {}

    # cells
    def cell(self, x: int, y: int) -> int:
        return y * self.width + x

    def xy(self, cell: int) -> tuple[int, int]:
        return cell % self.width, cell // self.width

    def on_board(self, x: int, y: int) -> bool:
        return 0 <= x < self.width and 0 <= y < self.height

    def block_cells(self, x0: int, y0: int) -> tuple[int, ...]:
        """The cells of the block anchored at ``(x0, y0)`` (on the board; see ``block_on_board``)."""
        cells = self._block_cells.get((x0, y0))
        if cells is None:
            size = self.block_size
            cells = tuple(self.cell(x0 + dx, y0 + dy) for dy in range(size) for dx in range(size))
            if self.block_on_board(x0, y0):
                self._block_cells[(x0, y0)] = cells
        return cells

    def block_level(self, anchor: tuple[int, int]) -> int:
        """Build cost level of a block: the highest zone among its 9 cells (§6.2)."""
        level = self._block_levels.get(anchor)
        if level is None:
            level = self._block_levels[anchor] = max(self.build_cost[c] for c in self.block_cells(*anchor))
        return level

    def block_on_board(self, x0: int, y0: int) -> bool:
        size = self.block_size
        return self.on_board(x0, y0) and self.on_board(x0 + size - 1, y0 + size - 1)

    def _orthogonal_neighbours(self, cell: int) -> tuple[int, ...]:
        x, y = self.xy(cell)
        out = []
        for dx, dy in ((0, -1), (1, 0), (0, 1), (-1, 0)):  # N, E, S, W (§6.7 BFS order)
            if self.on_board(x + dx, y + dy):
                out.append(self.cell(x + dx, y + dy))
        return tuple(out)

    def _rotate(self, locks: tuple[str | None, ...], rotation_index: int) -> tuple[str | None, ...]:
        # §3.5.2: the lock at rotation-0 slot i appears at slot (i + rotation/45) mod 8
        shift = 2 * rotation_index
        n = len(locks)
        return tuple(locks[(j - shift) % n] for j in range(n))


ROTATIONS = (0, 90, 180, 270)


def _fail(message: str) -> None:
    raise ContentError(message)


def _validate(
    board: BoardFile,
    geometry: GeometryFile,
    tiles: TilesFile,
    finds: SeaFindsFile,
    assignments: AssignmentsFile,
    tables: TablesFile,
) -> None:
    # board.json
    if len(board.zones) != board.height or any(len(r) != board.width for r in board.zones):
        _fail(f"board: zones must be {board.height} rows of {board.width} characters")
    if any(ch not in board.zone_legend for row in board.zones for ch in row):
        _fail("board: a zone character is not in the legend")
    if set(board.zone_legend.values()) != set(tables.build_cost):
        _fail("board: the legend must name exactly the four zones of tables.build_cost")

    def zone_at(x: int, y: int) -> str:
        return board.zone_legend[board.zones[y][x]]

    chips_per_depth = Counter(c.depth for c in finds.chips)
    seen: set[tuple[int, int]] = set()
    for depth, cells in board.find_spaces.items():
        if len(cells) != chips_per_depth[depth]:
            _fail(f"board: {len(cells)} {depth} find spaces but {chips_per_depth[depth]} {depth} chips")
        for x, y in cells:
            if not (0 <= x < board.width and 0 <= y < board.height):
                _fail(f"board: find space {[x, y]} is off the board")
            if zone_at(x, y) != depth:
                _fail(f"board: find space {[x, y]} is {zone_at(x, y)}, not {depth}")
            if (x, y) in seen:
                _fail(f"board: duplicate find space {[x, y]}")
            seen.add((x, y))
    if set(board.find_spaces) != set(chips_per_depth):
        _fail("board: find-space depths differ from the chip depths")
    bx, by = board.first_game_base_anchor
    size = geometry.block_size
    if not (0 <= bx and 0 <= by and bx + size <= board.width and by + size <= board.height):
        _fail("board: the first-game base block is off the board")
    if any(zone_at(bx + dx, by + dy) != "lagoon" for dx in range(size) for dy in range(size)):
        _fail("board: the first-game base block must be all Lagoon")

    # geometry.json
    slots = geometry.slots
    if len(slots) != 8 or len(set(slots)) != 8:
        _fail("geometry: there must be 8 distinct slots")
    for table in (geometry.neighbour_offset, geometry.facing_slot, geometry.exit_cells):
        if set(table) != set(slots):
            _fail("geometry: every slot needs a neighbour offset, a facing slot and exit cells")
    for s in slots:
        f = geometry.facing_slot[s]
        if f == s or geometry.facing_slot[f] != s:
            _fail(f"geometry: facing_slot is not an involution at {s}")
        dx, dy = geometry.neighbour_offset[s]
        if dx % size or dy % size or (dx, dy) == (0, 0):
            _fail(f"geometry: neighbour offset of {s} is not a non-zero multiple of block_size")
        fx, fy = geometry.neighbour_offset[f]
        if (fx, fy) != (-dx, -dy):
            _fail(f"geometry: the offsets of {s} and its facing slot {f} must be opposite")
        if not geometry.exit_cells[s]:
            _fail(f"geometry: slot {s} has no exit cell")
    # Each straight slot rotates onto the next straight slot by 90 degrees (2 slot steps), as the
    # rotation rule of §3.5.2 assumes.
    for i, s in enumerate(slots):
        dx, dy = geometry.neighbour_offset[s]
        rx, ry = geometry.neighbour_offset[slots[(i + 2) % 8]]
        if (rx, ry) != (-dy, dx):
            _fail("geometry: slots must be listed clockwise starting north")

    # tiles.json
    research_types = list(tables.benefits)
    ids = [t.id for t in tiles.tiles]
    if len(set(ids)) != len(ids):
        _fail("tiles: duplicate tile id")
    kinds = Counter(t.kind if t.kind != "research" else f"research:{t.research_type}" for t in tiles.tiles)
    expected = {"base": 1, "residential_green": 10, "residential_blue": 10}
    expected.update({f"research:{r}": 4 for r in research_types})
    if dict(kinds) != expected:
        _fail(f"tiles: expected {expected}, found {dict(kinds)}")
    for t in tiles.tiles:
        if len(t.locks) != 8:
            _fail(f"tiles: {t.id} must have 8 lock entries")
        if (t.kind == "research") != (t.research_type is not None):
            _fail(f"tiles: {t.id} research_type must be set exactly for research tiles")
        if t.kind == "base" and any(lock is None for lock in t.locks):
            _fail("tiles: the base has 8 locks")
        if t.kind != "base" and not any(t.locks):
            _fail(f"tiles: {t.id} has no lock")

    # sea_finds.json
    if len(finds.chips) != 60:
        _fail(f"sea finds: {len(finds.chips)} chips, expected 60")
    if len({c.id for c in finds.chips}) != len(finds.chips):
        _fail("sea finds: duplicate chip id")
    for c in finds.chips:
        if c.kind not in finds.kinds:
            _fail(f"sea finds: {c.id} has unknown kind {c.kind}")
        if (c.kind == "atlantis") != (c.atlantis_number is not None):
            _fail(f"sea finds: {c.id}: exactly the Atlantis chips carry a number")
    for depth, per_kind in finds.distribution.items():
        actual = Counter(c.kind for c in finds.chips if c.depth == depth)
        if {k: v for k, v in per_kind.items() if v} != dict(actual):
            _fail(f"sea finds: {depth} chips {dict(actual)} differ from the distribution table")
    numbers = sorted(c.atlantis_number for c in finds.chips if c.atlantis_number is not None)
    if numbers != list(range(1, len(numbers) + 1)) or len(numbers) != 15:
        _fail("sea finds: Atlantis numbers must be 1..15, each exactly once")
    for k, v in finds.kinds.items():
        if v.front == "beige" and v.points is not None:
            _fail(f"sea finds: beige kind {k} cannot have tableau points")

    # assignments.json
    if len(assignments.cards) != 4 or len({c.id for c in assignments.cards}) != 4:
        _fail("assignments: exactly 4 cards with distinct ids")
    for card in assignments.cards:
        if len(card.kinds) != 2 or len(set(card.kinds)) != 2:
            _fail(f"assignments: {card.id} must show 2 distinct kinds")
        for k in card.kinds:
            kind = finds.kinds.get(k)
            if kind is None or kind.front != "blue" or kind.points is None:
                _fail(f"assignments: {card.id}: {k} is not a blue-front non-Atlantis kind")

    # tables.json
    if tuple(research_types) != RESEARCH_TYPES or any(len(v) != 5 for v in tables.benefits.values()):
        _fail(f"tables: the research types {list(RESEARCH_TYPES)} in this order, with benefit arrays of length 5")
    if set(tables.player_counts) != {"2", "3", "4"}:
        _fail("tables: player counts 2, 3 and 4")
    for n, pc in tables.player_counts.items():
        if len(pc.atlantis_points) != int(n):
            _fail(f"tables: {n} players need {n} Atlantis point chips")
    if len(tables.colours) != 4:
        _fail("tables: 4 colours")
    if set(tables.recovery_cost_blue_front) != set(board.find_spaces):
        _fail("tables: a recovery cost per find depth")
    prices = [
        tables.research_station_price,
        tables.researcher_staff_price,
        tables.echo_price,
        tables.activation_fee,
        tables.assignment_upgrade_price,
        *tables.build_cost.values(),
        *tables.recovery_cost_blue_front.values(),
    ]
    if min(prices) < 1:
        _fail("tables: every price is at least 1 Nemo (the termination bound of §6.14 relies on it)")
    if not set(tables.extra_round_atlantis_numbers) <= set(numbers):
        _fail("tables: extra_round_atlantis_numbers must be Atlantis numbers")


FILES: dict[str, type] = {
    "board.json": BoardFile,
    "geometry.json": GeometryFile,
    "tiles.json": TilesFile,
    "sea_finds.json": SeaFindsFile,
    "assignments.json": AssignmentsFile,
    "tables.json": TablesFile,
}


def _load(directory: Path, name: str, schema: type[Any]) -> Any:
    try:
        return msgspec.json.decode((directory / name).read_bytes(), type=schema)
    except msgspec.DecodeError as exc:  # also a ValidationError
        raise ContentError(f"{name}: {exc}") from None


def load_content(directory: Path = CONTENT_DIR) -> Content:
    """The validated content of the pack in ``directory``."""
    files = [_load(directory, name, schema) for name, schema in FILES.items()]
    return Content(*files)


PACKS: PackSet[Content] = PackSet("nautilus", CONTENT_DIR, load_content, FILES)
CONTENT = PACKS.live
