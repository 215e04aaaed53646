"""Pairing: the waiting tickets of one wave grouped into tables (pure, no I/O).

In the spirit of Lichess' pool: a weighted matching over the tickets that may sit together, with networkx's
``max_weight_matching`` (Edmonds' blossom algorithm, a well-kept implementation) doing the matching.

- Two tickets may sit together when they are of one **class** (game type, options, pace, rated), of different
  players, neither blocks the other, and their rating gap is within both tickets' **windows**.  A window is the
  ticket's own ``rating_window`` if it named one, else ``window_base + window_growth * waves missed`` up to
  ``window_max``: it widens with the time waited.
- The weight of a pair favours, in this order: pairing at all (a large constant), the tickets that missed more
  waves (``priority`` per wave missed, up to 20 waves), a small rating gap.  So a ticket that missed waves wins
  the seat when two compete for it.
- Tables of 3 and 4 seats are built from matchings too: for 4, pairs are matched, then pairs of pairs whose four
  players may all sit together; for 3, every third ticket in rating order is set aside as a single, the others
  are paired, and pairs are matched with singles (a bipartite matching).  Table sizes are tried from 4 down to 2:
  a ticket for 2-4 seats sits at the largest table its class fills.
- The blossom algorithm costs about n^3: the tickets of a class are cut, in rating order, into chunks of
  ``chunk`` (neighbours in rating are the candidates anyway), and each ticket is linked to its ``neighbours``
  nearest in rating; what a chunk leaves unmatched gets one more pass over all the leftovers.  bench/
  matchmaker_bench.py measures the cost per wave.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import networkx as nx

PAIR = 1_000_000  # the weight of sitting together at all: more than any gap or priority
MAX_PRIORITY_WAVES = 20


@dataclass(frozen=True)
class Candidate:
    ticket_id: str
    player_id: str
    rating: float
    misses: int  # waves missed so far
    seats_min: int
    seats_max: int
    group: tuple[object, ...]  # the class: game type, options, pace, rated
    window: float | None = None  # the ticket's own window (None: the widening one)


@dataclass(frozen=True)
class Params:
    window_base: float = 3.0
    window_growth: float = 3.0
    window_max: float = 40.0
    priority: int = 200  # weight per wave missed, against 100 per rating point of gap
    chunk: int = 32
    neighbours: int = 12


def window(c: Candidate, p: Params) -> float:
    if c.window is not None:
        return c.window
    return min(p.window_max, p.window_base + p.window_growth * c.misses)


Blocked = Callable[[str, str], bool]


class _Unit:
    """A ticket, or a group of tickets already matched (a pair), as one node of a matching."""

    __slots__ = ("members", "rating", "misses", "single")

    def __init__(self, members: tuple[Candidate, ...], single: bool = False) -> None:
        self.members = members
        self.rating = sum(m.rating for m in members) / len(members)
        self.misses = sum(min(m.misses, MAX_PRIORITY_WAVES) for m in members)
        self.single = single


class Pairing:
    def __init__(self, params: Params, blocked: Blocked) -> None:
        self.p = params
        self.blocked = blocked
        self._windows: dict[str, float] = {}

    def _window(self, c: Candidate) -> float:
        w = self._windows.get(c.ticket_id)
        if w is None:
            w = self._windows[c.ticket_id] = window(c, self.p)
        return w

    def may_sit(self, a: Candidate, b: Candidate) -> bool:
        return (a.player_id != b.player_id and abs(a.rating - b.rating) <= min(self._window(a), self._window(b))
                and not self.blocked(a.player_id, b.player_id))

    def _together(self, u: _Unit, v: _Unit) -> bool:
        return all(self.may_sit(a, b) for a in u.members for b in v.members)

    def _weight(self, u: _Unit, v: _Unit) -> int:
        ratings = [m.rating for m in (*u.members, *v.members)]
        spread = max(ratings) - min(ratings)
        return PAIR + self.p.priority * (u.misses + v.misses) - int(spread * 100)

    def _match(self, units: list[_Unit], bipartite: bool = False) -> tuple[list[tuple[_Unit, _Unit]], list[_Unit]]:
        """Max-weight matching of ``units`` (sorted by rating here), chunk by chunk, then once more over what the
        chunks left."""
        units = sorted(units, key=lambda u: u.rating)
        matched, left = self._match_chunks(units, bipartite)
        if len(left) > 1:
            more, left = self._match_chunks(left, bipartite)
            matched += more
        return matched, left

    def _match_chunks(self, units: list[_Unit], bipartite: bool) -> tuple[list[tuple[_Unit, _Unit]], list[_Unit]]:
        matched: list[tuple[_Unit, _Unit]] = []
        left: list[_Unit] = []
        size = self.p.chunk * (2 if bipartite else 1)
        for start in range(0, len(units), size):
            chunk = units[start:start + size]
            graph = nx.Graph()
            graph.add_nodes_from(range(len(chunk)))
            for i, u in enumerate(chunk):
                for j in range(i + 1, min(len(chunk), i + 1 + self.p.neighbours * (2 if bipartite else 1))):
                    v = chunk[j]
                    if bipartite and u.single == v.single:
                        continue
                    if self._together(u, v):
                        graph.add_edge(i, j, weight=self._weight(u, v))
            pairs = nx.max_weight_matching(graph) if graph.number_of_edges() else set()
            used: set[int] = set()
            for i, j in pairs:
                matched.append((chunk[i], chunk[j]))
                used.update((i, j))
            left.extend(u for i, u in enumerate(chunk) if i not in used)
        return matched, left

    def tables_of(self, candidates: Sequence[Candidate], seats: int) -> list[tuple[Candidate, ...]]:
        """Tables of ``seats`` players among ``candidates`` (of one class, each accepting that many seats)."""
        singles = [_Unit((c,)) for c in candidates]
        if seats == 2:
            pairs, _ = self._match(singles)
            return [u.members + v.members for u, v in pairs]
        if seats == 4:
            pairs, _ = self._match(singles)
            quads, _ = self._match([_Unit(u.members + v.members) for u, v in pairs])
            return [u.members + v.members for u, v in quads]
        if seats == 3:
            ordered = sorted(singles, key=lambda u: u.rating)
            extra = len(ordered) % 3
            if extra:  # the tickets that missed fewest waves (the newest) wait for the next wave
                out = set(id(u) for u in sorted(ordered, key=lambda u: u.misses)[:extra])
                ordered = [u for u in ordered if id(u) not in out]
            alone = [_Unit(u.members, single=True) for i, u in enumerate(ordered) if i % 3 == 1]
            pairs, _ = self._match([u for i, u in enumerate(ordered) if i % 3 != 1])
            triples, _ = self._match([*alone, *(_Unit(u.members + v.members) for u, v in pairs)], bipartite=True)
            return [u.members + v.members for u, v in triples]
        raise ValueError(f"tables of {seats} seats are not made")

    def tables(self, candidates: Sequence[Candidate]) -> list[tuple[Candidate, ...]]:
        """Every table of this wave, over all classes: larger tables first, each ticket at one table at most."""
        classes: dict[tuple[object, ...], list[Candidate]] = {}
        for c in candidates:
            classes.setdefault(c.group, []).append(c)
        tables: list[tuple[Candidate, ...]] = []
        for members in classes.values():
            left = members
            for seats in (4, 3, 2):
                fit = [c for c in left if c.seats_min <= seats <= c.seats_max]
                if len(fit) < seats:
                    continue
                made = self.tables_of(fit, seats)
                tables.extend(made)
                seated = {c.ticket_id for table in made for c in table}
                left = [c for c in left if c.ticket_id not in seated]
        return tables


def match_id(ticket_ids: Sequence[str]) -> str:
    """A match's id from its tickets: the same tickets always make the same id (and so the same game id)."""
    return "m_" + hashlib.sha256("|".join(sorted(ticket_ids)).encode()).hexdigest()[:24]


def game_id_of(match: str, game_type: str) -> str:
    """The id of a match's game, as the command service's ids look (``<type prefix>_<16 hex>``)."""
    return f"{game_type[:2]}_{hashlib.sha256(f'game:{match}'.encode()).hexdigest()[:16]}"


def seat_order(match: str, members: Sequence[str]) -> list[str]:
    """The seats of a table: an order drawn from the match id (no ticket always plays first), the same on every
    try."""
    return sorted(members, key=lambda m: hashlib.sha256(f"{match}:{m}".encode()).digest())
