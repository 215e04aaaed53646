"""Where cards go when they leave a hand, the play or the tableau (§6.2, §6.3, §5.3 P1), and when a hand may
be discarded down to its limit outside the prompts (§9.1 ``early_discard``)."""

from __future__ import annotations

from .content import content
from .state import GameState
from .usability import hand_limit


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


def early_discard_excess(state: GameState, seat: int) -> int:
    """§9.1 ``early_discard`` (rulebook: the discard "pode ser tomada até o início do seu próximo turno"): how
    many cards ``seat`` may discard now, during another seat's turn, 0 when it may not.  What is still over
    the limit when its own turn starts is asked for by P2 as without the flag."""
    turn = state.turn
    if not state.rules.early_discard or state.phase != "turn" or turn is None or seat == turn.seat:
        return 0
    if not 0 <= seat < len(state.players):
        return 0
    player = state.players[seat]
    return max(0, len(player.hand) - hand_limit(player))
