"""The scoring service: a feed consumer, with health and metrics over HTTP."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from litestar import Litestar

from benthic.feed.consumer import FeedConsumer
from benthic.feed.keys import lifecycle_key
from benthic.game.content import install as install_content
from benthic.game.gamestate import StateLoader
from benthic.rules import game_types
from benthic.service.bootstrap import consumer_lifespan, redis_lifespan, service_app
from benthic.service.config import Settings
from benthic.service.telemetry import zero_series
from services.scoring.scorer import Scorer

SERVICE = "scoring"
GROUP = "scoring"


def create_app(settings: Settings) -> Litestar:
    packs = install_content(settings)

    @contextlib.asynccontextmanager
    async def scorer(app: Litestar) -> AsyncIterator[None]:
        loader = StateLoader(app.state.store, min(settings.state_cache_games, 500), snapshot_every=0)
        app.state.scorer = Scorer(app.state.redis, app.state.store, loader)
        zero_series(SERVICE, game_types())
        yield

    def consumer(app: Litestar) -> FeedConsumer:
        return FeedConsumer(settings, GROUP, app.state.scorer.handle, pause_s=settings.scoring_pause_ms / 1000,
                            feed=lifecycle_key)

    return service_app(SERVICE, settings, [redis_lifespan(settings), scorer, consumer_lifespan("consumer", consumer)],
                       started={"port": settings.scoring_port, "content_packs": packs["packs"],
                                "rejected_packs": packs["rejected"]})
