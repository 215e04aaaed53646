"""The bots service: a feed consumer scheduling bot moves and clock deadlines, and the loop that plays the
moves and expires the clocks through the command path; health and metrics over HTTP (port 8005)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from benthic.trust.auth import SeatTokens
from benthic.game.keys import managed_key
from benthic.service.bus import FeedConsumer
from benthic.service.config import Settings
from benthic.game.content import install as install_content
from benthic.game.gamestate import StateLoader
from benthic.service.http import EXCEPTION_HANDLERS, health_routes
from benthic.service.redisconn import RedisProbe, redis_client
from benthic.rules import game_types
from benthic.rules.bots import BOT_NAMES
from benthic.store import EventStore
from benthic.service.telemetry import BOT_MOVES, log, red_middleware, zero_series
from litestar import Litestar
from litestar.datastructures import State

from services.bots.duesets import DueSets
from services.bots.runner import BotRunner
from services.command.players import PlayerGames
from services.command.service import CommandService

SERVICE = "bots"
GROUP = "bots"


def create_app(settings: Settings) -> Litestar:
    packs = install_content(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        redis = redis_client(settings.redis_url, settings.redis_pool, settings.redis_cluster,
                             settings.redis_pool_timeout_s)
        probe = RedisProbe(settings.redis_url, settings.redis_cluster)
        await probe.start()
        store = EventStore(redis, settings.partitions, settings.feed_maxlen)
        loader = StateLoader(store, settings.state_cache_games, settings.snapshot_every)
        players = PlayerGames(redis, store, settings.max_open_games_per_player)
        service = CommandService(store, loader, SeatTokens(settings.token_keys, settings.seat_token_ttl_s),
                                 settings.conflict_retries, players)
        runner = BotRunner(service, DueSets(redis, settings.partitions), settings)
        consumer = FeedConsumer(settings, GROUP, runner.handle, pause_s=settings.bots_pause_ms / 1000,
                                feed=managed_key)
        app.state.update(redis=redis, consumer=consumer, runner=runner, probe=probe)
        zero_series(SERVICE, game_types(), (GROUP,))
        for game_type in game_types():
            for name in BOT_NAMES:
                BOT_MOVES.labels(game_type, name)
        await consumer.start()
        tasks = [asyncio.create_task(runner.run()), asyncio.create_task(runner.metrics_loop(settings.metrics_interval_s))]
        app.state.loop = tasks[0]
        log().info("service_started", port=settings.bots_port, move_delay_ms=settings.bot_move_delay_ms,
                   bots=list(BOT_NAMES), content_packs=packs["packs"], rejected_packs=packs["rejected"])
        try:
            yield
        finally:
            runner.stop()
            await consumer.stop()
            _done, stuck = await asyncio.wait(tasks, timeout=settings.drain_timeout_s)
            for task in stuck:
                task.cancel()
            await probe.stop()
            await redis.aclose()

    async def ready() -> dict[str, Any]:
        probe: RedisProbe = app.state.probe
        consuming = app.state.consumer.healthy
        running = not app.state.loop.done()
        report: dict[str, Any] = {"ok": probe.ok and consuming and running, "redis": probe.ok,
                                  "consumer": consuming, "bots": running}
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
