"""Per-game-type ratings (openskill Plackett-Luce) and leaderboards, applied exactly once per game.

The once-only guarantee: an optimistic transaction WATCHes the game's ``rated`` marker and the players'
rating keys (one slot per game type), checks the marker, and sets it in the same MULTI as the new
ratings.  A second delivery, or a second replica, sees the marker or has its EXEC refused and re-checks.
"""

from __future__ import annotations

from collections.abc import Sequence

from benthic.keys import RatingKeys
from openskill.models import PlackettLuce
from redis.asyncio import Redis
from redis.exceptions import WatchError

_MODEL = PlackettLuce()


async def apply_ratings(
    redis: Redis, game_type: str, game_id: str, players: Sequence[tuple[str, str]], ranks: Sequence[int]
) -> bool:
    """Rate one finished game: ``players`` are (player id, name) per seat, ``ranks`` 1 = best.
    Returns False when the game was rated before (nothing changes)."""
    keys = RatingKeys(game_type)
    marker = keys.rated(game_id)
    player_keys = [keys.player(pid) for pid, _ in players]
    async with redis.pipeline(transaction=True) as pipe:
        while True:
            try:
                await pipe.watch(marker, *player_keys)
                if await pipe.exists(marker):
                    return False
                current = [await pipe.hgetall(key) for key in player_keys]
                ratings = [
                    [_MODEL.create_rating([float(r[b"mu"]), float(r[b"sigma"])]) if r else _MODEL.rating()]
                    for r in current
                ]
                rated = _MODEL.rate(ratings, ranks=list(ranks))
                pipe.multi()
                pipe.set(marker, ",".join(f"{pid}:{rank}" for (pid, _), rank in zip(players, ranks, strict=True)))
                for (pid, name), key, record, [new], rank in zip(players, player_keys, current, rated, ranks, strict=True):
                    games = int(record.get(b"games", 0)) + 1
                    wins = int(record.get(b"wins", 0)) + (1 if rank == 1 else 0)
                    pipe.hset(key, mapping={"mu": new.mu, "sigma": new.sigma, "games": games, "wins": wins,
                                            "name": name or pid})
                    pipe.zadd(keys.leaderboard, {pid: new.ordinal()})
                await pipe.execute()
                return True
            except WatchError:
                continue
