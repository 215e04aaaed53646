"""Which versions of a game a viewer can have seen: the ends of its commits.

A commit (a game's setup, one command's events, an undo, a platform commit) is appended in one atomic step, so
the game is only ever at the last version of a commit: every live view, every delta's base, every read model is
of such a version.  A version inside a commit (between two of its events) is a state nobody saw, and one that an
engine's ``view`` is not asked to render (docs/ENGINE_CONTRACT.md, "What view may assume": half-applied, it may
show a card the commit is about to hide).  A read of a past version (``?at=V``) answers the view at the end of
the commit that holds V.

The entries of one commit share its command id and time (``benthic.store.entries``: one commit head), as folds
read them (``benthic.game.gamestate.fold_envelopes``); every commit has its own command id.
"""

from __future__ import annotations

from collections.abc import Sequence

from benthic.game.events import Envelope


def same_commit(a: Envelope, b: Envelope) -> bool:
    return (a.command_id, a.ts_ms) == (b.command_id, b.ts_ms)


def commit_span(envelopes: Sequence[Envelope], version: int) -> tuple[int, int]:
    """(first, last): the versions of the commit that holds ``version``, from a game's consecutive entries that
    hold that whole commit (a game's every entry, as the archive keeps them).  ValueError when ``version`` is not
    among them."""
    if not envelopes or not envelopes[0].version <= version <= envelopes[-1].version:
        raise ValueError(f"version {version} is not among the entries given")
    index = version - envelopes[0].version
    entry = envelopes[index]
    first = index
    while first > 0 and same_commit(envelopes[first - 1], entry):
        first -= 1
    last = index
    while last + 1 < len(envelopes) and same_commit(envelopes[last + 1], entry):
        last += 1
    return envelopes[first].version, envelopes[last].version
