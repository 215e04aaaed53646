"""The one optimistic write loop (Equinox's ``transact``): read the state, decide on it, append what was decided at
the version it was decided on; on a conflict read again and decide again.  Every writer of a stream goes through
it: a seat's command, the platform's commits and an undo (``benthic.play.path``), the scorer's ``game_scored``
(``services/scoring``) and the matchmaker's streams (``services/matchmaker/store.py``); so all of them have one
retry budget (``BENTHIC_CONFLICT_RETRIES``, ``Settings.conflict_retries``), one conflict counter
(``benthic_append_conflicts_total``) and one answer to a repeated command id (the store's: the append returns the
first commit, ``duplicate``, and the writer answers it as it answered the first time).

- ``read(fresh)``: the state to decide on; ``fresh=False`` only for the first read, which may answer a cached state.
- ``decide(state)``: what to append (sync or async), or None for nothing; it may raise a refusal.  A refusal that a
  cached state behind the stream may explain is raised as ``Stale(refusal)``: decided again on a fresh read, and
  raised as the refusal itself when the state was fresh already.
- ``append(state, decided)``: the append at ``state``'s version; raises ``conflict`` when the stream moved on.

``TooManyConflicts`` after ``1 + retries`` attempts; each writer answers it as its API says (409
``too_many_conflicts``).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar, cast

from benthic.runtime.config import Settings
from benthic.store.records import VersionConflict

RETRIES = Settings().conflict_retries  # the budget of a writer built without settings (tests, benches)

S = TypeVar("S")
D = TypeVar("D")
R = TypeVar("R")


class Stale(Exception):
    """A refusal that a state behind the stream's head may explain: decide again on a fresh state."""

    def __init__(self, refusal: BaseException) -> None:
        super().__init__(str(refusal))
        self.refusal = refusal


class TooManyConflicts(Exception):
    def __init__(self, attempts: int) -> None:
        super().__init__(f"the stream changed {attempts} times while deciding")
        self.attempts = attempts


class Transacted(Generic[S, D, R]):
    """What a transaction did: the state decided on, the decision (None: nothing) and the append's answer."""

    __slots__ = ("state", "decided", "appended")

    def __init__(self, state: S, decided: D | None, appended: R | None) -> None:
        self.state, self.decided, self.appended = state, decided, appended


async def transact(
    read: Callable[[bool], Awaitable[S]],
    decide: Callable[[S], D | None | Awaitable[D | None]],
    append: Callable[[S, D], Awaitable[R]],
    *,
    retries: int,
    conflict: type[BaseException] = VersionConflict,
    on_conflict: Callable[[], None] | None = None,
) -> Transacted[S, D, R]:
    state, fresh = await read(False), False
    for _attempt in range(retries + 1):
        try:
            made = decide(state)
            decided = cast("D | None", await made if inspect.isawaitable(made) else made)
        except Stale as stale:
            if fresh:
                raise stale.refusal from None
            state, fresh = await read(True), True
            continue
        if decided is None:
            return Transacted(state, None, None)
        try:
            return Transacted(state, decided, await append(state, decided))
        except conflict:
            if on_conflict is not None:
                on_conflict()
            state, fresh = await read(True), True
    raise TooManyConflicts(retries + 1)
