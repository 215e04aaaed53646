"""A long-poll on a game that exists but has no read model yet (created a moment ago) waits for its first view
instead of answering 404 at once; a game that does not exist is still 404 at once."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import uvicorn

from benthic.local.devredis import free_port
from benthic.store import EventStore
from benthic.store.loader import StateLoader
from services.projection.app import create_app as projection_app
from services.projection.projector import Projector
from tests.platform_helpers import StoreGame, settings_for_tests


async def test_a_long_poll_waits_for_the_first_view_of_a_new_game(redis: Any, redis_url: str) -> None:
    settings = settings_for_tests(redis_url, long_poll_max_s=30)
    store = EventStore(redis, settings.partitions)
    game = await StoreGame(store, "nautilus").create()  # in the store, not projected (no consumer runs)
    app = projection_app(settings, consume=False)  # served over HTTP: the long-poll runs while the test acts
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None, lifespan="on"))
    serving = asyncio.create_task(server.serve())
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=60) as client:
            while not server.started:
                await asyncio.sleep(0.01)
            assert (await client.get(f"/games/{game.game_id}/view")).json()["code"] == "game_not_found"
            assert (await client.get("/games/never-created/view?after_version=0&wait=20")).status_code == 404

            poll = asyncio.create_task(client.get(f"/games/{game.game_id}/view?after_version=0&wait=20"))
            while app.state.hub.clients == 0:  # the long-poll is registered and waiting
                assert not poll.done(), (await poll).text
                await asyncio.sleep(0.01)
            await Projector(redis, store, StateLoader(store, 10, 0)).project(game.game_id, "nautilus")
            answer = await poll
            assert answer.status_code == 200, answer.text
            assert answer.json()["version"] == game.version and answer.json()["view"]["player_count"] == 2
    finally:
        server.should_exit = True
        await serving
