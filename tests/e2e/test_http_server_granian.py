"""The services under granian (BENTHIC_HTTP_SERVER=granian) instead of uvicorn: the same APIs as real processes,
the play socket, a live SSE stream, health, a clean stop, and X-Forwarded-For honoured only from allowed proxies."""

from __future__ import annotations

import json
import random
import uuid
from typing import Any

import pytest
from websockets.asyncio.client import connect

from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import ApiFailure
from benthic.local.localplatform import SERVICES, LocalPlatform
from tests.e2e.waiting import until
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, platform_client


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({"BENTHIC_HTTP_SERVER": "granian", **GENEROUS_LIMITS})


async def test_a_game_plays_to_its_end_over_http_sockets_and_sse_under_granian(platform, client) -> None:
    for service in SERVICES:
        answer = await client.http.get(f"{platform.url(service)}/healthz")
        assert answer.json() == {"status": "ok"} and "uvicorn" not in answer.headers.get("server", "")
    game_id, tokens = await start_bot_game(client, "nautilus", 2, name=f"granian{uuid.uuid4().hex[:4]}")
    seat, token = next(iter(tokens.items()))
    socket_url = f"{platform.command_url.replace('http', 'ws', 1)}/games/{game_id}/play?token={token}"
    async with connect(socket_url) as socket:
        await socket.send(json.dumps({"query": "legal"}))
        legal = json.loads(await socket.recv())
        assert legal["status"] == 200 and legal["result"]["version"] >= 0
    async with client.http.stream("GET", f"{platform.read_url}/games/{game_id}/live") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        async for line in stream.aiter_lines():
            if line.startswith("data:"):
                assert json.loads(line[5:])["game_id"] == game_id
                break
    final = await HttpGame(client, game_id, tokens, random.Random(3)).play()

    async def projected_to_the_end() -> dict[str, Any] | None:  # the lobby card exists before the projection is done
        summary = await client.summary(game_id)
        return summary if summary["version"] >= final - 1 else None

    await until(projected_to_the_end, "finished game projected", retry_on=(ApiFailure,))


async def test_forwarded_addresses_count_only_from_allowed_proxies_and_the_services_stop_cleanly(
    make_platform: PlatformFactory,
) -> None:
    """BENTHIC_FORWARDED_ALLOW_IPS is 127.0.0.1: two clients behind the proxy are two addresses to the per-IP
    command limit (2 a minute), so neither is refused for the other's commands; then SIGTERM ends every process
    with 0."""
    platform = make_platform({"BENTHIC_HTTP_SERVER": "granian", "BENTHIC_DRAIN_TIMEOUT_S": "2",
                              "BENTHIC_LIMIT_COMMAND_PER_IP": "2/minute"})
    client = platform_client(platform)
    game_id, tokens = await start_bot_game(client, "nautilus", 2, name=f"xff{uuid.uuid4().hex[:4]}")
    url = f"{platform.command_url}/games/{game_id}/commands"
    body = {"command_id": "x", "command": {"type": "no_such_command"}}

    async def post(address: str) -> int:
        headers = {"X-Forwarded-For": address, "Authorization": f"Bearer {tokens[0]}"}
        return (await client.http.post(url, json=body, headers=headers)).status_code

    statuses = [await post(f"10.0.0.{n % 2 + 1}") for n in range(4)]
    assert 429 not in statuses, statuses
    assert await post("10.0.0.1") == 429
    await client.aclose()
    processes = list(platform.processes.values())
    platform.stop()
    assert [p.returncode for p in processes] == [0] * len(processes)
