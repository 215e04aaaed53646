"""What every engine's ``determinize`` shares: dealing hidden components back into their hidden places.

A determinization must be a function of what the seat may see and of the RNG only.  So the hidden places
are listed in an order public information fixes (a hand's positions, a deck from the top ...), each with the
class of component it holds (a card back, a chip's depth: public), and the tokens of each class are pooled,
sorted, shuffled and dealt back in that order: where a token truly lay never matters.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

SEED_BITS = 62


def redeal(places: Sequence[tuple[str, str]], rng: random.Random, spare: Iterable[tuple[str, str]] = ()) -> list[str]:
    """The new token of each hidden place.  ``places``: ``(class, token)`` per hidden place, in public order;
    ``spare``: ``(class, token)`` of hidden components that lie in no place of the state (undealt cards).
    Every class's pool (its places' tokens and its spares) is sorted, shuffled and dealt to its places in order.
    Raises ValueError when a class has fewer tokens than places (never for a well-formed state)."""
    pools: dict[str, list[str]] = {}
    for cls, token in (*places, *spare):
        pools.setdefault(cls, []).append(token)
    decks: dict[str, list[str]] = {}
    for cls in sorted(pools):
        pool = sorted(pools[cls])
        rng.shuffle(pool)
        decks[cls] = pool[::-1]  # pop() from the end deals the shuffled pool from its start
    out = []
    for cls, _ in places:
        if not decks[cls]:
            raise ValueError(f"more hidden places than components of class {cls!r}")
        out.append(decks[cls].pop())
    return out


def fresh_seed(rng: random.Random) -> int:
    """A new game seed: the true one would tell every future draw (``decide`` derives its RNG from it)."""
    return rng.getrandbits(SEED_BITS)
