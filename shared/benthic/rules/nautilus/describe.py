"""``describe``: a legal command of Nautilus as a person reads it ("Move submarine 2 to 12,9 and recover the
Slope find there for 1 Nemo"), with the catalogue ids it concerns (station tiles, chips, cells "x,y").

Only what the acting seat may see is used: the kind of a face-down find is named only when this seat has
peeked at it; otherwise a label says only its depth, which is public.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from benthic.rules.presentation import N_, Description, Message, counted, join_messages, msg

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


def nemo(n: int) -> Message:
    return msg("{n} Nemo", n=n)


def named(name: str) -> Message:
    """A kind, depth or research type, by its catalogue term's name (translated)."""
    return Message(name)


def cell_id(xy: tuple[int, int] | list[int]) -> str:
    return f"{xy[0]},{xy[1]}"


def cell_name(xy: tuple[int, int] | list[int]) -> str:
    """A cell as the sea map's edges write it: its column's letter and its row's number, "C-14" for 2,13 (not
    "C14", a find chip's id)."""
    return f"{chr(ord('A') + xy[0])}-{xy[1] + 1}"


@cache
def block_ids(anchor: tuple[int, int]) -> tuple[str, ...]:
    """The catalogue ids of the 9 cells a station at ``anchor`` covers."""
    return tuple(cell_id(C.xy(cell)) for cell in C.block_cells(*anchor))


