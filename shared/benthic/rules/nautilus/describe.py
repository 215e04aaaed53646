"""``describe``: a legal command of Nautilus as a person reads it ("Move submarine 2 to 12,9 and recover the
Slope find there for 1 Nemo"), with the catalogue ids it concerns (station tiles, chips, cells "x,y").

Only what the acting seat may see is used: the kind of a face-down find is named only when this seat has
peeked at it; otherwise a label says only its depth, which is public.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from benthic.rules.presentation import Description, count, join_and

from . import commands as cmd
from .catalogue import DEPTH_NAMES, KIND_NAMES, RESEARCH_NAMES, chip_name, tile_name
from .city import City
from .content import CONTENT as C
from .content import STACK_KINDS_RESIDENTIAL
from .derived import city, echo_range
from .flow import prompt_of
from .legal import activation_fee, block_level, withdrawal_fee
from .state import NO_CELL, State

T = C.tables


def nemo(n: int) -> str:
    return count(n, "Nemo", "Nemo")


def cell_id(xy: tuple[int, int] | list[int]) -> str:
    return f"{xy[0]},{xy[1]}"


@cache
def block_ids(anchor: tuple[int, int]) -> tuple[str, ...]:
    """The catalogue ids of the 9 cells a station at ``anchor`` covers."""
    return tuple(cell_id(C.xy(cell)) for cell in C.block_cells(*anchor))


@cache
def tile(tile_id: str) -> str:
    return tile_name(C.tiles[tile_id])


class _Describer:
    def __init__(self, state: State, seat: int | None) -> None:
        self.state = state
        found = prompt_of(state)
        self.prompt = found[0] if found is not None else ""
        if seat is None:
            if found is None or len(found[1]) != 1:
                raise ValueError("describe needs the seat when zero or several seats are prompted")
            seat = found[1][0]
        self.seat = seat
        self.me = state.seats[seat]
        self._index: dict[str, int] | None = None
        self._city: City | None = None

    def city(self) -> City:
        if self._city is None:
            self._city = city(self.state)
        return self._city

    def station_index(self, tile_id: str) -> int:
        if self._index is None:
            self._index = {s.tile: i for i, s in enumerate(self.state.stations)}
        return self._index[tile_id]

    # --- phase 1 -------------------------------------------------------------------------------------------
    def buy(self, c: cmd.BuyStation) -> Description:
        stack = self.state.stacks.get(c.kind, ())
        top = [stack[0]] if stack else []
        if c.kind in STACK_KINDS_RESIDENTIAL:
            colour = "green" if c.kind == "residential_green" else "blue"
            price = c.staff * T.researcher_staff_price
            return Description(f"Buy a {colour} residential station staffed with "
                               f"{count(c.staff, 'researcher')} for {nemo(price)}", top + [f"stack:{c.kind}"])
        name = RESEARCH_NAMES.get(c.kind, c.kind)
        article = "an" if name[:1] in "AEIOU" else "a"
        return Description(f"Buy {article} {name} station for {nemo(T.research_station_price)}",
                           top + [f"stack:{c.kind}"])

    def build(self, c: cmd.BuildStation) -> Description:
        turn = self.state.turn
        assert turn is not None
        x0, y0 = c.anchor
        paid = max(0, block_level((x0, y0)) - turn.cost_level_paid)
        price = f"for {nemo(paid)}" if paid else "at no extra cost"
        turned = f", turned {c.rotation}°" if c.rotation else ""
        finds = self.state.finds
        covered = sum(1 for cell in C.block_cells(x0, y0)
                      if (space := C.find_space_at.get(cell)) is not None and finds[space])
        covers = f"; it covers {count(covered, 'find')}" if covered else ""
        return Description(f"Build {tile(c.tile)} at {x0},{y0}{turned} {price}{covers}", [c.tile, *block_ids((x0, y0))])

    # --- researchers ---------------------------------------------------------------------------------------
    def move_researcher(self, c: cmd.MoveResearcher | cmd.BonusMoveResearcher) -> Description:
        a, b = self.station_index(c.from_), self.station_index(c.to)
        steps = self.city().distance(a, b)
        fee = activation_fee(self.state, self.seat, b)
        target = self.state.stations[b]
        extra = ""
        if target.owner is not None and not self.state.occupancy[b][self.seat]:
            extra = "; activates it" + (f" (fee {nemo(fee)})" if fee else "")
        lead = "Atlantis bonus: researcher" if isinstance(c, cmd.BonusMoveResearcher) else "Researcher:"
        return Description(f"{lead} {tile(c.from_)} → {tile(c.to)} ({count(steps, 'step')}){extra}",
                           [c.from_, c.to])

    # --- submarines ----------------------------------------------------------------------------------------
    def launch(self, c: cmd.LaunchSub) -> Description:
        sub = self.me.subs.index(NO_CELL) + 1 if NO_CELL in self.me.subs else 0
        return Description(f"Launch submarine {sub} from {tile(c.station)} to {cell_id(c.cell)} "
                           "(1 researcher goes back to your supply)", [c.station, cell_id(c.cell)])

    def sub_cell(self, sub: int) -> str:
        cell = self.me.subs[sub - 1]
        return cell_id(C.xy(cell)) if cell != NO_CELL else ""

    def echo(self, c: cmd.Echo) -> Description:
        where = self.sub_cell(c.sub)
        return Description(f"Echo with submarine {c.sub} for {nemo(T.echo_price)}: look at the finds within "
                           f"{count(echo_range(self.state, self.seat), 'space')}", [where] if where else [])

    def find_there(self, xy: tuple[int, int]) -> tuple[str, list[str]]:
        """What a move onto ``xy`` recovers, as this seat may know it, and the chip id if it is face up."""
        cell = C.cell(*xy)
        space = C.find_space_at.get(cell)
        if space is None or not self.state.finds[space]:
            return "", []
        chip_id = self.state.finds[space]
        chip = C.chips[chip_id]
        zone = C.zone[cell]
        price = C.recovery_cost[zone]
        if self.state.face_up[space]:
            cost = f" for {nemo(price)}" if C.kind_front[chip.kind] == "blue" else ""
            return f" and recover the {chip_name(chip)} there{cost}", [chip_id]
        depth = DEPTH_NAMES[C.find_space_depth[space]]
        if space in self.me.known:
            known = KIND_NAMES.get(chip.kind, chip.kind) if chip.atlantis_number is None else chip_name(chip)
            cost = f" for {nemo(price)}" if C.kind_front[chip.kind] == "blue" else " (free)"
            return f" and recover the {depth} find there (you peeked: {known}){cost}", []
        return f" and recover the face-down {depth} find there ({nemo(price)} if blue-front)", []

    def move(self, c: cmd.MoveSub | cmd.TempoMove) -> Description:
        start = self.sub_cell(c.sub)
        dest = cell_id(c.to)
        recovered, chips = self.find_there(c.to)
        withdraw = ""
        highlights = [start, dest, *chips]
        if c.withdraw_into is not None:
            fee = withdrawal_fee(self.state, self.seat, self.station_index(c.withdraw_into))
            withdraw = f" and withdraw it into {tile(c.withdraw_into)}" + (f" ({nemo(fee)})" if fee else "")
            highlights.append(c.withdraw_into)
        lead = "Tempo: move" if isinstance(c, cmd.TempoMove) else "Move"
        return Description(f"{lead} submarine {c.sub} to {dest}{recovered}{withdraw}", [h for h in highlights if h])

    def withdraw(self, c: cmd.WithdrawSub) -> Description:
        fee = withdrawal_fee(self.state, self.seat, self.station_index(c.station))
        pay = f" ({nemo(fee)})" if fee else ""
        where = self.sub_cell(c.sub)
        return Description(f"Withdraw submarine {c.sub} where it stands into {tile(c.station)}{pay}",
                           [h for h in (where, c.station) if h])

    def peek(self, c: cmd.Peek) -> Description:
        cell = C.cell(*c.cell)
        space = C.find_space_at.get(cell)
        depth = DEPTH_NAMES[C.find_space_depth[space]] if space is not None else ""
        return Description(f"Look at the face-down {depth} find at {cell_id(c.cell)}", [cell_id(c.cell)])

    # --- the end -------------------------------------------------------------------------------------------
    def cash(self, c: cmd.CashAssignment) -> Description:
        card = [self.me.card] if self.me.card else []
        if not c.upgrades:
            return Description("Cash your special assignment without raising any chip", card)
        total = sum(c.upgrades.values()) * T.assignment_upgrade_price
        raised = join_and(f"{n} {KIND_NAMES.get(kind, kind)}" + ("s" if n > 1 and kind != "gold" else "")
                          for kind, n in c.upgrades.items())
        each = " each" if sum(c.upgrades.values()) > 1 else ""
        return Description(f"Raise {raised} by 1 point{each} for {nemo(total)}", card)

    def pass_(self) -> Description:
        texts = {
            "phase1_turn": "End your turn (no more buying or building)",
            "phase2_turn": "End your turn (no more researcher moves)",
            "phase3_turn": "End your turn (no more submarine actions)",
            "tempo_move": "Skip the Tempo move",
            "trial_peek": "Stop looking at finds",
            "atlantis_bonus": "Skip the Atlantis bonus move",
        }
        return Description(texts.get(self.prompt, "Pass"), [])

    def describe(self, c: Any) -> Description:
        handler = _HANDLERS.get(type(c))
        if handler is None:
            raise TypeError(f"not a Nautilus command: {c!r}")
        return handler(self, c)


_HANDLERS: dict[type, Callable[[_Describer, Any], Description]] = {
    cmd.BuyStation: _Describer.buy,
    cmd.BuildStation: _Describer.build,
    cmd.MoveResearcher: _Describer.move_researcher,
    cmd.BonusMoveResearcher: _Describer.move_researcher,
    cmd.LaunchSub: _Describer.launch,
    cmd.Echo: _Describer.echo,
    cmd.MoveSub: _Describer.move,
    cmd.TempoMove: _Describer.move,
    cmd.WithdrawSub: _Describer.withdraw,
    cmd.Peek: _Describer.peek,
    cmd.CashAssignment: _Describer.cash,
    cmd.EndTurn: lambda d, c: d.pass_(),
    cmd.SkipTempo: lambda d, c: d.pass_(),
    cmd.EndPeeks: lambda d, c: d.pass_(),
    cmd.SkipBonus: lambda d, c: d.pass_(),
}


def describe(state: State, command: Any, seat: int | None = None) -> Description:
    return _Describer(state, seat).describe(command)


def describe_all(state: State, commands: Sequence[Any], seat: int | None = None) -> list[Description]:
    describer = _Describer(state, seat)
    return [describer.describe(c) for c in commands]
