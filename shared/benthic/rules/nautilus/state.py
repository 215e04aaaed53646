"""The state of a Nautilus game: small frozen msgspec Structs, never mutated (``evolve`` builds new ones
sharing the unchanged parts).

Cells are ints ``y * width + x`` (see ``content.Content``); find spaces are indexes into the board's
find-space list (slope, deep, gorge order); research types are indexes into ``Content.research_types``.
"""

from __future__ import annotations

import msgspec

from benthic.rules.nautilus.events import AtlantisAward, Options

NO_CELL = -1  # a submarine in supply


class HeldTile(msgspec.Struct, frozen=True):
    """A bought, unbuilt station lying in front of its buyer; a residential carries its staff."""

    tile: str
    staff: int = 0


class SeatState(msgspec.Struct, frozen=True):
    nemo: int
    supply: int  # researchers in supply (not on the board, not on a held tile)
    subs: tuple[int, ...]  # cell of sub 1, 2, 3; NO_CELL = in supply
    held: tuple[HeldTile, ...] = ()
    counts: tuple[int, ...] = (0, 0, 0, 0, 0)  # research track: active stations per research type
    tableau: tuple[str, ...] = ()  # recovered blue-front non-Atlantis chips
    card: str | None = None  # the secret special assignment
    known: tuple[int, ...] = ()  # find spaces whose face-down chip this seat has peeked at (sorted)
    upgrades: dict[str, int] | None = None  # None until the assignment is cashed


class Station(msgspec.Struct, frozen=True):
    """A tile on the board.  Fixed once built (researchers are counted in ``State.occupancy``)."""

    tile: str
    anchor: tuple[int, int]
    rotation: int
    owner: int | None  # the builder of a research station; None for the base and residentials
    locks: tuple[str | None, ...]  # board orientation, slot order N..NW


class Turn(msgspec.Struct, frozen=True):
    """The current seat's turn and its per-turn counters (§5.3–§5.5)."""

    seat: int
    phase: int  # 1 build, 2 researchers, 3 submarines
    bought: bool = False
    built: tuple[str, ...] = ()
    cost_level_paid: int = 0
    researchers_moved: int = 0
    steps_used: int = 0
    arrived: tuple[str, ...] = ()  # one entry per researcher that arrived in that station this turn
    launch_open: bool = True
    echo_open: bool = True
    echoed: tuple[int, ...] = ()
    moved: tuple[int, ...] = ()


class SubPrompt(msgspec.Struct, frozen=True):
    """A Phase-3 sub-prompt of the current seat (§5.5.1), resolved before anything else."""

    kind: str  # tempo_move | trial_peek | atlantis_bonus
    sub: int = 0  # the sub that recovered the chip
    peeks_left: int = 0
    peeked: tuple[int, ...] = ()  # find spaces peeked in this Trial (private to the seat)
    atlantis_number: int = 0


class State(msgspec.Struct, frozen=True):
    version: int = 0
    seed: int = 0
    content: str = ""  # the key id@version of the game's content pack ("" before the first event)
    player_count: int = 0
    options: Options = Options()
    base_anchor: tuple[int, int] = (0, 0)
    atlantis_points: tuple[int, ...] = ()
    seats: tuple[SeatState, ...] = ()
    stacks: dict[str, tuple[str, ...]] = {}
    stations: tuple[Station, ...] = ()
    occupancy: tuple[tuple[int, ...], ...] = ()  # per station: researchers of each seat
    finds: tuple[str, ...] = ()  # per find space: the chip lying there, "" when empty
    face_up: tuple[bool, ...] = ()  # per find space
    box: tuple[str, ...] = ()  # chips out of play: covered non-Atlantis chips, recovered beige chips
    atlantis_out: tuple[bool, ...] = ()  # per Atlantis number - 1: on the tracker
    atlantis_finder: tuple[int | None, ...] = ()  # per Atlantis number - 1: the marker's seat
    three_chips: tuple[int | None, ...] = (None, None, None, None, None)  # holder per research type
    gorge_open: bool = False
    round: int = 0
    start_seat: int = 0
    final_round: int | None = None
    end_reason: str | None = None
    round_bought: bool = False
    round_built: bool = False
    round_recovered: bool = False
    turn: Turn | None = None
    sub_prompt: SubPrompt | None = None
    final_scoring: bool = False
    atlantis_awards: tuple[AtlantisAward, ...] = ()
    ended: bool = False
