"""Turn pushes on the play socket: the sockets of this process that asked for them (``?push=turns``), by game
and seat.  After a commit made through a socket of this process, every other seat of the game whose socket is
here and who is prompted in the new state gets its legal commands pushed, built from the state the commit just
produced: the client need not ask ``{query: legal}`` when its turn comes.

A push is a shortcut, never the only way to learn of a turn: commits made elsewhere (another replica, HTTP, the
bots service) push nothing, so a client that waits for a push falls back to asking after a while.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import NamedTuple

from benthic.i18n import DEFAULT_LANGUAGE

Send = Callable[[str], Awaitable[None]]


class Listener(NamedTuple):
    """A socket taking pushes: how to send it a frame, and the language it chose at its handshake."""

    send: Send
    language: str = DEFAULT_LANGUAGE


class TurnPushes:
    def __init__(self) -> None:
        self._games: dict[str, dict[int, Listener]] = {}

    def add(self, game_id: str, seat: int, send: Send, language: str = DEFAULT_LANGUAGE) -> None:
        self._games.setdefault(game_id, {})[seat] = Listener(send, language)  # a newer socket takes its pushes

    def remove(self, game_id: str, seat: int, send: Send) -> None:
        seats = self._games.get(game_id)
        if seats is not None and seat in seats and seats[seat].send is send:
            del seats[seat]
            if not seats:
                del self._games[game_id]

    def others(self, game_id: str, seat: int) -> list[tuple[int, Listener]]:
        """The pushing sockets of the game's other seats."""
        seats = self._games.get(game_id)
        return [(s, listener) for s, listener in seats.items() if s != seat] if seats else []
