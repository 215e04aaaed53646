"""Redis memory by key kind, estimated from a bounded sample: ``MEMORY USAGE`` of the platform's few
shared keys (partition feeds, lobby sets, due sets, leaderboards: measured exactly) plus a SCAN sample of at
most ``sample`` other keys (per game and per player), scaled up to the number of keys in the database."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from benthic.feed.keys import dead_letter_key, feed_key, lifecycle_key, managed_key
from benthic.game.keys import RatingKeys, archive_due_key, archive_since_key, lobby_key

KINDS = ("events", "meta", "commands", "snapshot", "read_model", "lobby", "feed", "ratings", "other")
_BY_TAG = {
    "g": "events", "m": "meta", "c": "commands", "s": "snapshot", "rm": "read_model", "lobby": "lobby",
    "feed": "feed", "lifecycle": "feed", "managed": "feed",
}


def key_kind(key: bytes | str) -> str:
    """The kind of a key by its name (keys.py): ``{pK}:g:<game>`` events, ``{r:<type>}:...`` ratings, anything
    unknown ``other``."""
    name = key.decode(errors="replace") if isinstance(key, bytes) else key
    if name.startswith("{r:"):
        return "ratings"
    tag, sep, rest = name.partition("}:")
    if not sep or not tag.startswith("{p"):
        return "other"
    return _BY_TAG.get(rest.split(":", 1)[0], "other")


def shared_keys(partitions: int, game_types: Iterable[str]) -> list[str]:
    """Keys not per game nor per player: few, some large; measured one by one."""
    types = list(game_types)
    keys: list[str] = []
    for p in range(partitions):
        for feed in (feed_key(p), lifecycle_key(p), managed_key(p)):
            keys += [feed, dead_letter_key(feed)]
        keys += [archive_due_key(p), archive_since_key(p)]
        keys += [lobby_key(p, t, s) for t in types for s in ("open", "running", "finished")]
    keys += [RatingKeys(t).leaderboard for t in types]
    return keys


async def memory_by_kind(redis: Any, partitions: int, game_types: Iterable[str], sample: int = 1000) -> dict[str, int]:
    """Estimated bytes of Redis memory by kind (every kind of KINDS present, 0 when none)."""
    fixed = shared_keys(partitions, game_types)
    fixed_names = {k.encode() for k in fixed}
    every_node: dict[str, Any] = {"target_nodes": "primaries"} if hasattr(redis, "get_primaries") else {}
    sampled: list[bytes] = []
    async for key in redis.scan_iter(count=max(100, sample // 2), **every_node):
        if key in fixed_names:
            continue
        sampled.append(key)
        if len(sampled) >= sample:
            break
    async with redis.pipeline(transaction=False) as pipe:
        for key in (*fixed, *sampled):
            pipe.memory_usage(key, samples=5)
        usage = await pipe.execute()
    totals = dict.fromkeys(KINDS, 0.0)
    existing_fixed = 0
    for key, used in zip(fixed, usage[: len(fixed)], strict=True):
        if used:
            existing_fixed += 1
            totals[key_kind(key)] += used
    population = max(0, _total(await redis.dbsize(**every_node)) - existing_fixed)
    scale = population / len(sampled) if sampled else 0.0
    for key, used in zip(sampled, usage[len(fixed):], strict=True):
        if used:
            totals[key_kind(key)] += used * scale
    return {kind: round(value) for kind, value in totals.items()}


def _total(size: Any) -> int:
    """DBSIZE of one server, or of every primary of a cluster (redis-py may answer per node)."""
    return sum(int(v) for v in size.values()) if isinstance(size, dict) else int(size)
