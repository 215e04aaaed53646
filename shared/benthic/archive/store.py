"""The archive of finished games in PostgreSQL (psycopg 3, async, with a bounded psycopg_pool).

One row per game in ``archived_games`` (the event log and the read models compressed, the digest, the
dates) and one per seated player in ``archived_players``.  ``put`` is idempotent: a second put of the same
game is a no-op when it is identical and an error when its digest differs.  ``verify`` recomputes the event
count and the digest from what PostgreSQL returns.  Readers (the projection, the command service, the CLI)
use ``read_model``, ``envelopes``, ``info`` and ``find``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
import psycopg
from psycopg.rows import dict_row, tuple_row
from psycopg.types.json import Jsonb
from psycopg_pool import AsyncConnectionPool, PoolTimeout

from benthic.archive import schema
from benthic.archive.records import (
    CODEC,
    ArchivedGame,
    ArchiveInfo,
    pack_events,
    pack_read_models,
    read_models_digest,
    unpack_events,
    unpack_read_models,
)
from benthic.game.events import Envelope, event_digest
from benthic.store import SeatInfo


class ArchiveError(Exception):
    pass


class ArchiveUnavailable(ArchiveError):
    """PostgreSQL cannot be reached (or no connection of the pool freed up in time)."""


class ArchiveConflict(ArchiveError):
    """A put of a game already archived with another digest or event count."""

    def __init__(self, game_id: str, stored: tuple[int, str], offered: tuple[int, str]) -> None:
        super().__init__(
            f"{game_id} is archived with {stored[0]} events ({stored[1]}); refusing another copy with "
            f"{offered[0]} events ({offered[1]})"
        )
        self.game_id = game_id


class ArchiveMismatch(ArchiveError):
    """The archived copy does not match (count, digest or its own read-model digest)."""


class GameNotArchived(ArchiveError, LookupError):
    pass




def _info_columns(table: str = "") -> str:
    t = f"{table}." if table else ""
    return (
        f"{t}game_id, {t}game_type, {t}engine_version, {t}options, {t}seats, {t}created_at, {t}finished_at, "
        f"{t}archived_at, {t}last_version, {t}event_count, {t}digest, {t}codec, "
        f"octet_length({t}events) AS events_bytes, {t}events_raw_bytes, "
        f"octet_length({t}read_models) AS read_models_bytes, {t}read_models_raw_bytes"
    )


_INSERT = """
INSERT INTO archived_games (
    game_id, game_type, engine_version, options, seats, created_at, finished_at, last_version, event_count,
    digest, codec, events, events_raw_bytes, read_models, read_models_raw_bytes, read_models_digest
) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
ON CONFLICT (game_id) DO NOTHING
RETURNING game_id
"""


def _at(ms: int) -> datetime:
    return datetime.fromtimestamp(ms / 1000, UTC)


def _ms(at: datetime) -> int:
    return round(at.timestamp() * 1000)


def _info(row: dict[str, Any]) -> ArchiveInfo:
    return ArchiveInfo(
        game_id=row["game_id"],
        game_type=row["game_type"],
        engine_version=row["engine_version"],
        options=row["options"],
        seats=msgspec.convert(row["seats"], list[SeatInfo | None]),
        created_ms=_ms(row["created_at"]),
        finished_ms=_ms(row["finished_at"]),
        archived_ms=_ms(row["archived_at"]),
        last_version=row["last_version"],
        event_count=row["event_count"],
        digest=row["digest"],
        codec=row["codec"],
        events_bytes=row["events_bytes"],
        events_raw_bytes=row["events_raw_bytes"],
        read_models_bytes=row["read_models_bytes"],
        read_models_raw_bytes=row["read_models_raw_bytes"],
    )


class Archive:
    """The archive, through a pool of at most ``pool_size`` connections.  ``open`` before use."""

    def __init__(self, dsn: str, pool_size: int = 4, *, timeout_s: float = 5.0, name: str = "benthic") -> None:
        self.dsn = dsn
        self.pool = AsyncConnectionPool(
            dsn,
            min_size=1,
            max_size=max(1, pool_size),
            open=False,
            timeout=timeout_s,
            kwargs={"autocommit": True, "application_name": name, "connect_timeout": max(1, round(timeout_s))},
            check=AsyncConnectionPool.check_connection,
            reconnect_timeout=3600,
            name=name,
        )

    async def open(self, wait: bool = True, timeout: float = 30.0) -> Archive:
        """``wait=False``: return at once and connect in the background (a reader must not fail to start
        because PostgreSQL is down; its archive reads answer ArchiveUnavailable meanwhile)."""
        try:
            await self.pool.open(wait=wait, timeout=timeout)
        except PoolTimeout as error:
            raise ArchiveUnavailable(f"PostgreSQL unreachable: {error}") from None
        return self

    async def close(self) -> None:
        await self.pool.close()

    async def __aenter__(self) -> Archive:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @contextlib.asynccontextmanager
    async def _connection(self, timeout: float | None = None) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
        try:
            async with self.pool.connection(timeout=timeout) as conn:
                yield conn
        except PoolTimeout as error:
            raise ArchiveUnavailable(f"no PostgreSQL connection: {error}") from None
        except psycopg.OperationalError as error:
            raise ArchiveUnavailable(f"PostgreSQL: {error}") from None

    # --- schema and health ------------------------------------------------------------------------
    async def migrate(self) -> list[str]:
        """Apply the schema migrations not applied yet (safe with several processes at once)."""
        try:
            return await asyncio.to_thread(schema.migrate, self.dsn)
        except psycopg.OperationalError as error:
            raise ArchiveUnavailable(f"PostgreSQL: {error}") from None

    async def ping(self, timeout: float = 2.0) -> None:
        async with self._connection(timeout) as conn:
            await conn.execute("SELECT 1")

    async def size_bytes(self) -> int:
        """The archive tables' size in PostgreSQL: rows, TOAST and indexes."""
        async with self._connection() as conn:
            cur = await conn.execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c "
                "WHERE c.relname IN ('archived_games', 'archived_players') AND c.relkind = 'r' "
                "AND pg_table_is_visible(c.oid)"
            )
            row = await cur.fetchone()
        return int(row[0]) if row else 0

    # --- the archiver -----------------------------------------------------------------------------
    async def put(self, game: ArchivedGame) -> bool:
        """Archive ``game``: True if written now, False if an identical copy was there (nothing changes).
        Raises ArchiveConflict when the game is archived with another digest or event count."""
        packed = await asyncio.to_thread(_pack, game)
        offered = (game.event_count, packed["digest"])
        async with self._connection() as conn, conn.transaction():
            cur = await conn.execute(
                _INSERT,
                (
                    game.game_id, game.game_type, game.engine_version, Jsonb(game.options),
                    Jsonb(msgspec.to_builtins(game.seats)), _at(game.created_ms), _at(game.finished_ms),
                    game.last_version, game.event_count, packed["digest"], CODEC, packed["events"],
                    packed["events_raw"], packed["models"], packed["models_raw"], packed["models_digest"],
                ),
            )
            if await cur.fetchone() is None:
                cur = await conn.execute(
                    "SELECT event_count, digest FROM archived_games WHERE game_id = %s", (game.game_id,)
                )
                stored = await cur.fetchone()
                if stored is None or (stored[0], stored[1]) != offered:
                    raise ArchiveConflict(game.game_id, (stored[0], stored[1]) if stored else (0, ""), offered)
                return False
            async with conn.cursor() as cursor:
                await cursor.executemany(
                    "INSERT INTO archived_players (game_id, seat, player_id, game_type, finished_at) "
                    "VALUES (%s, %s, %s, %s, %s)",
                    [
                        (game.game_id, seat, info.player_id, game.game_type, _at(game.finished_ms))
                        for seat, info in enumerate(game.seats)
                        if info is not None
                    ],
                )
        return True

    async def verify(
        self, game_id: str, event_count: int, digest: str, models_digest: str | None = None
    ) -> ArchiveInfo:
        """Read the copy back and check it: the event count and digest recomputed from the stored log
        equal ``event_count`` and ``digest`` (what Redis held) and the stored columns, and the read models
        recomputed match their stored digest (and ``models_digest``, the read models Redis held, when
        given).  Raises GameNotArchived, ArchiveMismatch."""
        row = await self._one(
            f"SELECT {_info_columns()}, events, read_models, read_models_digest FROM archived_games "
            "WHERE game_id = %s",
            game_id,
            rows=True,
        )
        if row is None:
            raise GameNotArchived(game_id)
        envelopes, models = await asyncio.to_thread(
            lambda: (unpack_events(row["events"]), unpack_read_models(row["read_models"]))
        )
        recomputed = (len(envelopes), event_digest(envelopes))
        if recomputed != (event_count, digest) or recomputed != (row["event_count"], row["digest"]):
            raise ArchiveMismatch(
                f"{game_id}: archived log has {recomputed[0]} events ({recomputed[1]}), the columns say "
                f"{row['event_count']} ({row['digest']}), expected {event_count} ({digest})"
            )
        if envelopes and envelopes[-1].version != row["last_version"]:
            raise ArchiveMismatch(f"{game_id}: last version {envelopes[-1].version} != {row['last_version']}")
        recomputed_models = read_models_digest(models)
        if recomputed_models != row["read_models_digest"]:
            raise ArchiveMismatch(f"{game_id}: the archived read models do not match their digest")
        if models_digest is not None and recomputed_models != models_digest:
            raise ArchiveMismatch(f"{game_id}: the archived read models differ from the ones offered")
        return _info(row)

    async def purge(self, older_than: timedelta, batch: int = 500) -> int:
        """Remove the games that finished more than ``older_than`` ago (the retention setting), in batches
        of ``batch`` so no statement holds its locks long; returns how many were removed."""
        before = datetime.now(UTC) - older_than
        removed = 0
        while True:
            async with self._connection() as conn:
                cur = await conn.execute(
                    "DELETE FROM archived_games WHERE game_id IN (SELECT game_id FROM archived_games "
                    "WHERE finished_at < %s ORDER BY finished_at LIMIT %s)",
                    (before, batch),
                )
            removed += cur.rowcount
            if cur.rowcount < batch:
                return removed

    # --- readers ----------------------------------------------------------------------------------
    async def exists(self, game_id: str) -> bool:
        row = await self._one("SELECT 1 FROM archived_games WHERE game_id = %s", game_id)
        return row is not None

    async def info(self, game_id: str) -> ArchiveInfo | None:
        row = await self._one(f"SELECT {_info_columns()} FROM archived_games WHERE game_id = %s", game_id, rows=True)
        return _info(row) if row else None

    async def get(self, game_id: str) -> ArchivedGame | None:
        row = await self._one(
            "SELECT game_id, game_type, engine_version, options, seats, created_at, finished_at, archived_at, "
            "events, read_models FROM archived_games WHERE game_id = %s",
            game_id,
            rows=True,
        )
        if row is None:
            return None
        envelopes, models = await asyncio.to_thread(
            lambda: (unpack_events(row["events"]), unpack_read_models(row["read_models"]))
        )
        return ArchivedGame(
            game_id=row["game_id"],
            game_type=row["game_type"],
            engine_version=row["engine_version"],
            options=row["options"],
            seats=msgspec.convert(row["seats"], list[SeatInfo | None]),
            created_ms=_ms(row["created_at"]),
            finished_ms=_ms(row["finished_at"]),
            envelopes=envelopes,
            read_models=models,
            archived_ms=_ms(row["archived_at"]),
        )

    async def read_models(self, game_id: str) -> tuple[int, dict[str, bytes]] | None:
        """(last version, every read-model field) of an archived game, or None."""
        row = await self._one("SELECT last_version, read_models FROM archived_games WHERE game_id = %s", game_id)
        if row is None:
            return None
        return int(row[0]), unpack_read_models(row[1])

    async def read_model(self, game_id: str, field: str) -> tuple[int, bytes | None] | None:
        """(last version, the field's bytes as the read API served them), or None if not archived."""
        found = await self.read_models(game_id)
        return None if found is None else (found[0], found[1].get(field))

    async def envelopes(self, game_id: str, after: int = 0, limit: int | None = None) -> list[Envelope] | None:
        """The stream entries with version > ``after`` (at most ``limit``), or None if not archived."""
        row = await self._one("SELECT events FROM archived_games WHERE game_id = %s", game_id)
        if row is None:
            return None
        entries = [e for e in await asyncio.to_thread(unpack_events, row[0]) if e.version > after]
        return entries if limit is None else entries[:limit]

    async def find(
        self,
        player: str | None = None,
        game_type: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 50,
    ) -> list[ArchiveInfo]:
        """Archived games, newest finished first: of ``player``, of ``game_type``, finished in
        [since, until)."""
        where: list[str] = []
        params: list[Any] = []
        table = "archived_games g"
        if player is not None:
            table = "archived_players p JOIN archived_games g USING (game_id)"
            where.append("p.player_id = %s")
            params.append(player)
        prefix = "p" if player is not None else "g"
        for clause, value in ((f"{prefix}.game_type = %s", game_type), (f"{prefix}.finished_at >= %s", since),
                              (f"{prefix}.finished_at < %s", until)):
            if value is not None:
                where.append(clause)
                params.append(value)
        sql = (f"SELECT {_info_columns('g')} FROM {table} {'WHERE ' + ' AND '.join(where) if where else ''} "
               f"ORDER BY {prefix}.finished_at DESC, g.game_id LIMIT %s")
        params.append(max(1, limit))
        async with self._connection() as conn, conn.cursor(row_factory=dict_row) as cur:
            try:
                await cur.execute(sql, params)
            except psycopg.errors.UndefinedTable:
                return []
            return [_info(r) for r in await cur.fetchall()]

    async def _one(self, sql: str, game_id: str, rows: bool = False) -> Any:
        """One row by game id (a dict with ``rows``); None when absent or before the first migration."""
        async with self._connection() as conn, conn.cursor(row_factory=dict_row if rows else tuple_row) as cur:
            try:
                await cur.execute(sql, (game_id,))
            except psycopg.errors.UndefinedTable:
                return None
            return await cur.fetchone()


def _pack(game: ArchivedGame) -> dict[str, Any]:
    events, events_raw = pack_events(game.envelopes)
    models, models_raw = pack_read_models(game.read_models)
    return {
        "digest": game.digest,
        "events": events,
        "events_raw": events_raw,
        "models": models,
        "models_raw": models_raw,
        "models_digest": read_models_digest(game.read_models),
    }