@cache
def tile(tile_id: str) -> Message:
    """A station tile by its catalogue name (a msgid: translated)."""
    return Message(tile_name(C.tiles[tile_id]))


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
            price = c.staff * T.researcher_staff_price
            staff = counted(c.staff, "{n} researcher", "{n} researchers")
            label = (msg("Buy a green residential station staffed with {staff} for {price}", staff=staff,
                         price=nemo(price)) if c.kind == "residential_green" else
                     msg("Buy a blue residential station staffed with {staff} for {price}", staff=staff,
                         price=nemo(price)))
            return Description.of(label, top + [f"stack:{c.kind}"])
        name = RESEARCH_NAMES.get(c.kind, c.kind)
        template = (N_("Buy an {research} station for {price}") if name[:1] in "AEIOU"
                    else N_("Buy a {research} station for {price}"))
        return Description.of(Message(template, {"research": named(name), "price": nemo(T.research_station_price)}),
                              top + [f"stack:{c.kind}"])

    def build(self, c: cmd.BuildStation) -> Description:
        turn = self.state.turn
        assert turn is not None
        x0, y0 = c.anchor
        paid = max(0, block_level((x0, y0)) - turn.cost_level_paid)
        price = msg("for {price}", price=nemo(paid)) if paid else msg("at no extra cost")
        turned = msg(", turned {degrees}°", degrees=c.rotation) if c.rotation else ""
        finds = self.state.finds
        covered = sum(1 for cell in C.block_cells(x0, y0)
                      if (space := C.find_space_at.get(cell)) is not None and finds[space])
        covers = msg("; it covers {finds}", finds=counted(covered, "{n} find", "{n} finds")) if covered else ""
        return Description.of(msg("Build {tile} at {cell}{turned} {price}{covers}", tile=tile(c.tile),
                                  cell=cell_name((x0, y0)), turned=turned, price=price, covers=covers),
                              [c.tile, *block_ids((x0, y0))])

    # --- researchers ---------------------------------------------------------------------------------------
    def move_researcher(self, c: cmd.MoveResearcher | cmd.BonusMoveResearcher) -> Description:
        a, b = self.station_index(c.from_), self.station_index(c.to)
        steps = self.city().distance(a, b)
        fee = activation_fee(self.state, self.seat, b)
        target = self.state.stations[b]
        extra: Message | str = ""
        if target.owner is not None and not self.state.occupancy[b][self.seat]:
            extra = msg("; activates it (fee {fee})", fee=nemo(fee)) if fee else msg("; activates it")
        template = (N_("Atlantis bonus: researcher {a} → {b} ({steps}){extra}")
                    if isinstance(c, cmd.BonusMoveResearcher) else N_("Researcher: {a} → {b} ({steps}){extra}"))
        return Description.of(Message(template, {"a": tile(c.from_), "b": tile(c.to),
                                                 "steps": counted(steps, "{n} step", "{n} steps"), "extra": extra}),
                              [c.from_, c.to])

    # --- submarines ----------------------------------------------------------------------------------------
    def launch(self, c: cmd.LaunchSub) -> Description:
        sub = self.me.subs.index(NO_CELL) + 1 if NO_CELL in self.me.subs else 0
        return Description.of(msg("Launch submarine {sub} from {station} to {cell} (1 researcher goes back to "
                                  "your supply)", sub=sub, station=tile(c.station), cell=cell_name(c.cell)),
                              [c.station, cell_id(c.cell)])

    def sub_cell(self, sub: int) -> str:
        cell = self.me.subs[sub - 1]
        return cell_id(C.xy(cell)) if cell != NO_CELL else ""

    def echo(self, c: cmd.Echo) -> Description:
        where = self.sub_cell(c.sub)
        return Description.of(msg("Echo with submarine {sub} for {price}: look at the finds within {spaces}",
                                  sub=c.sub, price=nemo(T.echo_price),
                                  spaces=counted(echo_range(self.state, self.seat), "{n} space", "{n} spaces")),
                              [where] if where else [])

    def find_there(self, xy: tuple[int, int]) -> tuple[Message | str, list[str]]:
        """What a move onto ``xy`` recovers, as this seat may know it, and the chip id if it is face up."""
        cell = C.cell(*xy)
        space = C.find_space_at.get(cell)
        if space is None or not self.state.finds[space]:
            return "", []
        chip_id = self.state.finds[space]
        chip = C.chips[chip_id]
        zone = C.zone[cell]
        price = C.recovery_cost[zone]
        name = named(chip_name(chip)) if chip.atlantis_number is None else \
            msg("Atlantis {number}", number=chip.atlantis_number)
        if self.state.face_up[space]:
            cost = msg(" for {price}", price=nemo(price)) if C.kind_front[chip.kind] == "blue" else ""
            return msg(" and recover the {find} there{cost}", find=name, cost=cost), [chip_id]
        depth = named(DEPTH_NAMES[C.find_space_depth[space]])
        if space in self.me.known:
            cost = msg(" for {price}", price=nemo(price)) if C.kind_front[chip.kind] == "blue" else msg(" (free)")
            return msg(" and recover the {depth} find there (you peeked: {known}){cost}", depth=depth, known=name,
                       cost=cost), []
        return msg(" and recover the face-down {depth} find there ({price} if blue-front)", depth=depth,
                   price=nemo(price)), []

    def move(self, c: cmd.MoveSub | cmd.TempoMove) -> Description:
        start = self.sub_cell(c.sub)
        dest = cell_id(c.to)
        recovered, chips = self.find_there(c.to)
        withdraw: Message | str = ""
        highlights = [start, dest, *chips]
        if c.withdraw_into is not None:
            fee = withdrawal_fee(self.state, self.seat, self.station_index(c.withdraw_into))
            withdraw = (msg(" and withdraw it into {station} ({fee})", station=tile(c.withdraw_into), fee=nemo(fee))
                        if fee else msg(" and withdraw it into {station}", station=tile(c.withdraw_into)))
            highlights.append(c.withdraw_into)
        template = (N_("Tempo: move submarine {sub} to {cell}{recovered}{withdraw}") if isinstance(c, cmd.TempoMove)
                    else N_("Move submarine {sub} to {cell}{recovered}{withdraw}"))
        return Description.of(Message(template, {"sub": c.sub, "cell": cell_name(c.to), "recovered": recovered,
                                                 "withdraw": withdraw}), [h for h in highlights if h])

    def withdraw(self, c: cmd.WithdrawSub) -> Description:
        fee = withdrawal_fee(self.state, self.seat, self.station_index(c.station))
        pay = msg(" ({fee})", fee=nemo(fee)) if fee else ""
        where = self.sub_cell(c.sub)
        return Description.of(msg("Withdraw submarine {sub} where it stands into {station}{pay}", sub=c.sub,
                                  station=tile(c.station), pay=pay), [h for h in (where, c.station) if h])

    def peek(self, c: cmd.Peek) -> Description:
        cell = C.cell(*c.cell)
        space = C.find_space_at.get(cell)
        depth = named(DEPTH_NAMES[C.find_space_depth[space]]) if space is not None else ""
        return Description.of(msg("Look at the face-down {depth} find at {cell}", depth=depth, cell=cell_name(c.cell)),
                              [cell_id(c.cell)])

    # --- the end -------------------------------------------------------------------------------------------
    def cash(self, c: cmd.CashAssignment) -> Description:
        card = [self.me.card] if self.me.card else []
        if not c.upgrades:
            return Description.of(msg("Cash your special assignment without raising any chip"), card)
        total = sum(c.upgrades.values()) * T.assignment_upgrade_price
        raised = join_messages([msg("{n} × {what}", n=n, what=named(KIND_NAMES.get(kind, kind)))
                                for kind, n in c.upgrades.items()])
        template = (N_("Raise {chips} by 1 point each for {price}") if sum(c.upgrades.values()) > 1
                    else N_("Raise {chips} by 1 point for {price}"))
        return Description.of(Message(template, {"chips": raised, "price": nemo(total)}), card)

    def pass_(self) -> Description:
        texts = {
            "phase1_turn": msg("End your turn (no more buying or building)"),
            "phase2_turn": msg("End your turn (no more researcher moves)"),
            "phase3_turn": msg("End your turn (no more submarine actions)"),
            "tempo_move": msg("Skip the Tempo move"),
            "trial_peek": msg("Stop looking at finds"),
            "atlantis_bonus": msg("Skip the Atlantis bonus move"),
        }
        return Description.of(texts.get(self.prompt) or msg("Pass"), [])

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
