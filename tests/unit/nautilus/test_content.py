"""The PROPOSED DATA and its verification (spec §3.5–§3.7): the checks of the §3.6 script as tests, and
the load-time validations of §3.2 failing on broken data."""

from __future__ import annotations

import json
from collections import Counter

import msgspec
import pytest

from benthic.rules.nautilus import content as content_module
from benthic.rules.nautilus.city import City, locks_pair
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.content import Content, ContentError
from benthic.rules.nautilus.legal import block_level
from benthic.rules.nautilus.state import Station
from tests.unit.nautilus.fixtures import REF_CITY, ref

# §3.5.1, verbatim: `.` Lagoon, `s` Slope, `d` Deep Sea, `g` Gorge, upper case = find space, `B` = base block.
SPEC_MAP = """
ggGgggGgggGggGgggGgggGggG
GggggggggggggggGggggggggg
gggGggggGgggGgggggggGggGg
ddddddddddddddddddddddddd
ddddddddDdddddDdddddddddd
ddddddddddddddddddDdddddd
dddddDddddddDdddddddddddd
dddddddddDddsdddddddddddd
dddddddddsssSsssdddddDddd
dddDdddsSssssssSssddddddd
ddddddssssSssSssssSdddddd
ddddddSsss.....sSssdddddd
dddddsssS.......sssSdddDd
dddddSss.........sssddddd
dddddssS...BBB...Sssddddd
DdddSsss...BBB...sssSdddd
dddddsSs...BBB...sssddDdd
dddddsss.........ssSddddd
dddddSssS.......ssssddddd
ddddddssss.....sSssdDdddd
ddddDdSssssSssssssSdddddd
dddddddsssssssssssddddddd
DddddddddSssssSsDdddddddd
dddddddDddddSdddddddddddd
ddddddddddddddddddddddddD
ddddddddddddDdddddddddddd
dDddddddddddddddddddddddd
ddddddddddddddddddddDdddd
""".split()

SPEC_BASE_ANCHORS = (
    "[10,11] [11,11] [12,11] [9,12] [10,12] [11,12] [12,12] [13,12] [8,13] [9,13] [10,13] [11,13] [12,13] "
    "[13,13] [14,13] [8,14] [9,14] [10,14] [11,14] [12,14] [13,14] [14,14] [8,15] [9,15] [10,15] [11,15] "
    "[12,15] [13,15] [14,15] [9,16] [10,16] [11,16] [12,16] [13,16] [10,17] [11,17] [12,17]"
)

LEVELS = """
   2    4   4   4   4   4   4   4
   5    3   3   3   3   3   3   3
   8    3   3   3   2   3   3   3
  11    3   3   2   1   2   3   3
  14    3   2   1   B   1   2   3
  17    3   3   2   1   2   3   3
  20    3   3   3   2   3   3   3
  23    3   3   3   3   3   3   3
"""

ZONE_LETTER = {"lagoon": ".", "slope": "s", "deep": "d", "gorge": "g"}


def zone_formula(x: int, y: int) -> str:
    d2 = (x - 12) ** 2 + (y - 15) ** 2
    if y <= 2:
        return "gorge"
    if d2 <= 20:
        return "lagoon"
    return "slope" if d2 <= 64 else "deep"


def test_board_equals_the_spec_map_and_the_zone_formula() -> None:
    assert (C.width, C.height) == (25, 28)
    for y, row in enumerate(SPEC_MAP):
        for x, letter in enumerate(row):
            zone = C.zone[C.cell(x, y)]
            assert zone == zone_formula(x, y)
            assert ZONE_LETTER[zone] == ("." if letter == "B" else letter.lower())
    assert Counter(C.zone) == {"lagoon": 69, "slope": 128, "deep": 428, "gorge": 75}


