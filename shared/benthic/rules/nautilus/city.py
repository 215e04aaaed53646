"""The underwater city as a graph (spec §3.5.2–§3.5.3, §6.3): everything derived from the stations on the
board, computed once per ``State.stations`` tuple and memoised by identity (states share that tuple until
the next build).  Stations are only ever appended, so the city after a build is derived from the city
before it when that one is still cached (``City.extended``)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar

from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.state import Station

T = TypeVar("T")

_MEMO_LIMIT = 256


def memo(name: str, obj: Any, compute: Callable[[Any], T]) -> T:
    """``compute(obj)`` for an immutable ``obj``, cached by identity (the cache holds ``obj``, so its id
    cannot be reused while cached); the oldest entries of each named cache are dropped first."""
    cache = C.memos.setdefault(name, {})  # per content pack: the same stations mean another city elsewhere
    hit = cache.get(id(obj))
    if hit is not None and hit[0] is obj:
        return hit[1]  # type: ignore[no-any-return]
    value = compute(obj)
    if len(cache) >= _MEMO_LIMIT:
        del cache[next(iter(cache))]
    cache[id(obj)] = (obj, value)
    return value


def locks_pair(locks_a: tuple[str | None, ...], slot: int, locks_b: tuple[str | None, ...]) -> bool:
    """§3.5.3 passage rule: A's lock at ``slot`` and B's lock at the facing slot are equal and present."""
    lock = locks_a[slot]
    return lock is not None and lock == locks_b[C.facing[slot]]


class City:
    """Indexes over the placed stations (read-only)."""

    def __init__(self, stations: tuple[Station, ...]) -> None:
        self.stations = stations
        self.index: dict[str, int] = {s.tile: i for i, s in enumerate(stations)}
        self.at_anchor: dict[tuple[int, int], int] = {s.anchor: i for i, s in enumerate(stations)}
        covered = bytearray(C.n_cells)
        for s in stations:
            for cell in C.block_cells(*s.anchor):
                covered[cell] = 1
        self.covered = bytes(covered)
        adjacency: list[tuple[int, ...]] = []
        for s in stations:
            linked = []
            for slot in range(8):
                j = self.neighbour(s.anchor, slot)
                if j is not None and locks_pair(s.locks, slot, stations[j].locks):
                    linked.append(j)
            adjacency.append(tuple(linked))
        self.adjacency = tuple(adjacency)
        # exit cell -> research stations with a blue lock there (§6.5, §6.12)
        self.blue_exits: dict[int, tuple[int, ...]] = {}
        for i, s in enumerate(stations):
            if C.tiles[s.tile].kind != "research":
                continue
            for cell in self.exit_cells(s, "blue"):
                self.blue_exits[cell] = (*self.blue_exits.get(cell, ()), i)
        self._bfs: dict[int, tuple[list[int], list[int]]] = {}
        self._build_sites: list[tuple[tuple[int, int], tuple[str | None, ...]]] | None = None

    def extended(self, stations: tuple[Station, ...]) -> City:
        """The city of ``stations`` = this city's stations plus one more (the same values as
        ``City(stations)``, computed from the difference)."""
        new = stations[-1]
        k = len(stations) - 1
        town = City.__new__(City)
        town.stations = stations
        town.index = {**self.index, new.tile: k}
        town.at_anchor = {**self.at_anchor, new.anchor: k}
        x0, y0 = new.anchor
        block = C.block_cells(x0, y0)
        covered = bytearray(self.covered)
        for cell in block:
            covered[cell] = 1
        town.covered = bytes(covered)
        # the stations whose neighbour lookups can now meet the new one
        around = {(x0 - dx, y0 - dy) for dx, dy in C.neighbour_offset} | {
            (x0 + dx, y0 + dy) for dx, dy in C.neighbour_offset
        }
        adjacency = list(self.adjacency)
        adjacency.append(())
        for i in sorted({k, *(j for a in around if (j := town.at_anchor.get(a)) is not None)}):
            s = stations[i]
            linked = []
            for slot in range(8):
                j = town.neighbour(s.anchor, slot)
                if j is not None and locks_pair(s.locks, slot, stations[j].locks):
                    linked.append(j)
            adjacency[i] = tuple(linked)
        town.adjacency = tuple(adjacency)
        town.blue_exits = dict(self.blue_exits)
        if C.tiles[new.tile].kind == "research":
            for cell in town.exit_cells(new, "blue"):
                town.blue_exits[cell] = (*town.blue_exits.get(cell, ()), k)
        town._bfs = {}
        town._build_sites = None
        if self._build_sites is not None:
            size = C.block_size
            sites = {  # the sites whose block overlaps the new one are covered now
                anchor: (town.facing_locks(anchor) if anchor in around else facing)
                for anchor, facing in self._build_sites
                if abs(anchor[0] - x0) >= size or abs(anchor[1] - y0) >= size
            }
            for dx, dy in C.neighbour_offset:
                anchor = (x0 + dx, y0 + dy)
                if anchor in sites or anchor in town.at_anchor:
                    continue
                if C.block_on_board(*anchor) and not town.block_covered(*anchor):
                    sites[anchor] = town.facing_locks(anchor)
            town._build_sites = sorted(sites.items())
        return town

    def neighbour(self, anchor: tuple[int, int], slot: int) -> int | None:
        dx, dy = C.neighbour_offset[slot]
        return self.at_anchor.get((anchor[0] + dx, anchor[1] + dy))

    def exit_cells(self, station: Station, colour: str) -> list[int]:
        """On-board exit cells of the station's locks of ``colour`` (§3.5.3)."""
        x0, y0 = station.anchor
        out = []
        for slot, lock in enumerate(station.locks):
            if lock == colour:
                for dx, dy in C.exit_offsets[slot]:
                    if C.on_board(x0 + dx, y0 + dy):
                        out.append(C.cell(x0 + dx, y0 + dy))
        return out

    def block_covered(self, x0: int, y0: int) -> bool:
        covered = self.covered
        return any(covered[c] for c in C.block_cells(x0, y0))

    def facing_locks(self, anchor: tuple[int, int]) -> tuple[str | None, ...]:
        """For a block: per slot, the lock that the neighbouring station shows at the facing slot."""
        out: list[str | None] = []
        for slot in range(8):
            j = self.neighbour(anchor, slot)
            out.append(None if j is None else self.stations[j].locks[C.facing[slot]])
        return tuple(out)

    def build_sites(self) -> list[tuple[tuple[int, int], tuple[str | None, ...]]]:
        """Empty on-board lattice blocks next to a station, each with its facing locks.  Only such blocks
        can take a tile with a same-colour lock pair (§3.5.2 lattice)."""
        if self._build_sites is None:
            sites = []
            seen = set(self.at_anchor)
            for s in self.stations:
                for dx, dy in C.neighbour_offset:
                    anchor = (s.anchor[0] + dx, s.anchor[1] + dy)
                    if anchor in seen:
                        continue
                    seen.add(anchor)
                    if C.block_on_board(*anchor) and not self.block_covered(*anchor):
                        sites.append((anchor, self.facing_locks(anchor)))
            sites.sort()
            self._build_sites = sites
        return self._build_sites

    def bfs(self, source: int) -> tuple[list[int], list[int]]:
        """Distances and BFS parents from a station (neighbours in slot order N..NW, §5.4)."""
        hit = self._bfs.get(source)
        if hit is not None:
            return hit
        n = len(self.stations)
        dist = [-1] * n
        parent = [-1] * n
        dist[source] = 0
        queue = deque([source])
        while queue:
            i = queue.popleft()
            for j in self.adjacency[i]:
                if dist[j] < 0:
                    dist[j] = dist[i] + 1
                    parent[j] = i
                    queue.append(j)
        self._bfs[source] = (dist, parent)
        return dist, parent

    def distance(self, a: int, b: int) -> int:
        return self.bfs(a)[0][b]

    def path(self, a: int, b: int) -> tuple[str, ...]:
        _, parent = self.bfs(a)
        out = [b]
        while out[-1] != a:
            out.append(parent[out[-1]])
        return tuple(self.stations[i].tile for i in reversed(out))


def city_of(stations: tuple[Station, ...]) -> City:
    return memo("city", stations, _city)


def _city(stations: tuple[Station, ...]) -> City:
    if len(stations) > 1:
        hit = C.memos.get("city_by_last", {}).get(id(stations[-2]))
        if hit is not None and hit[0] is stations[-2] and len(hit[1].stations) == len(stations) - 1:
            parent: City = hit[1]
            if all(a is b for a, b in zip(parent.stations, stations, strict=False)):
                town = parent.extended(stations)
                _remember(town)
                return town
    town = City(stations)
    _remember(town)
    return town


def _remember(town: City) -> None:
    """Index a city by its last station (the same Station object ends one tuple and sits inside the next)."""
    cache = C.memos.setdefault("city_by_last", {})
    if len(cache) >= _MEMO_LIMIT:
        del cache[next(iter(cache))]
    cache[id(town.stations[-1])] = (town.stations[-1], town)  # holding the station keeps its id unique
