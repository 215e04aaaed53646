"""Values derived from the state (spec §6.13) and the submarine geometry (§6.6, §6.7)."""

from __future__ import annotations

from benthic.rules.nautilus.city import City, city_of, memo
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.content import RESEARCH_TYPES
from benthic.rules.nautilus.state import NO_CELL, State, Station

RESEARCH_INDEX = {t: i for i, t in enumerate(RESEARCH_TYPES)}  # every pack has these, in this order
TRAINING, TECHNOLOGY, ECHO, TRIAL, ANALYSIS = (
    RESEARCH_INDEX[t] for t in ("training", "technology", "echo", "trial", "analysis")
)


def city(state: State) -> City:
    return city_of(state.stations)


def benefit(state: State, seat: int, research_type: int) -> int:
    name = C.research_types[research_type]
    return C.benefits[name][state.seats[seat].counts[research_type]]


def budget(state: State, seat: int) -> int:
    return benefit(state, seat, TRAINING)


def sub_range(state: State, seat: int) -> int:
    return benefit(state, seat, TECHNOLOGY)


def echo_range(state: State, seat: int) -> int:
    return benefit(state, seat, ECHO)


def trial_peeks(state: State, seat: int) -> int:
    return benefit(state, seat, TRIAL)


def chest_value(state: State, seat: int) -> int:
    return benefit(state, seat, ANALYSIS)


def research_value(state: State, seat: int, research_type: int) -> int:
    values = C.tables.research_values
    if state.three_chips[research_type] == seat:
        return values.three_chip
    if state.seats[seat].counts[research_type] >= 2:
        return values.two_or_more
    return values.fewer_than_two


def research_points(state: State, seat: int) -> int:
    return sum(research_value(state, seat, t) for t in range(len(C.research_types)))


def may_enter_gorge(state: State, seat: int) -> bool:
    return state.gorge_open or all(c >= 1 for c in state.seats[seat].counts)


def is_research(station: Station) -> bool:
    return C.tiles[station.tile].kind == "research"


# --- cells ---------------------------------------------------------------------------------------


def _find_cells(finds: tuple[str, ...]) -> dict[int, int]:
    return {C.find_space_cell[i]: i for i, chip in enumerate(finds) if chip}


def find_cells(state: State) -> dict[int, int]:
    """cell -> find space, for every cell holding a chip (face down or face up)."""
    return memo("find_cells", state.finds, _find_cells)


def sub_cells(state: State) -> set[int]:
    return {c for s in state.seats for c in s.subs if c != NO_CELL}


def is_free(state: State, cell: int) -> bool:
    """§6.13 free sea space (``cell`` is on the board)."""
    return not city(state).covered[cell] and cell not in find_cells(state) and cell not in sub_cells(state)


def cell_of(xy_: tuple[int, int]) -> int | None:
    x, y = xy_
    return C.cell(x, y) if C.on_board(x, y) else None


# --- submarine movement (§6.7) ---------------------------------------------------------------------


def reach(state: State, start: int, steps: int, allow_gorge: bool) -> dict[int, int]:
    """Cells reachable from ``start`` in ≤ ``steps`` orthogonal steps without passing over a find
    (a find may only be the last cell), Gorge cells only if allowed: cell -> BFS predecessor
    (neighbour order N, E, S, W).  ``start`` maps to -1."""
    finds = find_cells(state)
    gorge = C.is_gorge
    neighbours = C.neighbours4
    parent = {start: -1}
    frontier = [start]
    for _ in range(steps):
        nxt = []
        for cell in frontier:
            for n in neighbours[cell]:
                if n in parent or (not allow_gorge and gorge[n]):
                    continue
                parent[n] = cell
                if n not in finds:
                    nxt.append(n)
        if not nxt:
            break
        frontier = nxt
    return parent


def is_destination(state: State, start: int, cell: int, subs: set[int]) -> bool:
    """§6.7 destination rule (R-12): not the start, not covered, and a find or no submarine."""
    if cell == start or city(state).covered[cell]:
        return False
    return cell in find_cells(state) or cell not in subs


def path_to(parent: dict[int, int], cell: int) -> list[int]:
    out = [cell]
    while parent[out[-1]] != -1:
        out.append(parent[out[-1]])
    out.reverse()
    return out


def route(state: State, seat: int, start: int, to: int, steps: int) -> tuple[str | None, list[int]]:
    """The path of a submarine move (R-11): shortest Gorge-free path when one exists within range,
    else a path through the Gorge if the seat may enter it.  Returns (error code or None, path)."""
    plain = reach(state, start, steps, allow_gorge=False)
    if to in plain:
        return None, path_to(plain, to)
    deep = reach(state, start, steps, allow_gorge=True)
    if to in deep:
        if may_enter_gorge(state, seat):
            return None, path_to(deep, to)
        return "gorge_locked", []
    return "unreachable", []


def destinations(state: State, seat: int, start: int, steps: int) -> dict[int, int]:
    """Every legal destination of a move from ``start`` (cell -> predecessor; order = BFS order)."""
    parent = reach(state, start, steps, allow_gorge=may_enter_gorge(state, seat))
    subs = sub_cells(state)
    return {c: p for c, p in parent.items() if is_destination(state, start, c, subs)}


# --- echo (§6.6) ---------------------------------------------------------------------------------


def echo_cells(state: State, sub_cell: int, scan_range: int) -> list[int]:
    """Face-down chips within Manhattan distance ``scan_range``; Gorge chips only from a Gorge cell.
    Sorted by x, then y."""
    sx, sy = C.xy(sub_cell)
    in_gorge = C.is_gorge[sub_cell]
    out = []
    for space, chip in enumerate(state.finds):
        if not chip or state.face_up[space]:
            continue
        cell = C.find_space_cell[space]
        if C.is_gorge[cell] and not in_gorge:
            continue
        x, y = C.xy(cell)
        if abs(x - sx) + abs(y - sy) <= scan_range:
            out.append(cell)
    out.sort(key=C.xy)
    return out


def face_down_spaces(state: State) -> list[int]:
    return [i for i, chip in enumerate(state.finds) if chip and not state.face_up[i]]
