"""Per-game-type ratings (openskill Plackett-Luce) and leaderboards, applied exactly once per game.

Optimistic and atomic: read the players' ratings (each carries a revision), compute the new ones, then one
Lua script applies them only if the game's ``rated`` marker is absent and no player's revision moved, and
sets the marker in the same step.  A second delivery, or a second replica, finds the marker (nothing
changes) or a moved revision (it re-reads and tries again).  All keys of a game type share one hash slot
(``{r:<type>}``), so this works on Redis Cluster too.

The marker records each player's rank and new rating (``benthic.game.rated``): the projection reports the public
``rating.changed`` events from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

from openskill.models import PlackettLuce

from benthic.game.keys import RatingKeys
from benthic.game.rated import PlayerRated, encode_marker
from benthic.store.scripts import load_lua

_MODEL = PlackettLuce()

SOURCE = load_lua(__package__, "apply_ratings")
MAX_ATTEMPTS = 50


class RatingUpdate(NamedTuple):
    revision: str  # the player's revision the new rating was computed from
    player_id: str
    mu: float
    sigma: float
    won: bool
    name: str
    ordinal: float
    previous: float | None = None  # the ordinal before (None: the player's first rated game of the type)


def apply_call(
    keys: RatingKeys, game_id: str, players: Sequence[tuple[str, str]], ranks: Sequence[int],
    updates: Sequence[RatingUpdate],
) -> tuple[list[str], list[Any]]:
    """Keys and arguments of ``apply_ratings.lua``; the marker records each player's rank and new rating."""
    marker = [PlayerRated(player_id=u.player_id, rank=rank, rating=u.ordinal, mu=u.mu, sigma=u.sigma,
                          previous_rating=u.previous) for u, rank in zip(updates, ranks, strict=True)]
    args: list[Any] = [encode_marker(marker)]
    for u in updates:
        args += [u.revision, u.player_id, u.mu, u.sigma, 1 if u.won else 0, u.name, u.ordinal]
    return [keys.rated(game_id), keys.leaderboard, *(keys.player(pid) for pid, _ in players)], args


async def apply_ratings(
    redis: Any, game_type: str, game_id: str, players: Sequence[tuple[str, str]], ranks: Sequence[int]
) -> bool:
    """Rate one finished game: ``players`` are (player id, name) per seat, ``ranks`` 1 = best.
    Returns False when the game was rated before (nothing changes)."""
    keys = RatingKeys(game_type)
    marker = keys.rated(game_id)
    player_keys = [keys.player(pid) for pid, _ in players]
    script = redis.register_script(SOURCE)
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
        updates = [
            RatingUpdate(record.get(b"rev", b"0").decode(), pid, new.mu, new.sigma, rank == 1, name or pid,
                         new.ordinal(), old.ordinal() if record else None)
            for (pid, name), record, [old], [new], rank in zip(players, current, ratings, rated, ranks, strict=True)
        ]
        script_keys, args = apply_call(keys, game_id, players, ranks, updates)
        outcome = await script(keys=script_keys, args=args)
        outcome = outcome.decode() if isinstance(outcome, bytes) else outcome
        if outcome == "applied":
            return True
        if outcome == "rated":
            return False
    raise RuntimeError(f"ratings of {game_type} kept moving while rating {game_id}")
