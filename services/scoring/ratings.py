"""Per-game-type ratings (openskill Plackett-Luce) and leaderboards, applied exactly once per game.

Optimistic and atomic: read the players' ratings (each carries a revision), compute the new ones, then one
Lua script applies them only if the game's ``rated`` marker is absent and no player's revision moved, and
sets the marker in the same step.  A second delivery, or a second replica, finds the marker (nothing
changes) or a moved revision (it re-reads and tries again).  All keys of a game type share one hash slot
(``{r:<type>}``), so this works on Redis Cluster too.

The public ``rating.changed`` events (``benthic.feed.integration``) are added to the integration stream by the same
script, in the step that applies the ratings: exactly once per game and player.  On a Redis Cluster the stream is
in another slot: they are added right after the script applied them (lost if the process dies in between).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, NamedTuple

from openskill.models import PlackettLuce
from redis.asyncio import RedisCluster

from benthic.feed.encoding import DATA_FIELD
from benthic.feed.integration import RatingChanged, encode_entry, rating_id
from benthic.game.keys import RatingKeys
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


class RatingsPublication(NamedTuple):
    """Where the ``rating.changed`` events go: the integration stream and its approximate cap."""

    stream: str
    maxlen: int


def rating_events(game_type: str, game_id: str, updates: Sequence[RatingUpdate], at_ms: int) -> list[RatingChanged]:
    return [
        RatingChanged(id=rating_id(game_id, u.player_id), game_id=game_id, game_type=game_type, at=at_ms,
                      player_id=u.player_id, rating=u.ordinal, mu=u.mu, sigma=u.sigma, previous_rating=u.previous)
        for u in updates
    ]


def apply_call(
    keys: RatingKeys, game_id: str, players: Sequence[tuple[str, str]], ranks: Sequence[int],
    updates: Sequence[RatingUpdate], stream: str | None = None, maxlen: int = 0, entries: Sequence[bytes] = (),
) -> tuple[list[str], list[Any]]:
    """Keys and arguments of ``apply_ratings.lua``; the marker records each player's rank.  ``entries`` (the
    integration stream's, one per player) are added to ``stream`` with the ratings (none without a stream)."""
    args: list[Any] = [",".join(f"{pid}:{rank}" for (pid, _), rank in zip(players, ranks, strict=True)),
                       len(players), maxlen]
    for u in updates:
        args += [u.revision, u.player_id, u.mu, u.sigma, 1 if u.won else 0, u.name, u.ordinal]
    script_keys = [keys.rated(game_id), keys.leaderboard, *(keys.player(pid) for pid, _ in players)]
    if stream is not None:
        script_keys.append(stream)
        args.extend(entries)
    return script_keys, args


async def apply_ratings(
    redis: Any, game_type: str, game_id: str, players: Sequence[tuple[str, str]], ranks: Sequence[int],
    publication: RatingsPublication | None = None,
) -> bool:
    """Rate one finished game: ``players`` are (player id, name) per seat, ``ranks`` 1 = best; with a
    ``publication``, each player's ``rating.changed`` goes to the integration stream with the new ratings.
    Returns False when the game was rated before (nothing changes)."""
    cluster = isinstance(redis, RedisCluster)
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
        entries = [encode_entry(e) for e in rating_events(game_type, game_id, updates, int(time.time() * 1000))]
        in_script = publication is not None and not cluster
        script_keys, args = apply_call(keys, game_id, players, ranks, updates,
                                       publication.stream if publication is not None and in_script else None,
                                       publication.maxlen if publication is not None else 0, entries)
        outcome = await script(keys=script_keys, args=args)
        outcome = outcome.decode() if isinstance(outcome, bytes) else outcome
        if outcome == "applied":
            if publication is not None and not in_script:
                async with redis.pipeline(transaction=False) as pipe:
                    for entry in entries:
                        pipe.xadd(publication.stream, {DATA_FIELD: entry}, maxlen=publication.maxlen,
                                  approximate=True)
                    await pipe.execute()
            return True
        if outcome == "rated":
            return False
    raise RuntimeError(f"ratings of {game_type} kept moving while rating {game_id}")
