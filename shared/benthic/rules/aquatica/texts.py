"""The effect vocabulary of spec §3.2 as Messages (English templates, translated by ``benthic.i18n``): the texts
of Characters, Kings, Locations (Depths) and Mantas are written from the same effect data the engine
resolves.  Fragments are lower case."""

from __future__ import annotations

from collections.abc import Sequence

from benthic.rules.presentation import N_, Message, counted, joined, msg

from .effects import (
    Buy,
    BuyOrConquer,
    Choice,
    Conquer,
    Effect,
    Empty,
    FullyRise,
    Gain,
    OpponentsDiscard,
    OpponentsRaise,
    Raise,
    ReadyAllMantas,
    Recruit,
    Score,
    Scout,
    TakeBack,
    TakeBackAll,
)

TYPE_NAMES = {"shark_bay": "Shark Bay", "sunken_ships": "Sunken Ships", "ocean_volcanoes": "Ocean Volcanoes",
              "decayed_civilizations": "Decayed Civilizations"}


def resource(n: int, what: str) -> Message:
    return counted(n, "{n} coin", "{n} coins") if what == "coins" else msg("{n} power", n=n)


def gained(effect: Gain) -> Message:
    """What a Gain gives: "2 coins", "3 power (only for conquering a Location of type Shark Bay)"."""
    if effect.only_for_type:
        return msg("{what} (only for conquering a Location of type {type})",
                   what=resource(effect.amount, effect.resource), type=Message(TYPE_NAMES[effect.only_for_type]))
    return resource(effect.amount, effect.resource)


def effect_text(effect: Effect) -> Message:
    """One effect (lower case, no final full stop)."""
    if isinstance(effect, Gain):
        return msg("gain {what}", what=gained(effect))
    if isinstance(effect, Buy):
        return msg("buy 1 Location with coins")
    if isinstance(effect, Conquer):
        return msg("conquer 1 Location with power")
    if isinstance(effect, BuyOrConquer):
        return msg("buy or conquer 1 Location")
    if isinstance(effect, Recruit):
        return msg("recruit 1 Ocean Character for free") if effect.free else msg("recruit 1 Ocean Character")
    if isinstance(effect, Raise):
        if effect.split and effect.amount > 1:
            return msg("raise your Locations by {n} in total (split as you like)", n=effect.amount)
        return msg("raise 1 of your Locations by {n}", n=effect.amount)
    if isinstance(effect, FullyRise):
        return msg("raise 1 of your Locations until it is fully risen")
    if isinstance(effect, Score):
        return counted(effect.count, "score up to {n} fully risen Location", "score up to {n} fully risen Locations")
    if isinstance(effect, Scout):
        return msg("scout (the top row is discarded, the bottom row moves up, 6 new Locations are dealt)")
    if isinstance(effect, TakeBack):
        return counted(effect.count, "take up to {n} card from your discard pile back into your hand",
                       "take up to {n} cards from your discard pile back into your hand")
    if isinstance(effect, TakeBackAll):
        return msg("take your whole discard pile back into your hand")
    if isinstance(effect, ReadyAllMantas):
        return msg("ready all your tired Mantas")
    if isinstance(effect, Choice):
        return msg("either {options}", options=joined([effects_text(o) for o in effect.options], N_("{a}, or {b}")))
    if isinstance(effect, OpponentsDiscard):
        return counted(effect.count, "each opponent discards {n} Character from their hand",
                       "each opponent discards {n} Characters from their hand")
    if isinstance(effect, OpponentsRaise):
        return msg("each opponent raises 1 of their Locations by {n}", n=effect.amount)
    if isinstance(effect, Empty):
        return msg("empty (never exploited)")
    raise TypeError(f"unknown effect {effect!r}")


def effects_text(effects: Sequence[Effect]) -> Message:
    """Effects resolved in printed order: "gain 3 coins, then buy 1 Location with coins"."""
    out = joined([effect_text(e) for e in effects], N_("{a}, then {b}"), msg("nothing"))
    assert isinstance(out, Message)
    return out


def depth_text(effect: Effect) -> Message:
    """A Depth as the owner reads it: resource Depths pay only during a payment of the main action."""
    if isinstance(effect, Gain):
        return msg("{what} toward a payment", what=gained(effect))
    return effect_text(effect)


def manta_use(face: Effect) -> Message:
    """What flipping a Manta does: "to add 2 coins to a payment of your main action"."""
    if isinstance(face, Gain):
        return msg("to add {what} to a payment of your main action", what=resource(face.amount, face.resource))
    return msg("before or after your main action to {effect}", effect=effect_text(face))


def manta_text(face: Effect) -> Message:
    return msg("flip it (ready → tired) {use}", use=manta_use(face))
