"""``determinize`` (docs/ENGINE_CONTRACT.md): a state one seat cannot tell from the true one.

Resampled: each other player's hidden cards (its hand and its discard pile below the top) among themselves,
so the cards a player owns stay its own (they entered its deck in public: its starting cards and recruits);
the other players' undisclosed Kings, the draft offer another seat holds and the boxed Kings, among Kings of
the same kind (a setup-exchange King never enters the hand, so hand counts tell it); the order of both decks;
the boxed goal tokens; the seed.  Scoring Piles stay: each Location in them was scored from its owner's board,
in view, so the seat's event history names it.
"""

from __future__ import annotations

import random

from msgspec.structs import replace

from benthic.rules.aquatica.queries import CAT
from benthic.rules.aquatica.state import Player, State
from benthic.rules.determinize import fresh_seed, redeal


def _king_kind(king_id: str) -> str:
    return "king:setup" if CAT.card[king_id].setup is not None else "king"


def _hidden_king(p: Player) -> str | None:
    return p.king_id if p.king_id is not None and not p.king_revealed else None


def determinize(state: State, seat: int, rng: random.Random) -> State:
    ended = state.phase == "ended"
    others = [p for p in state.players if p.seat != seat and not ended]
    places: list[tuple[str, str]] = []
    for p in others:
        king = _hidden_king(p)
        for c in (*p.hand, *p.discard[:-1]):
            places.append((_king_kind(c) if c == king else f"own:{p.seat}", c))
        if king is not None and king not in p.hand and king not in p.discard:
            places.append((_king_kind(king), king))  # a setup-exchange King before its exchange
    offer = state.king_offer if state.king_offer_seat != seat else ()
    places.extend((_king_kind(k), k) for k in (*offer, *state.kings_boxed))
    places.extend(("location", x) for x in state.location_deck)
    places.extend(("ocean", c) for c in state.ocean_deck)
    places.extend(("token", t) for t in state.tokens_boxed)

    new = iter(redeal(places, rng))

    def deal(items: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(next(new) for _ in items)

    players = list(state.players)
    for p in others:
        king = _hidden_king(p)
        hand, below = deal(p.hand), deal(p.discard[:-1])
        changes: dict[str, object] = {"hand": hand, "discard": below + p.discard[-1:]}
        if king is not None:
            if king in p.hand or king in p.discard[:-1]:
                spot = (*p.hand, *p.discard[:-1]).index(king)
                king = (*hand, *below)[spot]
            elif king not in p.discard:
                king = next(new)
            changes.update(king_id=king, king_number=CAT.card[king].number or 0)
        players[p.seat] = replace(p, **changes)
    offer_new = deal(offer)
    return replace(
        state,
        seed=fresh_seed(rng),
        players=tuple(players),
        king_offer=offer_new if offer else state.king_offer,
        kings_boxed=deal(state.kings_boxed),
        location_deck=deal(state.location_deck),
        ocean_deck=deal(state.ocean_deck),
        tokens_boxed=deal(state.tokens_boxed),
    )
