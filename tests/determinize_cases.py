"""States to check determinizations and bots on: states along random playouts of every game type and seat
count, and pairs of states that differ only in what one seat may not see (per game: two hidden components
swapped)."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from msgspec.structs import replace

from benthic.rules import GameConfig, get_engine
from benthic.rules.bots import RandomBot
from tests.games import BUILT_IN

GAMES = list(BUILT_IN)
GAME_SEATS = [(g, n) for g in GAMES for n in range(get_engine(g).min_seats, get_engine(g).max_seats + 1)]


def playout_states(game: str, seats: int, seed: int, count: int) -> Iterator[Any]:
    """About ``count`` states spread along one random game (the start and the end included)."""
    engine = get_engine(game)
    state = engine.replay(engine.start(GameConfig(seats=seats, seed=seed)))
    rng = random.Random(seed)
    states = [state]
    while (prompt := engine.prompt(state)) is not None:
        seat = prompt.seats[0] if len(prompt.seats) == 1 else rng.choice(prompt.seats)
        state = engine.fold(state, engine.decide(state, seat, RandomBot().choose(engine, state, seat, rng)))
        states.append(state)
    step = max(1, len(states) // count)
    yield from states[::step]
    if (len(states) - 1) % step:
        yield states[-1]


def prompted_states(game: str, seats: int, seed: int, count: int) -> Iterator[tuple[Any, int]]:
    """(state, seat) along a random game where ``seat`` is prompted and has a choice."""
    engine = get_engine(game)
    for state in playout_states(game, seats, seed, count * 3):
        prompt = engine.prompt(state)
        if prompt is None:
            continue
        seat = prompt.seats[-1]
        if len(engine.legal_commands(state, seat)) > 1:
            yield state, seat


def _swap(items: tuple[Any, ...], i: int, j: int) -> tuple[Any, ...]:
    out = list(items)
    out[i], out[j] = out[j], out[i]
    return tuple(out)


def _replace_at(items: tuple[Any, ...], i: int, value: Any) -> tuple[Any, ...]:
    return (*items[:i], value, *items[i + 1:])


def _uc(state: Any, seat: int) -> Any | None:
    """Another player's hand card (not known to all) exchanged with an era-deck card of the same back."""
    from benthic.rules.underwater_cities.content import content

    cards = content().cards
    back = {c: (cards[c].deck, cards[c].tier) for c in cards}
    for p in state.players:
        if p.seat == seat:
            continue
        for i, card in enumerate(p.hand):
            if card in p.public_hand:
                continue
            for k, other in enumerate(state.era_deck):
                if back[other] == back[card]:
                    hand = _replace_at(p.hand, i, other)
                    players = _replace_at(state.players, p.seat, replace(p, hand=hand))
                    return replace(state, players=players, era_deck=_replace_at(state.era_deck, k, card))
    if len(state.era_deck) > 1:
        return replace(state, era_deck=_swap(state.era_deck, 0, len(state.era_deck) - 1))
    return None


def _nautilus(state: Any, seat: int) -> Any | None:
    """Two face-down chips of one depth that the seat has not peeked at exchanged; another seat's uncashed
    assignment exchanged with an undealt one."""
    from benthic.rules.nautilus.content import CONTENT

    changed = None
    me = state.seats[seat]
    spaces = [i for i, c in enumerate(state.finds) if c and not state.face_up[i] and i not in me.known]
    spaces = [] if state.ended else spaces  # a finished game shows every chip
    for a in spaces:
        same = [b for b in spaces if b > a and CONTENT.find_space_depth[b] == CONTENT.find_space_depth[a]]
        if same:
            changed = replace(state, finds=_swap(state.finds, a, same[0]))
            break
    dealt = {s.card for s in state.seats}
    undealt = [c for c in CONTENT.card_ids if c not in dealt]
    for i, s in enumerate(state.seats):
        if i != seat and s.card is not None and s.upgrades is None and undealt:
            base = changed or state
            changed = replace(base, seats=_replace_at(base.seats, i, replace(s, card=undealt[0])))
            break
    return changed


def _aquatica(state: Any, seat: int) -> Any | None:
    """Another player's hand card exchanged with one of its discard pile below the top; both decks cut."""
    changed = None
    for p in state.players:
        if p.seat == seat or state.phase == "ended":
            continue
        king = p.king_id if not p.king_revealed else None
        hand = [i for i, c in enumerate(p.hand) if c != king]
        below = [i for i, c in enumerate(p.discard[:-1]) if c != king]
        if hand and below:
            i, j = hand[0], below[0]
            new = replace(p, hand=_replace_at(p.hand, i, p.discard[j]), discard=_replace_at(p.discard, j, p.hand[i]))
            changed = replace(state, players=_replace_at(state.players, p.seat, new))
            break
    base = changed or state
    if len(base.location_deck) > 1 or len(base.ocean_deck) > 1:
        changed = replace(base, location_deck=base.location_deck[1:] + base.location_deck[:1],
                          ocean_deck=base.ocean_deck[1:] + base.ocean_deck[:1])
    return changed


SWAPS: dict[str, Callable[[Any, int], Any | None]] = {"underwater_cities": _uc, "nautilus": _nautilus,
                                                     "aquatica": _aquatica}


def hidden_twin(game: str, state: Any, seat: int) -> Any | None:
    """``state`` with two components hidden from ``seat`` exchanged and another seed (None: nothing to swap)."""
    assert game in SWAPS, f"tests/determinize_cases.py: SWAPS has no hidden swap for {game} (None if it hides nothing)"
    twin = SWAPS[game](state, seat)
    return None if twin is None else replace(twin, seed=state.seed + 1)
