"""The Redis keys of the partition feeds.  Each carries its partition's hash tag ``{pK}``, the tag of the
partition's game keys (``benthic.game.keys``), so an append writes its game and its feeds in one slot."""

from __future__ import annotations


def feed_key(partition: int) -> str:
    """Every commit and join of the partition's games (the projection)."""
    return f"{{p{partition}}}:feed"


def lifecycle_key(partition: int) -> str:
    """Only the commits that end a game or carry platform events (game_scored, ...): scoring and archiving
    read this small feed instead of every move."""
    return f"{{p{partition}}}:lifecycle"


def managed_key(partition: int) -> str:
    """The commits and joins of the games the bots service looks after (meta flag ``bots``: a bot or the house
    bot plays a seat, or a clock runs): the bots read this feed, not every move of every game."""
    return f"{{p{partition}}}:managed"


def dead_letter_key(feed: str) -> str:
    """Where a consumer sets aside the entries of ``feed`` it cannot read or keeps failing on."""
    return f"{feed}:dead"
