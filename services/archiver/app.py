"""The archiver service: a feed consumer scheduling scored games, the archiving loop, retention and the
Redis memory sampler; health and metrics over HTTP (port 8004)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

from benthic.archive import Archive
from benthic.service.bus import FeedConsumer
from benthic.service.config import Settings
from benthic.service.http import EXCEPTION_HANDLERS, health_routes
from benthic.game.keys import lifecycle_key
from benthic.service.redisconn import redis_client
from benthic.rules import game_types
from benthic.service.telemetry import log, red_middleware, zero_series
from litestar import Litestar
from litestar.datastructures import State

from services.archiver.archiver import Archiver

SERVICE = "archiver"
GROUP = "archiver"
CRASH_HOOK = "BENTHIC_ARCHIVER_CRASH_AT"  # test-only: SIGKILL this process right after the named step


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


def create_app(settings: Settings) -> Litestar:
    if not settings.archive_url:
        raise SystemExit("the archiver needs BENTHIC_ARCHIVE_URL (a PostgreSQL DSN)")

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        redis = redis_client(settings.redis_url, 32, settings.redis_cluster)
        archive = Archive(settings.archive_url, settings.archive_pool, name="benthic-archiver")
        await archive.open(wait=False)
        archiver = Archiver(redis, archive, settings, crash_at=os.environ.get(CRASH_HOOK, ""))
        consumer = FeedConsumer(settings, GROUP, archiver.schedule, feed=lifecycle_key)  # game_scored only
        status: dict[str, Any] = {"migrated": False}
        app.state.update(redis=redis, archive=archive, archiver=archiver, consumer=consumer, status=status)
        zero_series(SERVICE, game_types(), (GROUP,))
        await consumer.start()
        migration = asyncio.create_task(_migrate_until_done(archive, status))

        async def archive_after_migration() -> None:
            await migration
            await archiver.run()

        archiving = asyncio.create_task(archive_after_migration())
        tasks = [archiving, asyncio.create_task(archiver.metrics_loop()), asyncio.create_task(archiver.retention_loop())]
        app.state.archiving = archiving
        log().info("service_started", port=settings.archiver_port, after_s=settings.archive_after_s,
                   retention_days=settings.archive_retention_days)
        try:
            yield
        finally:
            archiver.stop()
            migration.cancel()
            await consumer.stop()
            _done, stuck = await asyncio.wait(tasks, timeout=settings.drain_timeout_s)
            for task in stuck:
                task.cancel()
            await archive.close()
            await redis.aclose()

    async def ready() -> dict[str, Any]:
        await app.state.redis.ping()
        await app.state.archive.ping()
        status = app.state.status
        running = not app.state.archiving.done()
        consumer = app.state.consumer.healthy
        ok = consumer and running and status["migrated"]
        report: dict[str, Any] = {"ok": ok, "consumer": consumer, "archiving": running, "migrated": status["migrated"]}
        if "migration_error" in status:
            report["migration_error"] = status["migration_error"]
        return report

    app = Litestar(
        route_handlers=[*health_routes(lambda: ready())],
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[red_middleware(SERVICE)],
        state=State({"settings": settings}),
        logging_config=None,
        debug=False,
    )
    return app
