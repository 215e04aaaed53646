"""``determinize`` (docs/ENGINE_CONTRACT.md): a state one seat cannot tell from the true one.

Resampled: the face-down chips the seat has not peeked at (within their depth: a chip's back shows it), the
uncashed special assignments of the other seats (from every card the seat has not seen), the spaces another
seat looked at in a Trial under way, and the seed (a finished game shows every chip).  The other seats' peek
knowledge is dropped: what they saw is resampled anyway (and a Trial's peeks are hidden from everyone else).
"""

from __future__ import annotations

import random

from msgspec.structs import replace

from benthic.rules.determinize import fresh_seed, redeal
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.derived import face_down_spaces
from benthic.rules.nautilus.state import State, SubPrompt


def determinize(state: State, seat: int, rng: random.Random) -> State:
    me = state.seats[seat]
    spaces = [] if state.ended else [space for space in face_down_spaces(state) if space not in me.known]
    chips = redeal([(str(C.find_space_depth[space]), state.finds[space]) for space in spaces], rng)
    finds = list(state.finds)
    for space, chip in zip(spaces, chips, strict=True):
        finds[space] = chip

    hidden = [i for i, s in enumerate(state.seats) if i != seat and s.card is not None and s.upgrades is None]
    dealt = {s.card for s in state.seats}
    places = [("card", state.seats[i].card or "") for i in hidden]
    cards = dict(zip(hidden, redeal(places, rng, [("card", c) for c in C.card_ids if c not in dealt]), strict=True))
    seats = tuple(
        s if i == seat else replace(s, known=(), card=cards.get(i, s.card)) for i, s in enumerate(state.seats)
    )
    return replace(
        state,
        seed=fresh_seed(rng),
        finds=tuple(finds),
        seats=seats,
        sub_prompt=_trial(state, seat, rng),
    )


def _trial(state: State, seat: int, rng: random.Random) -> SubPrompt | None:
    """Another seat's Trial under way: the spaces it looked at, drawn again as the peek rule allows (R-15)."""
    sp = state.sub_prompt
    if sp is None or not sp.peeked or state.turn is None or state.turn.seat == seat:
        return sp
    chosen: list[int] = []
    for _ in sp.peeked:
        spaces = [i for i in face_down_spaces(state) if i not in chosen]
        if chosen:
            first = C.find_space_depth[chosen[0]]
            spaces = [i for i in spaces if C.find_space_depth[i] != first] or spaces
        chosen.append(rng.choice(spaces))
    return replace(sp, peeked=tuple(chosen))
