"""The archive's contract against a real PostgreSQL server, and its schema migrations."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from collections.abc import AsyncIterator, Iterator

import psycopg
import pytest

from benthic.archive import Archive
from benthic.archive.records import pack_events, pack_read_models
from benthic.archive.schema import MIGRATION_TABLE, applied, migrate
from benthic.local.devredis import free_port
from tests.archive_contract import ArchiveContract, played_game


class TestArchiveOnPostgreSQL(ArchiveContract):
    @pytest.fixture(autouse=True)
    def _server(self, archive_url: str) -> None:
        self.dsn = archive_url

    @contextlib.asynccontextmanager
    async def open_archive(self) -> AsyncIterator[Archive]:
        async with Archive(self.dsn, pool_size=4) as archive:
            async with archive.pool.connection() as conn:
                await conn.execute("TRUNCATE archived_games, archived_players")
            yield archive

    async def corrupt(self, archive: Archive, game_id: str, column: str) -> None:
        other = "events" if column == "events" else "read_models"
        async with archive.pool.connection() as conn:
            # a valid copy of another game's blob in place of this one's: it decodes, but is not this game
            await conn.execute(
                f"UPDATE archived_games SET {column} = (SELECT {other} FROM archived_games WHERE game_id <> %s "
                f"UNION ALL SELECT %s LIMIT 1) WHERE game_id = %s",
                (game_id, _other_blob(column), game_id),
            )

    def unreachable_archive(self) -> Archive:
        return Archive(f"postgresql://nobody@127.0.0.1:{free_port()}/none", pool_size=1, timeout_s=1.0)


def _other_blob(column: str) -> bytes:
    game = played_game(seed=99)
    return pack_events(game.envelopes[:5])[0] if column == "events" else pack_read_models({"summary": b"{}"})[0]


@pytest.fixture
def fresh_database(archive_url: str) -> Iterator[str]:
    """A new, empty database on the archive's server (a DSN to it)."""
    name = f"migrations_{uuid.uuid4().hex[:10]}"
    with psycopg.connect(archive_url, autocommit=True) as conn:
        try:
            conn.execute(f'CREATE DATABASE "{name}"')
        except psycopg.errors.InsufficientPrivilege:
            pytest.skip("the archive's role may not create databases")
    info = psycopg.conninfo.conninfo_to_dict(archive_url)
    info["dbname"] = name
    yield psycopg.conninfo.make_conninfo(**info)
    with psycopg.connect(archive_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


async def test_replicas_starting_at_once_migrate_once(fresh_database: str) -> None:
    assert applied(fresh_database) == []
    results = await asyncio.gather(*(asyncio.to_thread(migrate, fresh_database) for _ in range(5)))
    assert sorted(len(r) for r in results) == [0, 0, 0, 0, 1]
    assert applied(fresh_database) == ["0001.archive-tables"]
    assert migrate(fresh_database) == []


async def test_a_migrator_killed_holding_the_lock_blocks_nobody(fresh_database: str) -> None:
    """yoyo's own lock is a table row; a process killed while holding it leaves the row behind."""
    migrate(fresh_database)
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        conn.execute("INSERT INTO yoyo_lock (locked, ctime, pid) VALUES (1, now(), 424242)")
        conn.execute(f'DELETE FROM "{MIGRATION_TABLE}"')  # as if killed before recording the migration
    assert migrate(fresh_database) == ["0001.archive-tables"]  # re-applied: the migration is re-runnable
    with psycopg.connect(fresh_database, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM yoyo_lock").fetchone() == (0,)


async def test_readers_see_no_game_before_the_first_migration(fresh_database: str) -> None:
    async with Archive(fresh_database, 1) as archive:
        assert await archive.info("x") is None and await archive.read_model("x", "summary") is None
        assert await archive.find(player="p") == [] and not await archive.exists("x")
        assert await archive.migrate() == ["0001.archive-tables"]
        assert await archive.size_bytes() > 0
