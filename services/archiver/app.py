"""The archiver service: a feed consumer scheduling scored games, the archiving loop, retention and the
Redis memory sampler; health and metrics over HTTP (port 8004)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

from litestar import Litestar

from benthic.archive import Archive
from benthic.feed.consumer import FeedConsumer
from benthic.feed.system import follower
from benthic.rules import game_types
from benthic.runtime.config import Settings
from benthic.runtime.telemetry import log, zero_series
from benthic.service.bootstrap import consumer_lifespan, readiness, redis_lifespan, service_app, tasks_lifespan
from services.archiver.archiver import Archiver

SERVICE = "archiver"
FOLLOWS = follower("archiver")  # the stream it follows, its group and mechanism: benthic.feed.system
GROUP = FOLLOWS.group
CRASH_HOOK = "BENTHIC_ARCHIVER_CRASH_AT"  # test-only: SIGKILL this process right after the named step
ARCHIVE_PROBE_S = 1.0


async def _migrate_until_done(archive: Archive, state: dict[str, Any]) -> None:
    """Apply the schema migrations, retrying while PostgreSQL is unreachable (not ready meanwhile)."""
    delay = 0.5
    while True:
        try:
            applied = await archive.migrate()
        except Exception as error:  # noqa: BLE001 - PostgreSQL down or starting: try again
            state["migration_error"] = repr(error)
            log().warning("archive_migration_failed", error=repr(error), retry_in_s=delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 10.0)
            continue
        state.pop("migration_error", None)
        state["migrated"] = True
        log().info("archive_migrated", applied=applied)
        return


async def _probe_archive(archive: Archive, state: dict[str, Any]) -> None:
    """Keep ``state["archive"]`` (PostgreSQL answers) current, so readiness needs no query of its own."""
    while True:
        try:
            await archive.ping(timeout=ARCHIVE_PROBE_S)
        except Exception as error:  # noqa: BLE001 - any failure means PostgreSQL cannot be used now
            state["archive"], state["archive_error"] = False, f"archive: {error!r}"
        else:
            state["archive"], state["archive_error"] = True, ""
        await asyncio.sleep(ARCHIVE_PROBE_S)


def create_app(settings: Settings) -> Litestar:
    if not settings.archive_url:
        raise SystemExit("the archiver needs BENTHIC_ARCHIVE_URL (a PostgreSQL DSN)")

    @contextlib.asynccontextmanager
    async def archiver(app: Litestar) -> AsyncIterator[None]:
        archive = Archive(settings.archive_url, settings.archive_pool, name="benthic-archiver")
        await archive.open(wait=False)
        status: dict[str, Any] = {"migrated": False, "archive": False, "archive_error": "archive: not probed yet"}
        app.state.update(archive=archive, status=status, archiver=Archiver(
            app.state.redis, archive, settings, crash_at=os.environ.get(CRASH_HOOK, ""), ack=app.state.store.ack))
        ready = readiness(app)
        ready.require("migrated", lambda: (status["migrated"], status.get("migration_error", "not migrated yet")))
        ready.require("archive", lambda: (status["archive"], status["archive_error"]))
        zero_series(SERVICE, game_types(), (GROUP,))
        probe = asyncio.create_task(_probe_archive(archive, status))
        try:
            yield
        finally:
            probe.cancel()
            await archive.close()

    def consumer(app: Litestar) -> FeedConsumer:
        return FeedConsumer(settings, GROUP, app.state.archiver.schedule, feed=FOLLOWS.feed)  # game_scored only

    def loops(app: Litestar) -> list[Any]:
        archiver: Archiver = app.state.archiver

        async def archive_after_migration() -> None:
            await _migrate_until_done(app.state.archive, app.state.status)
            await archiver.run()

        return [archive_after_migration(), archiver.metrics_loop(), archiver.retention_loop()]

    return service_app(SERVICE, settings, [
        redis_lifespan(settings, pool=32), archiver, consumer_lifespan("consumer", consumer),
        tasks_lifespan("archiving", loops, settings, stop=lambda app: app.state.archiver.stop()),
    ], started={"port": settings.archiver_port, "after_s": settings.archive_after_s,
                "retention_days": settings.archive_retention_days})
