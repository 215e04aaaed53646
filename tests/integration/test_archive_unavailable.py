"""PostgreSQL down: live games are served as ever, reads and commands that need the archive answer
503 archive_unavailable with Retry-After, the read and command services stay ready, the archiver does not."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from litestar.testing import AsyncTestClient

from benthic.local.devredis import free_port
from benthic.store import EventStore
from benthic.store.loader import StateLoader
from benthic.trust.devissuer import DevIssuer
from services.archiver.app import create_app as archiver_app
from services.command.app import create_app as command_app
from services.projection.app import create_app as projection_app
from services.projection.projector import Projector
from tests.platform_helpers import StoreGame, settings_for_tests


def _down(redis_url: str) -> Any:
    return settings_for_tests(redis_url, archive_url=f"postgresql://nobody@127.0.0.1:{free_port()}/none",
                              archive_pool=1)


async def test_reads_of_live_games_go_on_and_archived_ones_answer_503(redis: Any, redis_url: str) -> None:
    settings = _down(redis_url)
    store = EventStore(redis, settings.partitions)
    game = await StoreGame(store, "nautilus").create()
    await game.play(3)
    await Projector(redis, store, StateLoader(store, 10, 0)).project(game.game_id, "nautilus")
    async with AsyncTestClient(projection_app(settings, consume=False)) as client:
        live = await client.get(f"/games/{game.game_id}/view")
        assert live.status_code == 200 and live.headers["etag"]
        assert (await client.get(f"/games/{game.game_id}/history")).status_code == 200
        for path in ("/games/gone-or-never/view", "/games/gone-or-never", "/games/gone-or-never/history",
                     "/games/gone-or-never/scores"):
            answer = await client.get(path)
            assert answer.status_code == 503, (path, answer.text)
            assert answer.json()["code"] == "archive_unavailable" and answer.headers["retry-after"] == "5"
        assert (await client.get("/readyz")).json()["ok"] is True


async def test_commands_of_live_games_go_on_and_unknown_games_answer_503(
    redis: Any, redis_url: str, tmp_path: Path
) -> None:
    issuer = DevIssuer.load_or_create(str(tmp_path / "issuer"))
    settings = msgspec.structs.replace(_down(redis_url), dev_issuer_dir=str(tmp_path / "issuer"))

    def jwt(player: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {issuer.mint(player)}"}

    async with AsyncTestClient(command_app(settings)) as client:
        created = await client.post("/games", headers=jwt("a"), json={"game_type": "nautilus", "seats": [{}, None]})
        assert created.status_code == 201, created.text
        game_id, token = created.json()["game_id"], created.json()["seats"][0]["token"]
        assert (await client.get(f"/games/{game_id}/legal", headers={"Authorization": f"Bearer {token}"})
                ).status_code == 200
        answer = await client.post("/games/gone-or-never/join", headers=jwt("c"), json={})
        assert (answer.status_code, answer.json()["code"]) == (503, "archive_unavailable")
        assert (await client.get("/readyz")).status_code == 200


async def test_the_archiver_is_not_ready_without_postgresql(redis: Any, redis_url: str) -> None:
    async with AsyncTestClient(archiver_app(_down(redis_url))) as client:
        ready = await client.get("/readyz")
        assert ready.status_code == 503 and ready.json()["ok"] is False
        assert (await client.get("/healthz")).status_code == 200
