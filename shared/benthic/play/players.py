"""Each player's unfinished games: the cap on open games per player, and the list a player reconnects from.

One sorted set per player (``{pl:<player>}:games``, game id -> creation time).  Taking a seat reserves an
entry with one script that refuses beyond the cap, so the cap holds across replicas.  Entries of finished (or
deleted) games are removed when the game ends and, should that be missed, whenever the set is read.
"""

from __future__ import annotations

import asyncio
from typing import Any

from benthic.errors import ApiError
from benthic.game.keys import PlayerKeys
from benthic.store import EventStore, GameMeta

# KEYS: 1 the player's games.  ARGV: 1 game id, 2 score, 3 cap (0: none).
# Returns 2 when the game was listed already, 1 when added, 0 when the cap refuses it.
_RESERVE = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then return 2 end
local cap = tonumber(ARGV[3])
if cap > 0 and redis.call('ZCARD', KEYS[1]) >= cap then return 0 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""


class Reservation:
    """An entry taken for a seat: released again if the seat is not taken after all."""

    def __init__(self, games: PlayerGames, player_id: str, game_id: str, added: bool) -> None:
        self.games = games
        self.player_id = player_id
        self.game_id = game_id
        self.added = added

    async def release(self) -> None:
        if self.added:
            await self.games.remove(self.player_id, self.game_id)


class PlayerGames:
    def __init__(self, redis: Any, store: EventStore, cap: int) -> None:
        self.redis = redis
        self.store = store
        self.cap = cap
        self._reserve = redis.register_script(_RESERVE)

    async def reserve(self, player_id: str, game_id: str, now_ms: int, capped: bool = True) -> Reservation:
        """List ``game_id`` among the player's games; raises 409 ``too_many_open_games`` beyond the cap."""
        key = PlayerKeys(player_id).games
        cap = self.cap if capped else 0
        outcome = int(await self._reserve(keys=[key], args=[game_id, now_ms, cap]))
        if outcome == 0 and await self.prune(player_id):
            outcome = int(await self._reserve(keys=[key], args=[game_id, now_ms, cap]))
        if outcome == 0:
            raise ApiError(
                409,
                "too_many_open_games",
                f"a player may hold seats in at most {self.cap} unfinished games; finish one first",
                {"limit": self.cap},
            )
        return Reservation(self, player_id, game_id, added=outcome == 1)

    async def remove(self, player_id: str, game_id: str) -> None:
        await self.redis.zrem(PlayerKeys(player_id).games, game_id)

    async def finished(self, meta: GameMeta) -> None:
        for seat in meta.seats:
            if seat is not None:
                await self.remove(seat.player_id, meta.game_id)

    async def unfinished(self, player_id: str) -> list[GameMeta]:
        """The player's unfinished games, oldest first (finished or vanished ones are dropped from the list)."""
        game_ids = [g.decode() for g in await self.redis.zrange(PlayerKeys(player_id).games, 0, -1)]
        metas = await asyncio.gather(*(self.store.meta(game_id) for game_id in game_ids))
        stale = [g for g, m in zip(game_ids, metas, strict=True) if m is None or m.status == "finished"]
        if stale:
            await self.redis.zrem(PlayerKeys(player_id).games, *stale)
        return [m for m in metas if m is not None and m.status != "finished"]

    async def prune(self, player_id: str) -> bool:
        """Drop finished games from the list; True if any went."""
        before: int = await self.redis.zcard(PlayerKeys(player_id).games)
        return len(await self.unfinished(player_id)) < before
