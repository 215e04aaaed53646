"""The effect vocabulary of spec §3.2: what Characters, Kings, Depths and Mantas do.

Each effect is a frozen msgspec Struct tagged by ``type``, so the content files, the state's effect queue and
the events (``depth_exploited``, ``effect_skipped``...) all carry the same JSON objects.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

Resource = Literal["coins", "power"]
LocationType = Literal["shark_bay", "sunken_ships", "ocean_volcanoes", "decayed_civilizations"]
Positive = Annotated[int, msgspec.Meta(ge=1)]


class _Effect(msgspec.Struct, frozen=True, forbid_unknown_fields=True, omit_defaults=True, tag_field="type"):
    pass


class Gain(_Effect, frozen=True, tag="gain"):
    resource: Resource
    amount: Positive
    only_for_type: LocationType | None = None


class Buy(_Effect, frozen=True, tag="buy"):
    pass


class Conquer(_Effect, frozen=True, tag="conquer"):
    pass


class BuyOrConquer(_Effect, frozen=True, tag="buy_or_conquer"):
    pass


class Recruit(_Effect, frozen=True, tag="recruit"):
    free: bool = False


class Raise(_Effect, frozen=True, tag="raise"):
    amount: Positive
    split: bool = False


class FullyRise(_Effect, frozen=True, tag="fully_rise"):
    pass


class Score(_Effect, frozen=True, tag="score"):
    count: Positive = 1


class Scout(_Effect, frozen=True, tag="scout"):
    pass


class TakeBack(_Effect, frozen=True, tag="take_back"):
    count: Positive = 1


class TakeBackAll(_Effect, frozen=True, tag="take_back_all"):
    pass


class ReplayFromDiscard(_Effect, frozen=True, tag="replay_from_discard"):
    """Spec §11 Q2, under the flag `healer_replays`: choose a card of your discard pile, resolve its effects as
    part of the same Main action, then it returns to the discard pile."""


class ReadyAllMantas(_Effect, frozen=True, tag="ready_all_mantas"):
    pass


class Choice(_Effect, frozen=True, tag="choice"):
    options: tuple[tuple[Effect, ...], ...]


class OpponentsDiscard(_Effect, frozen=True, tag="opponents_discard"):
    count: Positive = 1


class OpponentsRaise(_Effect, frozen=True, tag="opponents_raise"):
    amount: Positive = 1


class Empty(_Effect, frozen=True, tag="empty"):
    pass


Effect = (
    Gain | Buy | Conquer | BuyOrConquer | Recruit | Raise | FullyRise | Score | Scout | TakeBack | TakeBackAll
    | ReadyAllMantas | Choice | OpponentsDiscard | OpponentsRaise | Empty | ReplayFromDiscard
)

ACQUISITION_MODES: dict[type, tuple[str, ...]] = {
    Buy: ("buy",),
    Conquer: ("conquer",),
    BuyOrConquer: ("buy", "conquer"),
}

# §3.2 locations.json: the only effect types a Depth may carry.
DEPTH_EFFECT_TYPES = (Gain, Raise, Score, Scout, TakeBack, Recruit, ReadyAllMantas, Empty)


def effect_name(effect: Effect) -> str:
    return str(type(effect).__struct_config__.tag)


def contains_conquer(effects: tuple[Effect, ...]) -> bool:
    """§3.2 `conquer_cards_at_least`: the effect tree, `choice` options included, has a Conquer."""
    for effect in effects:
        if isinstance(effect, (Conquer, BuyOrConquer)):
            return True
        if isinstance(effect, Choice) and any(contains_conquer(option) for option in effect.options):
            return True
    return False
