"""``determinize`` (docs/ENGINE_CONTRACT.md): a state one seat cannot tell from the true one.

Resampled, each card within its back (era I/II/III, Special tier; metropolis colour; contract): the other
players' hand cards not known to all, the era deck, the buried past-era cards, the Special deck cards the
seat has not seen, another player's pending draw of three, the box; and the seed.  What other seats know of
the Special deck follows the positions they saw.  The other seats' hidden answers to a simultaneous prompt
are replaced: kept cards by as many cards of their new hand, production options and final purchases by none.
"""

from __future__ import annotations

import random
from typing import Any

from msgspec.structs import replace

from benthic.rules.determinize import fresh_seed, redeal

from .content import content
from .state import GameState, Player
from .views import draw3_pending, special_top_visible


def _card_back(card_id: str) -> str:
    card = content().cards[card_id]
    return f"{card.deck}:{card.tier}"


def determinize(state: GameState, seat: int, rng: random.Random) -> GameState:
    metros = content().metropolises
    places: list[tuple[str, str]] = []  # (back, card) of every hidden place, in the order below
    for p in state.players:
        if p.seat != seat:
            public = set(p.public_hand)
            places.extend((_card_back(c), c) for c in p.hand if c not in public)
    places.extend((_card_back(c), c) for c in (*state.era_deck, *state.buried))
    seen = set(state.special_public) | {c for c, s in state.special_private if s == seat}
    top = special_top_visible(state)
    deck_hidden = [i for i, c in enumerate(state.special_deck) if not (i == 0 and top) and c not in seen]
    places.extend((_card_back(state.special_deck[i]), state.special_deck[i]) for i in deck_hidden)
    drawn = draw3_pending(state) if state.turn is not None and state.turn.seat != seat else ()
    places.extend((_card_back(c), c) for c in drawn)
    places.extend((_card_back(c), c) for c in state.box_specials)
    places.extend(("contract", c) for c in state.box_contracts)
    places.extend((f"metro:{metros[t].colour}", t) for t in state.box_metros)

    new = iter(redeal(places, rng))
    moved: dict[str, str] = {}  # old card -> the card now in its place

    def deal(cards: tuple[str, ...], public: frozenset[str] = frozenset()) -> tuple[str, ...]:
        out = []
        for c in cards:
            if c not in public:
                moved[c] = next(new)
            out.append(moved.get(c, c) if c not in public else c)
        return tuple(out)

    players = tuple(p if p.seat == seat else replace(p, hand=deal(p.hand, frozenset(p.public_hand)))
                    for p in state.players)
    era_deck, buried = deal(state.era_deck), deal(state.buried)
    special_deck = list(state.special_deck)
    for i in deck_hidden:
        special_deck[i] = moved[special_deck[i]] = next(new)
    drawn_new = deal(drawn)
    box = deal(state.box_specials), deal(state.box_contracts), deal(state.box_metros)

    frames = state.frames
    if drawn:
        active = frames[-1].active
        assert active is not None
        frames = (*frames[:-1], replace(frames[-1], active=replace(active, drawn=drawn_new)))
    special_private = tuple((moved.get(c, c), s) if s != seat else (c, s) for c, s in state.special_private)
    return replace(
        state,
        seed=fresh_seed(rng),
        players=players,
        era_deck=era_deck,
        buried=buried,
        special_deck=tuple(special_deck),
        special_private=special_private,
        frames=frames,
        box_specials=box[0],
        box_contracts=box[1],
        box_metros=box[2],
        **_answers(state, players, seat, rng),
    )


def _answers(state: GameState, players: tuple[Player, ...], seat: int, rng: random.Random) -> dict[str, Any]:
    """The other seats' hidden answers to the simultaneous prompt under way, replaced (see the module)."""
    others = [s for s in state.answered if s != seat]
    if state.phase == "keep" and others:
        keep = list(state.keep_choices)
        for s in others:
            hand = players[s].hand
            if keep[s]:
                picked = sorted(rng.sample(range(len(hand)), len(keep[s])))
                keep[s] = tuple(hand[i] for i in picked)
        return {"keep_choices": tuple(keep)}
    if state.phase == "production_options" and others:
        return {"production_choices": tuple(c if s == seat else () for s, c in enumerate(state.production_choices))}
    if state.phase == "final_purchases" and others:
        return {"purchases": tuple(c if s == seat else () for s, c in enumerate(state.purchases))}
    return {}
