"""What the command service keeps of each game so that a command skips a meta read: its game type (it never
changes) and whether every seat is taken (the status never goes back to open).  A read-through cache in front
of ``PlayPath.meta``; each part is emptied beyond ``LIMIT`` games (it costs one meta read per game later)."""

from __future__ import annotations

from benthic.play import PlayPath
from benthic.store import GameMeta

LIMIT = 100_000


class GameFacts:
    def __init__(self, play: PlayPath) -> None:
        self.play = play
        self._types: dict[str, str] = {}  # game id -> game type
        self._running: set[str] = set()  # games seen fully seated

    async def meta(self, game_id: str) -> GameMeta:
        """``PlayPath.meta`` (its refusals included), its game type remembered."""
        meta = await self.play.meta(game_id)
        self._types[game_id] = meta.game_type
        if len(self._types) > LIMIT:
            self._types.clear()
        return meta

    async def game_type(self, game_id: str) -> str:
        game_type = self._types.get(game_id)
        return game_type if game_type is not None else (await self.meta(game_id)).game_type

    async def is_running(self, game_id: str) -> bool:
        """Every seat is taken (only a game last seen "open" is read again)."""
        if game_id in self._running:
            return True
        if (await self.meta(game_id)).status == "open":
            return False
        self.mark_running(game_id)
        return True

    def mark_running(self, game_id: str) -> None:
        if len(self._running) > LIMIT:
            self._running.clear()
        self._running.add(game_id)

    def created(self, game_id: str, game_type: str, running: bool) -> None:
        self._types[game_id] = game_type
        if running:
            self.mark_running(game_id)
