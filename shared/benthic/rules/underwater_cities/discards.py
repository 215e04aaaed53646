"""Where cards go when they leave a hand, the play or the tableau (§6.2, §6.3, §5.3 P1)."""

from __future__ import annotations

from .content import content
from .state import GameState


def discard_destination(state: GameState, card_id: str) -> str:
    """§6.2 / §6.3 / §5.3 P1: one-/two-credit Special → bottom of the special deck; three-credit → box;
    Personal Assistant → removed; era card of the current era → discard pile; of a past era → removed."""
    card = content().cards[card_id]
    if card.deck == "special":
        return "special_bottom" if card.tier == "one_two" else "box"
    if card.era == state.era:
        return "era_discard"
    return "removed"


def discard_groups(state: GameState, card_ids: tuple[str, ...]) -> list[tuple[str, tuple[str, ...]]]:
    groups: dict[str, list[str]] = {}
    for card_id in card_ids:
        groups.setdefault(discard_destination(state, card_id), []).append(card_id)
    return [(dest, tuple(ids)) for dest, ids in groups.items()]
