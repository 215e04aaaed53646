"""The scoring service: a feed consumer, with health and metrics over HTTP."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from benthic.service.bus import FeedConsumer
from benthic.service.config import Settings
from benthic.game.content import install as install_content
from benthic.game.gamestate import StateLoader
from benthic.service.http import EXCEPTION_HANDLERS, health_routes
from benthic.game.keys import lifecycle_key
from benthic.service.redisconn import RedisProbe, redis_client, sample_memory
from benthic.rules import game_types
from benthic.store import EventStore
from benthic.service.telemetry import log, red_middleware, zero_series
from litestar import Litestar
from litestar.datastructures import State

from services.scoring.scorer import Scorer

SERVICE = "scoring"
GROUP = "scoring"


def create_app(settings: Settings) -> Litestar:
    packs = install_content(settings)
    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        redis = redis_client(settings.redis_url, settings.redis_pool, settings.redis_cluster,
                             settings.redis_pool_timeout_s)
        probe = RedisProbe(settings.redis_url, settings.redis_cluster)
        await probe.start()
        store = EventStore(redis, settings.partitions, settings.feed_maxlen)
        loader = StateLoader(store, min(settings.state_cache_games, 500), snapshot_every=0)
        scorer = Scorer(redis, store, loader)
        consumer = FeedConsumer(settings, GROUP, scorer.handle, pause_s=settings.scoring_pause_ms / 1000,
                                feed=lifecycle_key)
        app.state.update(redis=redis, consumer=consumer, scorer=scorer, probe=probe)
        await consumer.start()
        sampler = asyncio.create_task(sample_memory(redis, settings.metrics_interval_s))
        zero_series(SERVICE, game_types())
        log().info("service_started", port=settings.scoring_port,
                   content_packs=packs["packs"], rejected_packs=packs["rejected"])
        try:
            yield
        finally:
            sampler.cancel()
            await consumer.stop()
            await probe.stop()
            await redis.aclose()

    async def ready() -> dict[str, Any]:
        probe: RedisProbe = app.state.probe
        consuming = app.state.consumer.healthy
        report: dict[str, Any] = {"ok": probe.ok and consuming, "redis": probe.ok, "consumer": consuming}
        if not probe.ok:
            report["error"] = probe.error
        return report

    app = Litestar(
        route_handlers=[*health_routes(ready)],
        lifespan=[lifespan],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[red_middleware(SERVICE)],
        state=State({"settings": settings}),
        logging_config=None,
        debug=False,
    )
    return app
