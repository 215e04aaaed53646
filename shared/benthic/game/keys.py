"""The Redis key layout.  Every key of a game carries the hash tag ``{pK}`` of its partition, so each
append and each read-model write touches one Redis Cluster slot.  The partition feeds' keys, in the same
slot, are ``benthic.feed.keys``."""

from __future__ import annotations

import zlib


def partition_of(game_id: str, partitions: int) -> int:
    return zlib.crc32(game_id.encode()) % partitions


class GameKeys:
    """The keys of one game."""

    __slots__ = ("game_id", "partition", "tag")

    def __init__(self, game_id: str, partitions: int) -> None:
        self.game_id = game_id
        self.partition = partition_of(game_id, partitions)
        self.tag = f"{{p{self.partition}}}"

    @property
    def events(self) -> str:  # stream: the game's events, entry ID = <version>-0
        return f"{self.tag}:g:{self.game_id}"

    @property
    def meta(self) -> str:  # hash: version, game type, status, seats, timestamps
        return f"{self.tag}:m:{self.game_id}"

    @property
    def commands(self) -> str:  # hash: command id -> "first:last" version of its commit
        return f"{self.tag}:c:{self.game_id}"

    @property
    def snapshot(self) -> str:  # hash: engine version, version, state
        return f"{self.tag}:s:{self.game_id}"

    @property
    def read_model(self) -> str:  # hash: version, status, summary, views per viewer, scores
        return f"{self.tag}:rm:{self.game_id}"

    def lobby(self, game_type: str, status: str) -> str:
        return lobby_key(self.partition, game_type, status)

    def game_keys(self) -> list[str]:
        """Every key that belongs to this game alone (what archiving deletes).  A new per-game key kind must
        be added here: tests/integration/test_archiver.py checks no other key names the game."""
        return [self.events, self.meta, self.commands, self.snapshot, self.read_model]

    @property
    def updates(self) -> str:
        return updates_channel(self.partition)


def lobby_key(partition: int, game_type: str, status: str) -> str:
    return f"{{p{partition}}}:lobby:{game_type}:{status}"


def updates_channel(partition: int) -> str:
    return f"{{p{partition}}}:updates"


def archive_due_key(partition: int) -> str:  # zset: game id by when to look at it next (due time, then leases)
    return f"{{p{partition}}}:archive:due"


def archive_since_key(partition: int) -> str:  # zset: game id by its first due time (the archive lag)
    return f"{{p{partition}}}:archive:since"


def bot_due_key(partition: int) -> str:  # zset: game id by when its bot move is due (then leases)
    return f"{{p{partition}}}:bots:due"


def clock_due_key(partition: int) -> str:  # zset: game id by its earliest running clock's deadline (then leases)
    return f"{{p{partition}}}:clock:due"


class RatingKeys:
    """Ratings of one game type; one slot per game type."""

    __slots__ = ("game_type", "tag")

    def __init__(self, game_type: str) -> None:
        self.game_type = game_type
        self.tag = f"{{r:{game_type}}}"

    def player(self, player_id: str) -> str:  # hash: mu, sigma, games, name
        return f"{self.tag}:p:{player_id}"

    def rated(self, game_id: str) -> str:  # string: present once the game's ratings are applied
        return f"{self.tag}:rated:{game_id}"

    @property
    def leaderboard(self) -> str:  # zset: player id by ordinal rating
        return f"{self.tag}:lb"


# --- players and trust -----------------------------------------------------------------------------------------

REVOCATIONS = "benthic:revocations"  # stream: seat-token revocations, read by every replica


class PlayerKeys:
    """The keys of one player; one slot per player."""

    __slots__ = ("player_id", "tag")

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.tag = f"{{pl:{player_id}}}"

    @property
    def games(self) -> str:  # zset: game id -> created ms, the player's unfinished games (pruned lazily)
        return f"{self.tag}:games"


RATE_LIMIT_PREFIX = "benthic:rl"  # the `limits` library's keys
