"""The bots service: a feed consumer scheduling bot moves and clock deadlines, and the loop that plays the
moves and expires the clocks through the command path; health and metrics over HTTP (port 8005)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from litestar import Litestar

from benthic.feed.consumer import FeedConsumer
from benthic.feed.system import follower
from benthic.game.content import install as install_content
from benthic.play import PlayerGames, PlayPath
from benthic.rules import game_types
from benthic.rules.bots import BOT_NAMES
from benthic.runtime.config import Settings
from benthic.runtime.telemetry import BOT_MOVES, zero_series
from benthic.service.bootstrap import consumer_lifespan, redis_lifespan, service_app, tasks_lifespan
from benthic.store.loader import StateLoader
from services.bots.duesets import DueSets
from services.bots.runner import BotRunner

SERVICE = "bots"
FOLLOWS = follower("bots")  # the stream it follows, its group and mechanism: benthic.feed.system
GROUP = FOLLOWS.group


def create_app(settings: Settings) -> Litestar:
    packs = install_content(settings)

    @contextlib.asynccontextmanager
    async def runner(app: Litestar) -> AsyncIterator[None]:
        redis, store = app.state.redis, app.state.store
        loader = StateLoader(store, settings.state_cache_games, settings.snapshot_every)
        players = PlayerGames(redis, store, settings.max_open_games_per_player)
        play = PlayPath(store, loader, players, settings.conflict_retries)
        app.state.runner = BotRunner(play, DueSets(redis, settings.partitions), settings)
        zero_series(SERVICE, game_types(), (GROUP,))
        for game_type in game_types():
            for name in BOT_NAMES:
                BOT_MOVES.labels(game_type, name)
        yield

    def consumer(app: Litestar) -> FeedConsumer:
        return FeedConsumer(settings, GROUP, app.state.runner.handle, pause_s=settings.bots_pause_ms / 1000,
                            feed=FOLLOWS.feed)

    loops = tasks_lifespan(
        "bots", lambda app: [app.state.runner.run(), app.state.runner.metrics_loop(settings.metrics_interval_s)],
        settings, stop=lambda app: app.state.runner.stop())
    return service_app(SERVICE, settings, [redis_lifespan(settings), runner, consumer_lifespan("consumer", consumer),
                                           loops],
                       started={"port": settings.bots_port, "move_delay_ms": settings.bot_move_delay_ms,
                                "bots": list(BOT_NAMES), "content_packs": packs["packs"],
                                "rejected_packs": packs["rejected"]})
