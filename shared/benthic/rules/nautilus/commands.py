"""The commands of Nautilus (spec §5.3–§5.7): names and fields exactly as in the spec.

Cells are ``[x, y]``; stations are tile ids; subs are 1, 2 or 3 (always the commanding seat's own).
"""

from __future__ import annotations

import msgspec

Cell = tuple[int, int]


class _Command(msgspec.Struct, frozen=True, forbid_unknown_fields=True, tag_field="type"):
    pass


class BuyStation(_Command, frozen=True, tag="buy_station"):
    kind: str
    staff: int = 0


class BuildStation(_Command, frozen=True, tag="build_station"):
    tile: str
    anchor: Cell
    rotation: int


class EndTurn(_Command, frozen=True, tag="end_turn"):
    pass


class MoveResearcher(_Command, frozen=True, tag="move_researcher"):
    from_: str = msgspec.field(name="from")
    to: str


class LaunchSub(_Command, frozen=True, tag="launch_sub"):
    station: str
    cell: Cell


class Echo(_Command, frozen=True, tag="echo"):
    sub: int


class MoveSub(_Command, frozen=True, tag="move_sub"):
    sub: int
    to: Cell
    withdraw_into: str | None = None


class WithdrawSub(_Command, frozen=True, tag="withdraw_sub"):
    sub: int
    station: str


class TempoMove(_Command, frozen=True, tag="tempo_move"):
    sub: int
    to: Cell
    withdraw_into: str | None = None


class SkipTempo(_Command, frozen=True, tag="skip_tempo"):
    pass


class Peek(_Command, frozen=True, tag="peek"):
    cell: Cell


class EndPeeks(_Command, frozen=True, tag="end_peeks"):
    pass


class BonusMoveResearcher(_Command, frozen=True, tag="bonus_move_researcher"):
    from_: str = msgspec.field(name="from")
    to: str


class SkipBonus(_Command, frozen=True, tag="skip_bonus"):
    pass


class CashAssignment(_Command, frozen=True, tag="cash_assignment"):
    upgrades: dict[str, int] = msgspec.field(default_factory=dict)


Command = (
    BuyStation | BuildStation | EndTurn | MoveResearcher | LaunchSub | Echo | MoveSub | WithdrawSub | TempoMove
    | SkipTempo | Peek | EndPeeks | BonusMoveResearcher | SkipBonus | CashAssignment
)
