"""Versioned schema migrations of the archive (yoyo-migrations; plain SQL files in ``migrations/``).

Safe with several replicas starting at once: the whole run holds a PostgreSQL session advisory lock, which
the server releases by itself when the session ends, so a migrator killed half-way never leaves a lock
behind (yoyo's own lock is a table row that would survive a kill -9; under the advisory lock nobody else
can hold it, so a stale row is cleared first).  Each migration is applied in one transaction (PostgreSQL
has transactional DDL) and written to be re-runnable, since yoyo records it in a second transaction.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import psycopg

MIGRATIONS = Path(__file__).with_name("migrations")
MIGRATION_TABLE = "_yoyo_migration"
ADVISORY_LOCK = 7_295_010_468_811_423_001  # any fixed bigint: "the benthic archive migrates"
LOCK_TIMEOUT = "120s"


def _backend(dsn: str) -> Any:
    from yoyo.backends.core.postgresql import PostgresqlPsycopgBackend
    from yoyo.connections import parse_uri

    class Backend(PostgresqlPsycopgBackend):  # type: ignore[misc]
        """yoyo's psycopg 3 backend, connected with our DSN as is (a libpq URI or key=value string)."""

        def connect(self, dburi: Any) -> psycopg.Connection[Any]:
            self.schema = None
            return psycopg.connect(dsn, autocommit=True)

    backend = Backend(parse_uri("postgresql+psycopg:///benthic"), MIGRATION_TABLE)
    backend.init_database()
    return backend


def migrate(dsn: str) -> list[str]:
    """Apply every migration not applied yet; returns their ids (blocking: run it in a thread)."""
    from yoyo import read_migrations

    logging.getLogger("yoyo").setLevel(logging.WARNING)
    with psycopg.connect(dsn, autocommit=True) as lock:
        lock.execute(f"SET lock_timeout = '{LOCK_TIMEOUT}'")
        lock.execute("SELECT pg_advisory_lock(%s)", (ADVISORY_LOCK,))
        backend = _backend(dsn)
        try:
            backend.break_lock()
            todo = backend.to_apply(read_migrations(str(MIGRATIONS)))
            with backend.lock():
                backend.apply_migrations(todo)
            return [m.id for m in todo]
        finally:
            backend.connection.close()
            lock.execute("SELECT pg_advisory_unlock(%s)", (ADVISORY_LOCK,))


def applied(dsn: str) -> list[str]:
    """Ids of the migrations applied so far, oldest first."""
    with psycopg.connect(dsn, autocommit=True) as conn:
        try:
            rows = conn.execute(f'SELECT migration_id FROM "{MIGRATION_TABLE}" ORDER BY applied_at_utc').fetchall()
        except psycopg.errors.UndefinedTable:
            return []
    return [r[0] for r in rows]
