"""``describe``: a legal command of Aquatica as a person reads it ("Buy Coin Wreck for 2 coins into board
slot 3"), with the catalogue ids it concerns (Locations, Characters, Mantas, goals, board spaces).

Only what the acting seat may see is used: its own hand, discard pile, board and Mantas, and the public
rows and tracks.  Two commands get the same label only when they differ in which of two interchangeable
components they use (two copies of an Ocean Character, two Wild Mantas of one kind): the same move.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from benthic.rules.presentation import MAX_LABEL, Description, count, join_and

from . import commands as cmd
from .catalogue import component_names
from .content import catalog
from .effects import Choice, Gain
from .prompts import prompt_kind
from .queries import acquisition_cost, head, row_of
from .state import ICHTHYANDERS, State
from .texts import effect_text, effects_text, resource

CAT = catalog()


def _fit(label: str, extra: str) -> str:
    return label + extra if len(label) + len(extra) <= MAX_LABEL else label


def _clip(label: str) -> str:
    if len(label) <= MAX_LABEL:
        return label
    return label[:MAX_LABEL - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


class _Describer:
    def __init__(self, state: State, seat: int | None) -> None:
        self.state = state
        found = prompt_kind(state)
        self.prompt = found[0] if found is not None else ""
        if seat is None:
            if found is None or len(found[1]) != 1:
                raise ValueError("describe needs the seat when zero or several seats are prompted")
            seat = found[1][0]
        self.seat = seat
        self.me = state.players[seat]
        self.names = component_names()

    def card(self, card_id: str) -> str:
        return self.names[card_id]

    def location_at(self, slot: int) -> tuple[str, str]:
        bl = self.me.board[slot]
        assert bl is not None
        return bl.location_id, self.names[bl.location_id]

    # --- the turn ------------------------------------------------------------------------------------------
    def play(self, c: cmd.PlayCharacter) -> Description:
        effects = CAT.card[c.card_id].effects
        return Description(_fit(f"Play {self.card(c.card_id)}", f": {effects_text(effects)}"),
                           [c.card_id])

    def flip(self, c: cmd.FlipManta) -> Description:
        manta = next(m for m in self.me.mantas if m.id == c.manta_id)
        face = CAT.face(manta.kind)
        name = self.names[c.manta_id]
        if self.prompt == "pay" and isinstance(face, Gain):
            return Description(f"Flip your {name} to add {resource(face.amount, face.resource)} to the payment",
                               [c.manta_id])
        return Description(_clip(f"Flip your {name}"), [c.manta_id])

    def exploit(self, c: cmd.ExploitDepth) -> Description:
        bl = self.me.board[c.slot]
        assert bl is not None
        loc = CAT.locations[bl.location_id]
        depth = loc.depths[bl.covered]
        if self.prompt == "pay" and isinstance(depth, Gain):
            what = f"add {effect_text(depth).removeprefix('gain ')} to the payment"
        else:
            what = effect_text(depth)
        return Description(_clip(f"Exploit Depth {bl.covered + 1} of {loc.name}: {what}"),
                           [loc.id, f"slot:{c.slot}"])

    def claim(self, c: cmd.ClaimGoal) -> Description:
        goal_id = self.state.goals[c.goal_index]
        spot = len(self.state.tracks[c.goal_index])
        points = CAT.board.goal_track_points[spot] if spot < len(CAT.board.goal_track_points) else 0
        return Description(_clip(f"Claim the goal \"{self.names[goal_id]}\" with your {self.names[c.manta_id]} "
                                 f"(spot {spot + 1}, {points} PP)"), [goal_id, c.manta_id])

    def choose_king(self, c: cmd.ChooseKing) -> Description:
        king = CAT.card[c.king_id]
        text = effects_text(king.effects) if king.effects else "exchanged for a Wild Manta at setup"
        return Description(_fit(f"Choose {king.name} (King {king.number})", f": {text}"), [c.king_id])

    # --- effects -------------------------------------------------------------------------------------------
    def source(self) -> list[str]:
        if not self.state.queue:
            return []
        src = head(self.state).source
        return [src.id] if src.id in self.names else []

    def choose_option(self, c: cmd.ChooseOption) -> Description:
        effect = head(self.state).effect
        assert isinstance(effect, Choice)
        return Description(_clip(f"Choose: {effects_text(effect.options[c.index])}"), self.source())

    def acquire(self, c: cmd.Acquire) -> Description:
        loc = CAT.locations[c.location_id]
        row = row_of(self.state, c.location_id) or "bottom"
        cost = acquisition_cost(loc, c.mode, row)
        price = count(cost, "coin") if c.mode == "buy" else f"{cost} power"
        verb = "Buy" if c.mode == "buy" else "Conquer"
        return Description(f"{verb} {loc.name} ({row} row) for {price} into board slot {c.slot + 1}",
                           [c.location_id, f"slot:{c.slot}"])

    def recruit(self, c: cmd.RecruitCharacter) -> Description:
        card_id = self.state.character_row[c.row_slot]
        assert card_id is not None
        effect = head(self.state).effect
        free = getattr(effect, "free", False)
        cost = "for free" if free else f"for {count(CAT.row_cost(c.row_slot), 'coin')}"
        return Description(f"Recruit {self.names[card_id]} from row slot {c.row_slot + 1} {cost}",
                           [card_id, f"row:{c.row_slot}"])

    def raise_(self, c: cmd.RaiseLocations) -> Description:
        parts = []
        highlights = []
        for slot, steps in c.allocation:
            loc_id, name = self.location_at(slot)
            parts.append(f"{name} by {steps}")
            highlights.append(loc_id)
        return Description(_clip(f"Raise {join_and(parts)}"), highlights)

    def fully_rise(self, c: cmd.FullyRiseLocation) -> Description:
        loc_id, name = self.location_at(c.slot)
        return Description(f"Raise {name} until it is fully risen", [loc_id])

    def score(self, c: cmd.ScoreLocation) -> Description:
        loc_id, name = self.location_at(c.slot)
        return Description(f"Score {name} ({CAT.locations[loc_id].prosperity} PP)", [loc_id])

    def take_back(self, c: cmd.TakeBackCard) -> Description:
        return Description(f"Take {self.card(c.card_id)} back into your hand", [c.card_id])

    def scout(self, c: cmd.ScoutDecision) -> Description:
        if c.do:
            return Description("Scout: discard the top row, move the bottom row up and deal new Locations", [])
        return Description("Do not scout", [])

    def scout_discard(self, c: cmd.ScoutDiscard) -> Description:
        return Description(f"Discard {self.names[c.location_id]} from the bottom row", [c.location_id])

    def replay(self, c: cmd.ReplayCard) -> Description:
        return Description(f"Replay {self.card(c.card_id)} from your discard pile (the Healer)", [c.card_id])

    def discard(self, c: cmd.DiscardCard) -> Description:
        return Description(f"Discard {self.card(c.card_id)} from your hand", [c.card_id])

    def place_ichthyander(self, c: cmd.PlaceIchthyander) -> Description:
        goal_id = self.state.goals[c.goal_index]
        taken = sum(1 for spot in self.state.tracks[c.goal_index] if spot.seat == ICHTHYANDERS)
        assert taken == 0
        return Description(_clip(f"Place an Ichthyander on the goal \"{self.names[goal_id]}\""), [goal_id])

    def describe(self, c: Any) -> Description:
        handler = _HANDLERS.get(type(c))
        if handler is None:
            raise TypeError(f"not an Aquatica command: {c!r}")
        return handler(self, c)


_HANDLERS: dict[type, Callable[[_Describer, Any], Description]] = {
    cmd.ReplayCard: _Describer.replay,
    cmd.ChooseKing: _Describer.choose_king,
    cmd.PlayCharacter: _Describer.play,
    cmd.FlipManta: _Describer.flip,
    cmd.ExploitDepth: _Describer.exploit,
    cmd.ClaimGoal: _Describer.claim,
    cmd.EndTurn: lambda d, c: Description("End your turn", []),
    cmd.ChooseOption: _Describer.choose_option,
    cmd.Acquire: _Describer.acquire,
    cmd.RecruitCharacter: _Describer.recruit,
    cmd.RaiseLocations: _Describer.raise_,
    cmd.FullyRiseLocation: _Describer.fully_rise,
    cmd.ScoreLocation: _Describer.score,
    cmd.TakeBackCard: _Describer.take_back,
    cmd.ScoutDecision: _Describer.scout,
    cmd.ScoutDiscard: _Describer.scout_discard,
    cmd.DiscardCard: _Describer.discard,
    cmd.PlaceIchthyander: _Describer.place_ichthyander,
}


def describe(state: State, command: Any, seat: int | None = None) -> Description:
    return _Describer(state, seat).describe(command)


def describe_all(state: State, commands: Sequence[Any], seat: int | None = None) -> list[Description]:
    describer = _Describer(state, seat)
    return [describer.describe(c) for c in commands]
