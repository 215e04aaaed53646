"""The Nautilus view (``views.view``) as a type: ``NautilusEngine.view_type``."""

from __future__ import annotations

import msgspec

from benthic.rules.core import FinalScores
from benthic.rules.nautilus.events import Options
from benthic.rules.viewtypes import ViewPrompt

Cell = tuple[int, int]  # (x, y)


class Chip(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    chip: str
    kind: str
    atlantis_number: int | None


class Find(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A chip on the board: its identity only once face up (or the game ended)."""

    cell: Cell
    depth: str  # slope, deep or gorge
    face_up: bool
    chip: str | None = None
    kind: str | None = None
    atlantis_number: int | None = None


class KnownFind(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    cell: Cell
    chip: str
    kind: str
    atlantis_number: int | None


class Held(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    tile: str
    staff: int


class Research(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    count: int
    value: int


class SeatView(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seat: int
    colour: str
    nemo: int
    supply: int
    subs: list[Cell | None]
    held: list[Held]
    research: dict[str, Research]
    research_points: int
    tableau: list[Chip]
    atlantis: list[int]
    assignment: str | None  # the special assignment: its owner's, or everyone's once cashed
    cashed: bool
    upgrades: dict[str, int] | None


class StationView(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    tile: str
    kind: str
    research_type: str | None
    anchor: Cell
    rotation: int
    owner: int | None
    locks: list[str | None]
    researchers: list[int]


class AtlantisMark(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    number: int
    out: bool
    seat: int | None


class NautilusView(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    version: int
    prompt: ViewPrompt | None
    viewer: int | None
    player_count: int
    options: Options
    round: int
    start_seat: int
    phase: int | None
    final_round: int | None
    end_reason: str | None
    gorge_open: bool
    base_anchor: Cell
    stacks: dict[str, list[str]]
    stations: list[StationView]
    finds: list[Find]
    box: list[Chip]
    atlantis_tracker: list[AtlantisMark]
    atlantis_points: list[int]
    three_chips: dict[str, int | None]
    seats: list[SeatView]
    known_finds: list[KnownFind]
    trial_peeked: list[Cell]
    final_scores: FinalScores | None


__all__ = ["NautilusView"]
