"""Turn pushes on the play socket: the sockets of this process that asked for them (``?push=turns``), by game
and seat.  After a commit made through a socket of this process, every other seat of the game whose socket is
here and who is prompted in the new state gets its legal commands pushed, built from the state the commit just
produced: the client need not ask ``{query: legal}`` when its turn comes.

A push is a shortcut, never the only way to learn of a turn: commits made elsewhere (another replica, HTTP, the
bots service) push nothing, so a client that waits for a push falls back to asking after a while.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

Send = Callable[[str], Awaitable[None]]


class TurnPushes:
    def __init__(self) -> None:
        self._games: dict[str, dict[int, Send]] = {}

    def add(self, game_id: str, seat: int, send: Send) -> None:
        self._games.setdefault(game_id, {})[seat] = send  # a newer socket of the seat takes its pushes

    def remove(self, game_id: str, seat: int, send: Send) -> None:
        seats = self._games.get(game_id)
        if seats is not None and seats.get(seat) is send:
            del seats[seat]
            if not seats:
                del self._games[game_id]

    def others(self, game_id: str, seat: int) -> list[tuple[int, Send]]:
        """The pushing sockets of the game's other seats."""
        seats = self._games.get(game_id)
        return [(s, send) for s, send in seats.items() if s != seat] if seats else []
