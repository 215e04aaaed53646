"""Per-game-type ratings (openskill Plackett-Luce) and leaderboards, applied exactly once per game.

Optimistic and atomic: read the players' ratings (each carries a revision), compute the new ones, then one
Lua script applies them only if the game's ``rated`` marker is absent and no player's revision moved, and
sets the marker in the same step.  A second delivery, or a second replica, finds the marker (nothing
changes) or a moved revision (it re-reads and tries again).  All keys of a game type share one hash slot
(``{r:<type>}``), so this works on Redis Cluster too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benthic.keys import RatingKeys
from openskill.models import PlackettLuce

_MODEL = PlackettLuce()

# KEYS: 1 marker, 2 leaderboard, 3.. player hashes.  ARGV: 1 marker value, then per player:
# expected revision, player id, mu, sigma, win (0/1), name, ordinal.
_APPLY = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 'rated' end
for i = 3, #KEYS do
  local at = 2 + (i - 3) * 7
  local rev = redis.call('HGET', KEYS[i], 'rev') or '0'
  if rev ~= ARGV[at] then return 'moved' end
end
for i = 3, #KEYS do
  local at = 2 + (i - 3) * 7
  redis.call('HINCRBY', KEYS[i], 'rev', 1)
  redis.call('HINCRBY', KEYS[i], 'games', 1)
  redis.call('HINCRBY', KEYS[i], 'wins', tonumber(ARGV[at + 4]))
  redis.call('HSET', KEYS[i], 'mu', ARGV[at + 2], 'sigma', ARGV[at + 3], 'name', ARGV[at + 5])
  redis.call('ZADD', KEYS[2], ARGV[at + 6], ARGV[at + 1])
end
redis.call('SET', KEYS[1], ARGV[1])
return 'applied'
"""

MAX_ATTEMPTS = 50


async def apply_ratings(
    redis: Any, game_type: str, game_id: str, players: Sequence[tuple[str, str]], ranks: Sequence[int]
) -> bool:
    """Rate one finished game: ``players`` are (player id, name) per seat, ``ranks`` 1 = best.
    Returns False when the game was rated before (nothing changes)."""
    keys = RatingKeys(game_type)
    marker = keys.rated(game_id)
    player_keys = [keys.player(pid) for pid, _ in players]
    script = redis.register_script(_APPLY)
    for _attempt in range(MAX_ATTEMPTS):
        async with redis.pipeline(transaction=False) as pipe:
            pipe.exists(marker)
            for key in player_keys:
                pipe.hgetall(key)
            exists, *current = await pipe.execute()
        if exists:
            return False
        ratings = [
            [_MODEL.create_rating([float(r[b"mu"]), float(r[b"sigma"])]) if r else _MODEL.rating()] for r in current
        ]
        rated = _MODEL.rate(ratings, ranks=list(ranks))
        args: list[Any] = [",".join(f"{pid}:{rank}" for (pid, _), rank in zip(players, ranks, strict=True))]
        for (pid, name), record, [new], rank in zip(players, current, rated, ranks, strict=True):
            args += [record.get(b"rev", b"0").decode(), pid, new.mu, new.sigma, 1 if rank == 1 else 0,
                     name or pid, new.ordinal()]
        outcome = await script(keys=[marker, keys.leaderboard, *player_keys], args=args)
        outcome = outcome.decode() if isinstance(outcome, bytes) else outcome
        if outcome == "applied":
            return True
        if outcome == "rated":
            return False
    raise RuntimeError(f"ratings of {game_type} kept moving while rating {game_id}")