def test_find_spaces_match_the_map_letters_and_never_touch() -> None:
    letters = {
        (x, y): {"S": "slope", "D": "deep", "G": "gorge"}[ch]
        for y, row in enumerate(SPEC_MAP)
        for x, ch in enumerate(row)
        if ch in "SDG"
    }
    spaces = {C.xy(c): d for c, d in zip(C.find_space_cell, C.find_space_depth, strict=True)}
    assert spaces == letters
    assert Counter(spaces.values()) == {"slope": 26, "deep": 20, "gorge": 14}
    assert all(C.zone[C.cell(*xy)] == depth for xy, depth in spaces.items())
    for (x, y) in spaces:
        touching = [(x + dx, y + dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
        assert not any(t in spaces for t in touching), (x, y)


def test_base_block_and_the_37_later_game_anchors() -> None:
    bx, by = C.first_game_base_anchor
    assert (bx, by) == (11, 14)
    assert {(x, y) for y, row in enumerate(SPEC_MAP) for x, ch in enumerate(row) if ch == "B"} == {
        (bx + dx, by + dy) for dx in range(3) for dy in range(3)
    }
    listed = [tuple(json.loads(a)) for a in SPEC_BASE_ANCHORS.split()]
    assert C.base_anchors == tuple(sorted(listed, key=lambda a: (a[1], a[0])))
    assert len(C.base_anchors) == 37


def test_lattice_build_levels_with_the_first_game_base() -> None:
    rows = [line.split() for line in LEVELS.strip().splitlines()]
    xs = [2, 5, 8, 11, 14, 17, 20]
    for row in rows:
        y0 = int(row[0])
        for x0, level in zip(xs, row[1:], strict=True):
            if level != "B":
                assert block_level((x0, y0)) == int(level), (x0, y0)
    # the base's 4 orthogonal neighbour blocks cost 1, the 4 diagonal ones 2 (§3.6)
    offsets = C.neighbour_offset
    assert [block_level((11 + dx, 14 + dy)) for dx, dy in offsets] == [1, 2, 1, 2, 1, 2, 1, 2]


def test_sea_find_distribution_and_atlantis_numbering() -> None:
    per_depth = Counter(c.depth for c in C.chips.values())
    assert per_depth == {"slope": 26, "deep": 20, "gorge": 14}
    kinds = Counter(c.kind for c in C.chips.values())
    assert kinds["atlantis"] == 15 and kinds["treasure_chest"] == 9 and kinds["tempo"] == 4
    numbers = {c.atlantis_number: c.depth for c in C.chips.values() if c.atlantis_number}
    assert sorted(numbers) == list(range(1, 16))
    assert Counter(numbers.values()) == {"slope": 6, "deep": 5, "gorge": 4}
    assert numbers[13] == numbers[15] == "gorge" and numbers[14] != "gorge"
    assert C.extra_round_numbers == (13, 14, 15)


def test_tiles_and_research_rotations() -> None:
    research = C.tiles["trial_3"]
    assert [list(research.board_locks[r]) for r in range(4)] == [
        [None, "brown", "green", "blue", None, "blue", "green", "brown"],
        ["green", "brown", None, "brown", "green", "blue", None, "blue"],
        [None, "blue", "green", "brown", None, "brown", "green", "blue"],
        ["green", "blue", None, "blue", "green", "brown", None, "brown"],
    ]
    assert research.distinct_rotations == (0, 1, 2, 3)
    assert C.tiles["green_07"].distinct_rotations == (0,) and C.tiles["blue_02"].distinct_rotations == (0,)
    assert C.tiles["base"].board_locks[0] == ("green", "brown") * 4
    assert C.initial_stacks["training"] == ("training_1", "training_2", "training_3", "training_4")
    assert [len(C.initial_stacks[k]) for k in C.stack_kinds] == [10, 10, 4, 4, 4, 4, 4]


def _city(*placed: tuple[str, tuple[int, int], int]) -> City:
    stations = tuple(Station(t, a, r, None, C.tiles[t].board_locks[r // 90]) for t, a, r in placed)
    return City((Station("base", (11, 14), 0, None, C.tiles["base"].board_locks[0]), *stations))


def test_seed_example_red_a_wall_does_not_matter() -> None:
    town = _city(("training_1", (14, 14), 0), ("trial_1", (14, 17), 0))
    base, training, trial = 0, 1, 2
    assert training in town.adjacency[base] and trial in town.adjacency[base]
    assert trial not in town.adjacency[training]
    # the Trial's N and the Training's S are both walls
    assert town.stations[trial].locks[0] is None and town.stations[training].locks[4] is None
    assert town.distance(training, trial) == 2
    assert town.path(training, trial) == ("training_1", "base", "trial_1")


def test_seed_example_orange_blue_residential_costs_1() -> None:
    town = _city(("analysis_1", (11, 11), 270), ("blue_01", (14, 14), 0))
    assert locks_pair(town.stations[1].locks, 4, town.stations[0].locks)  # S green on the base's N green
    assert locks_pair(town.stations[2].locks, 7, town.stations[1].locks)  # NW blue on the research SE blue
    assert town.adjacency[2] == (1,)
    assert block_level((14, 14)) == 1


REF_PASSAGES = {
    frozenset(p)
    for p in [
        ("base", "training_1"), ("base", "training_2"), ("base", "trial_1"), ("base", "analysis_1"),
        ("training_1", "green_01"), ("training_1", "training_2"), ("training_1", "analysis_1"),
        ("analysis_1", "blue_01"),
    ]
}
REF_ORDER = ["base", "training_1", "green_01", "training_2", "trial_1", "analysis_1", "blue_01"]
REF_DISTANCES = [
    [0, 1, 2, 1, 1, 1, 2],
    [1, 0, 1, 1, 2, 1, 2],
    [2, 1, 0, 2, 3, 2, 3],
    [1, 1, 2, 0, 2, 2, 3],
    [1, 2, 3, 2, 0, 2, 3],
    [1, 1, 2, 2, 2, 0, 1],
    [2, 2, 3, 3, 3, 1, 0],
]


def test_reference_city_passages_distances_and_exits() -> None:
    game = ref()
    from benthic.rules.nautilus.derived import city

    town = city(game.state)
    assert [s.tile for s in town.stations] == ["base", *(t for _, t, *_ in REF_CITY)]
    tiles = [s.tile for s in town.stations]
    passages = {frozenset((tiles[i], tiles[j])) for i, js in enumerate(town.adjacency) for j in js}
    assert passages == REF_PASSAGES
    for a, row in zip(REF_ORDER, REF_DISTANCES, strict=True):
        for b, d in zip(REF_ORDER, row, strict=True):
            assert town.distance(town.index[a], town.index[b]) == d, (a, b)
    exits = {
        (town.stations[i].tile, C.xy(cell)) for cell, stations in town.blue_exits.items() for i in stations
    }
    assert exits == {
        ("training_1", (11, 17)), ("training_1", (7, 17)), ("training_2", (10, 20)), ("training_2", (10, 16)),
        ("trial_1", (11, 20)), ("trial_1", (7, 20)), ("analysis_1", (14, 10)), ("analysis_1", (14, 14)),
    }
    covered = {C.xy(c) for c in range(C.n_cells) if town.covered[c]}
    assert {(11, 17), (10, 16), (14, 14)} <= covered and not {(7, 17), (10, 20), (7, 20), (14, 10)} & covered
    assert game.chip_at((11, 20)) and not any(game.chip_at(c) for c in [(6, 16), (7, 14), (8, 18)])


# --- load-time validation (§3.2) -----------------------------------------------------------------------


def _raw() -> dict[str, dict]:
    return {name: json.loads((content_module.CONTENT_DIR / f"{name}.json").read_text()) for name in
            ("board", "geometry", "tiles", "sea_finds", "assignments", "tables")}


def _build(raw: dict[str, dict]) -> Content:
    schemas = {
        "board": content_module.BoardFile, "geometry": content_module.GeometryFile,
        "tiles": content_module.TilesFile, "sea_finds": content_module.SeaFindsFile,
        "assignments": content_module.AssignmentsFile, "tables": content_module.TablesFile,
    }
    parsed = {k: msgspec.convert(v, schemas[k]) for k, v in raw.items()}
    return Content(parsed["board"], parsed["geometry"], parsed["tiles"], parsed["sea_finds"],
                   parsed["assignments"], parsed["tables"])


def test_the_shipped_content_passes_its_own_validation() -> None:
    built = _build(_raw())
    assert built.find_space_cell == C.find_space_cell and built.tiles == C.tiles


def _swap_chip_depth(raw: dict) -> None:
    raw["sea_finds"]["chips"][0]["depth"] = "deep"


BREAKAGES = {
    "short row": lambda raw: raw["board"]["zones"].__setitem__(0, "ggg"),
    "find space in the wrong zone": lambda raw: raw["board"]["find_spaces"]["slope"].__setitem__(0, [12, 15]),
    "duplicate find space": lambda raw: raw["board"]["find_spaces"]["deep"].__setitem__(1, [0, 15]),
    "base block not Lagoon": lambda raw: raw["board"].__setitem__("first_game_base_anchor", [3, 3]),
    "facing not an involution": lambda raw: raw["geometry"]["facing_slot"].__setitem__("N", "E"),
    "offset not on the lattice": lambda raw: raw["geometry"]["neighbour_offset"].__setitem__("N", [0, -2]),
    "11 green residentials": lambda raw: raw["tiles"]["tiles"][11].update(
        kind="residential_green", locks=["green", None] * 4
    ),
    "base with a wall": lambda raw: raw["tiles"]["tiles"][0]["locks"].__setitem__(0, None),
    "unknown lock colour": lambda raw: raw["tiles"]["tiles"][1]["locks"].__setitem__(0, "red"),
    "59 chips": lambda raw: raw["sea_finds"]["chips"].pop(),
    "distribution broken": _swap_chip_depth,
    "Atlantis number twice": lambda raw: raw["sea_finds"]["chips"][1].__setitem__("atlantis_number", 1),
    "assignment with Atlantis": lambda raw: raw["assignments"]["cards"][0].update(
        kinds=["atlantis", "shell"]
    ),
    "benefit array too short": lambda raw: raw["tables"]["benefits"]["echo"].pop(),
    "missing table key": lambda raw: raw["tables"].pop("hand_limit"),
    "free echo": lambda raw: raw["tables"].__setitem__("echo_price", 0),
}


@pytest.mark.parametrize("breakage", sorted(BREAKAGES))
def test_load_time_validation_rejects_broken_data(breakage: str) -> None:
    raw = _raw()
    BREAKAGES[breakage](raw)
    with pytest.raises((ContentError, msgspec.ValidationError)):
        _build(raw)
