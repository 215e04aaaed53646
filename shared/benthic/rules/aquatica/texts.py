"""English for the effect vocabulary of spec §3.2: the texts of Characters, Kings, Locations (Depths) and
Mantas are written from the same effect data the engine resolves.  Fragments are lower case."""

from __future__ import annotations

from collections.abc import Sequence

from benthic.rules.presentation import count

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


def resource(n: int, what: str) -> str:
    return f"{n} {'coin' if n == 1 else 'coins'}" if what == "coins" else f"{n} power"


def effect_text(effect: Effect) -> str:
    """One effect in English (lower case, no final full stop)."""
    if isinstance(effect, Gain):
        typed = f" (only for conquering a {TYPE_NAMES[effect.only_for_type]})" if effect.only_for_type else ""
        return f"gain {resource(effect.amount, effect.resource)}{typed}"
    if isinstance(effect, Buy):
        return "buy 1 Location with coins"
    if isinstance(effect, Conquer):
        return "conquer 1 Location with power"
    if isinstance(effect, BuyOrConquer):
        return "buy or conquer 1 Location"
    if isinstance(effect, Recruit):
        return "recruit 1 Ocean Character for free" if effect.free else "recruit 1 Ocean Character"
    if isinstance(effect, Raise):
        if effect.split and effect.amount > 1:
            return f"raise your Locations by {effect.amount} in total (split as you like)"
        return f"raise 1 of your Locations by {effect.amount}"
    if isinstance(effect, FullyRise):
        return "raise 1 of your Locations until it is fully risen"
    if isinstance(effect, Score):
        return f"score up to {count(effect.count, 'fully risen Location')}"
    if isinstance(effect, Scout):
        return "scout (the top row is discarded, the bottom row moves up, 6 new Locations are dealt)"
    if isinstance(effect, TakeBack):
        return f"take up to {count(effect.count, 'card')} from your discard pile back into your hand"
    if isinstance(effect, TakeBackAll):
        return "take your whole discard pile back into your hand"
    if isinstance(effect, ReadyAllMantas):
        return "ready all your tired Mantas"
    if isinstance(effect, Choice):
        return "either " + ", or ".join(effects_text(option) for option in effect.options)
    if isinstance(effect, OpponentsDiscard):
        return f"each opponent discards {count(effect.count, 'Character')} from their hand"
    if isinstance(effect, OpponentsRaise):
        return f"each opponent raises 1 of their Locations by {effect.amount}"
    if isinstance(effect, Empty):
        return "empty (never exploited)"
    raise TypeError(f"unknown effect {effect!r}")


def effects_text(effects: Sequence[Effect]) -> str:
    """Effects resolved in printed order: "gain 3 coins, then buy 1 Location with coins"."""
    return ", then ".join(effect_text(e) for e in effects) or "nothing"


def depth_text(effect: Effect) -> str:
    """A Depth as the owner reads it: resource Depths pay only during a payment of the main action."""
    if isinstance(effect, Gain):
        return effect_text(effect).replace("gain ", "", 1) + " toward a payment"
    return effect_text(effect)


def manta_text(face: Effect) -> str:
    if isinstance(face, Gain):
        return (f"flip it (ready → tired) to add {resource(face.amount, face.resource)} to a payment of your "
                "main action")
    return f"flip it (ready → tired) before or after your main action to {effect_text(face)}"
