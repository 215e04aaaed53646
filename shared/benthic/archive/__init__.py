"""The archive of finished games in PostgreSQL: the record of every game once it has left Redis.

    archive = await Archive(dsn, pool_size=4).open()
    await archive.migrate()                       # versioned schema migrations (yoyo), safe to run at once
    await archive.put(game)                       # idempotent; ArchiveConflict if another digest
    await archive.verify(game_id, count, digest)  # recomputed from what PostgreSQL returns
    await archive.read_model(game_id, "view:pub") / envelopes(game_id, after, limit) / info / get / find
    await archive.purge(timedelta(days=365)) / size_bytes()
"""

from __future__ import annotations

from benthic.archive.records import ArchivedGame, ArchiveInfo
from benthic.archive.store import (
    Archive,
    ArchiveConflict,
    ArchiveError,
    ArchiveMismatch,
    ArchiveUnavailable,
    GameNotArchived,
)
from benthic.game.events import event_digest

__all__ = [
    "Archive",
    "ArchiveConflict",
    "ArchiveError",
    "ArchiveInfo",
    "ArchiveMismatch",
    "ArchiveUnavailable",
    "ArchivedGame",
    "GameNotArchived",
    "event_digest",
]
