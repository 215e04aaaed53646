"""``describe``: a legal command of Aquatica as a person reads it ("Buy Coin Wreck for 2 coins into board
slot 3"), with the catalogue ids it concerns (Locations, Characters, Mantas, goals, board spaces).

Only what the acting seat may see is used: its own hand, discard pile, board and Mantas, and the public
rows and tracks.  Two commands get the same label only when they differ in which of two interchangeable
components they use (two copies of an Ocean Character, two Wild Mantas of one kind): the same move.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from benthic.rules.presentation import MAX_LABEL, Description, Message, counted, join_messages, msg

from . import commands as cmd
from .catalogue import component_names
from .content import catalog
from .effects import Choice, Gain
from .prompts import prompt_kind
from .queries import acquisition_cost, head, row_of
from .state import ICHTHYANDERS, State
from .texts import effect_text, effects_text, gained

CAT = catalog()


def _fit(short: Message, long: Message) -> Message:
    """``long`` (a label with an effect's text) when it fits on the line in English, else ``short``."""
    return long if len(long.english()) <= MAX_LABEL else short


def _resource(n: int, what: str) -> Message:
    return counted(n, "{n} coin", "{n} coins") if what == "coins" else msg("{n} power", n=n)


def _clip(label: str) -> str:
    if len(label) <= MAX_LABEL:
        return label
    return label[:MAX_LABEL - 1].rsplit(" ", 1)[0].rstrip(",;:") + "…"


def _clipped(message: Message, highlights: list[str]) -> Description:
    """A Description whose English label is clipped to one line (translations are clipped when rendered)."""
    return Description(_clip(message.english()), highlights, message)


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

    def card(self, card_id: str) -> Message:
        return self.names[card_id]

    def location_at(self, slot: int) -> tuple[str, Message]:
        bl = self.me.board[slot]
        assert bl is not None
        return bl.location_id, self.names[bl.location_id]

    # --- the turn ------------------------------------------------------------------------------------------
    def play(self, c: cmd.PlayCharacter) -> Description:
        effects = CAT.card[c.card_id].effects
        return Description.of(_fit(msg("Play {card}", card=self.card(c.card_id)),
                                   msg("Play {card}: {effects}", card=self.card(c.card_id),
                                       effects=effects_text(effects))), [c.card_id])

    def flip(self, c: cmd.FlipManta) -> Description:
        manta = next(m for m in self.me.mantas if m.id == c.manta_id)
        face = CAT.face(manta.kind)
        name = self.names[c.manta_id]
        if self.prompt == "pay" and isinstance(face, Gain):
            return Description.of(msg("Flip your {manta} to add {what} to the payment", manta=name,
                                      what=_resource(face.amount, face.resource)), [c.manta_id])
        return _clipped(msg("Flip your {manta}", manta=name), [c.manta_id])

    def exploit(self, c: cmd.ExploitDepth) -> Description:
        bl = self.me.board[c.slot]
        assert bl is not None
        loc = CAT.locations[bl.location_id]
        depth = loc.depths[bl.covered]
        if self.prompt == "pay" and isinstance(depth, Gain):
            label = msg("Exploit Depth {depth} of {location}: add {what} to the payment", depth=bl.covered + 1,
                        location=self.names[loc.id], what=gained(depth))
        else:
            label = msg("Exploit Depth {depth} of {location}: {what}", depth=bl.covered + 1,
                        location=self.names[loc.id], what=effect_text(depth))
        return _clipped(label, [loc.id, f"slot:{c.slot}"])

    def claim(self, c: cmd.ClaimGoal) -> Description:
        goal_id = self.state.goals[c.goal_index]
        spot = len(self.state.tracks[c.goal_index])
        points = CAT.board.goal_track_points[spot] if spot < len(CAT.board.goal_track_points) else 0
        return _clipped(msg("Claim the goal \"{goal}\" with your {manta} (spot {spot}, {points} PP)",
                            goal=self.names[goal_id], manta=self.names[c.manta_id], spot=spot + 1, points=points),
                        [goal_id, c.manta_id])

    def choose_king(self, c: cmd.ChooseKing) -> Description:
        king = CAT.card[c.king_id]
        text: Message | str = (effects_text(king.effects) if king.effects
                               else msg("exchanged for a Wild Manta at setup"))
        short = msg("Choose {king} (King {number})", king=self.names[c.king_id], number=king.number)
        return Description.of(_fit(short, msg("Choose {king} (King {number}): {text}", king=self.names[c.king_id],
                                              number=king.number, text=text)), [c.king_id])

    # --- effects -------------------------------------------------------------------------------------------
    def source(self) -> list[str]:
        if not self.state.queue:
            return []
        src = head(self.state).source
        return [src.id] if src.id in self.names else []

    def choose_option(self, c: cmd.ChooseOption) -> Description:
        effect = head(self.state).effect
        assert isinstance(effect, Choice)
        return _clipped(msg("Choose: {effects}", effects=effects_text(effect.options[c.index])), self.source())

    def acquire(self, c: cmd.Acquire) -> Description:
        loc = CAT.locations[c.location_id]
        row = row_of(self.state, c.location_id) or "bottom"
        cost = acquisition_cost(loc, c.mode, row)
        rows = {"top": msg("top row"), "bottom": msg("bottom row")}
        params = {"location": self.names[loc.id], "row": rows.get(row, row), "slot": c.slot + 1}
        label = (Message("Buy {location} ({row}) for {price} into board slot {slot}",
                         {**params, "price": _resource(cost, "coins")}) if c.mode == "buy" else
                 Message("Conquer {location} ({row}) for {price} into board slot {slot}",
                         {**params, "price": _resource(cost, "power")}))
        return Description.of(label, [c.location_id, f"slot:{c.slot}"])

    def recruit(self, c: cmd.RecruitCharacter) -> Description:
        card_id = self.state.character_row[c.row_slot]
        assert card_id is not None
        effect = head(self.state).effect
        free = getattr(effect, "free", False)
        cost = msg("for free") if free else msg("for {price}", price=_resource(CAT.row_cost(c.row_slot), "coins"))
        return Description.of(msg("Recruit {card} from row slot {slot} {cost}", card=self.names[card_id],
                                  slot=c.row_slot + 1, cost=cost), [card_id, f"row:{c.row_slot}"])

    def raise_(self, c: cmd.RaiseLocations) -> Description:
        parts = []
        highlights = []
        for slot, steps in c.allocation:
            loc_id, name = self.location_at(slot)
            parts.append(msg("{location} by {steps}", location=name, steps=steps))
            highlights.append(loc_id)
        return _clipped(msg("Raise {locations}", locations=join_messages(parts)), highlights)

    def fully_rise(self, c: cmd.FullyRiseLocation) -> Description:
        loc_id, name = self.location_at(c.slot)
        return Description.of(msg("Raise {location} until it is fully risen", location=name), [loc_id])

    def score(self, c: cmd.ScoreLocation) -> Description:
        loc_id, name = self.location_at(c.slot)
        return Description.of(msg("Score {location} ({points} PP)", location=name,
                                  points=CAT.locations[loc_id].prosperity), [loc_id])

    def take_back(self, c: cmd.TakeBackCard) -> Description:
        return Description.of(msg("Take {card} back into your hand", card=self.card(c.card_id)), [c.card_id])

    def scout(self, c: cmd.ScoutDecision) -> Description:
        if c.do:
            return Description.of(msg("Scout: discard the top row, move the bottom row up and deal new Locations"))
        return Description.of(msg("Do not scout"))

    def scout_discard(self, c: cmd.ScoutDiscard) -> Description:
        return Description.of(msg("Discard {location} from the bottom row", location=self.names[c.location_id]),
                              [c.location_id])

    def replay(self, c: cmd.ReplayCard) -> Description:
        return Description.of(msg("Replay {card} from your discard pile (the Healer)", card=self.card(c.card_id)),
                              [c.card_id])

    def discard(self, c: cmd.DiscardCard) -> Description:
        return Description.of(msg("Discard {card} from your hand", card=self.card(c.card_id)), [c.card_id])

    def place_ichthyander(self, c: cmd.PlaceIchthyander) -> Description:
        goal_id = self.state.goals[c.goal_index]
        taken = sum(1 for spot in self.state.tracks[c.goal_index] if spot.seat == ICHTHYANDERS)
        assert taken == 0
        return _clipped(msg("Place an Ichthyander on the goal \"{goal}\"", goal=self.names[goal_id]), [goal_id])

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
    cmd.EndTurn: lambda d, c: Description.of(msg("End your turn")),
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
