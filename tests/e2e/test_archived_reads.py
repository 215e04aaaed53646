"""Reads are transparent across archiving: for every game type, a bot game played over HTTP to its end, every
read body (and ETag) recorded, the game archived by the archiver process, then every read again: the same
bodies and ETags, from the archive.  Commands, joins and legal moves of an archived game answer
409 game_finished; the operator CLI shows and exports it."""

from __future__ import annotations

import asyncio
import json
import os
import random
import subprocess
import sys
import time
from typing import Any

import httpx
import msgspec
import pytest

from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import BenthicClient
from benthic.game.keys import GameKeys
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from benthic.runtime.redisconn import redis_client
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory

GAMES = game_types()

@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    running = make_platform({"BENTHIC_CLAIM_IDLE_MS": "1000", "BENTHIC_CLAIM_INTERVAL_S": "0.5",
                             "BENTHIC_METRICS_INTERVAL_S": "1", "BENTHIC_ARCHIVE_AFTER_S": "0",
                             "BENTHIC_ARCHIVE_LEASE_S": "1", "BENTHIC_DRAIN_TIMEOUT_S": "1", **GENEROUS_LIMITS})
    running.kill("archiver")  # started again once every body is recorded
    return running


def _read_requests(game_id: str, tokens: dict[int, str], version: int) -> list[tuple[str, dict[str, str]]]:
    """Every read of a finished game: lobby card, views, histories (whole and paged), scores, live."""
    requests: list[tuple[str, dict[str, str]]] = [(f"/games/{game_id}", {}), (f"/games/{game_id}/scores", {})]
    viewers: list[tuple[str, dict[str, str]]] = [(f"/games/{game_id}", {})]
    viewers += [(f"/games/{game_id}/seats/{seat}", {"Authorization": f"Bearer {t}"}) for seat, t in tokens.items()]
    for prefix, auth in viewers:
        requests += [
            (f"{prefix}/view", auth),
            (f"{prefix}/view?after_version={version}&wait=0", auth),
            (f"{prefix}/history?limit=1000", auth),
            (f"{prefix}/history?after=1000&limit=1000", auth),
            (f"{prefix}/history?after=7&limit=13", auth),
            (f"{prefix}/history?after={version}", auth),
        ]
    return requests


async def _read(http: httpx.AsyncClient, path: str, headers: dict[str, str]) -> tuple[int, bytes, str | None, str]:
    response = await http.get(path, headers=headers)
    return response.status_code, response.content, response.headers.get("etag"), \
        response.headers.get("x-benthic-version", "")


async def _live_first_view(http: httpx.AsyncClient, path: str, headers: dict[str, str]) -> str:
    async with http.stream("GET", path, headers=headers) as stream:
        async for line in stream.aiter_lines():
            if line.startswith("data:"):
                return line
    raise AssertionError(f"{path} sent no view")


async def _lobby_card(http: httpx.AsyncClient, game_type: str, game_id: str) -> dict[str, Any] | None:
    games = (await http.get("/lobby", params={"game_type": game_type, "status": "finished"})).json()["games"]
    return next((card for card in games if card["game_id"] == game_id), None)


async def _archived(platform: LocalPlatform, game_id: str, seats: int) -> bool:
    redis = redis_client(platform.redis_url)
    try:
        return not await redis.exists(*GameKeys(game_id, 16).game_keys())
    finally:
        await redis.aclose()


async def test_every_read_of_every_game_type_is_the_same_after_archiving(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    played: list[tuple[str, str, dict[int, str], int]] = []
    for game_type in GAMES:
        seats = get_engine(game_type).max_seats
        game_id, tokens = await start_bot_game(client, game_type, seats, name=f"arch{game_type[:3]}")
        played.append((game_type, game_id, tokens, 0))
    versions = await asyncio.gather(*(HttpGame(client, g, t, random.Random(g)).play() for _, g, t, _ in played))
    http = httpx.AsyncClient(base_url=platform.read_url, timeout=30)
    try:
        recorded: dict[str, Any] = {}
        lives: dict[str, str] = {}
        for (_, game_id, tokens, _), version in zip(played, versions, strict=True):
            deadline = time.monotonic() + 60
            while not (await client.summary(game_id)).get("scored"):
                assert time.monotonic() < deadline, f"{game_id} not scored"
                await asyncio.sleep(0.2)
            for path, headers in _read_requests(game_id, tokens, version + 1):
                recorded[path + json.dumps(headers)] = (path, headers, await _read(http, path, headers))
            for seat in [None, *tokens]:
                prefix = f"/games/{game_id}" if seat is None else f"/games/{game_id}/seats/{seat}"
                headers = {} if seat is None else {"Authorization": f"Bearer {tokens[seat]}"}
                lives[f"{prefix}/live"] = await _live_first_view(http, f"{prefix}/live", headers)
        assert all(status == 200 for _, _, (status, *_rest) in recorded.values())
        listed = {g: await _lobby_card(http, t, g) for t, g, _, _ in played}
        assert all(listed.values()), "a finished game is not in the lobby"

        platform.start_service("archiver")
        deadline = time.monotonic() + 120
        for _, game_id, tokens, _ in played:
            while not await _archived(platform, game_id, len(tokens)):
                assert time.monotonic() < deadline, f"{game_id} was not archived"
                await asyncio.sleep(0.2)

        for game_type, game_id, _, _ in played:  # the lobby lists archived games with the same cards
            assert await _lobby_card(http, game_type, game_id) == listed[game_id], f"{game_id} left the lobby"
        for path, headers, before in recorded.values():
            assert await _read(http, path, headers) == before, f"{path} differs after archiving"
            if before[2]:
                again = await http.get(path, headers={**headers, "If-None-Match": before[2]})
                assert again.status_code == 304, path
        for path, line in lives.items():
            seat = path.split("/seats/")[1].split("/")[0] if "/seats/" in path else None
            game_id = path.split("/")[2]
            tokens = next(t for _, g, t, _ in played if g == game_id)
            headers = {} if seat is None else {"Authorization": f"Bearer {tokens[int(seat)]}"}
            assert await _live_first_view(http, path, headers) == line, path
        wrong = await http.get(f"/games/{played[0][1]}/seats/0/view",
                               headers={"Authorization": f"Bearer {played[0][2][1]}"})
        assert (wrong.status_code, wrong.json()["code"]) == (403, "wrong_seat")
        assert (await http.get("/games/nope/view")).json()["code"] == "game_not_found"

        await _commands_joins_and_legal_are_refused(platform, client, played)
        await _operator_cli_shows_and_exports(platform, played[0][1], versions[0] + 1)
        metrics = (await http.get(f"{platform.url('archiver')}/metrics")).text
        for game_type in GAMES:
            assert f'benthic_games_archived_total{{game_type="{game_type}"}} 1.0' in metrics
        assert "benthic_archive_size_bytes" in metrics
        assert 'benthic_redis_memory_by_kind_bytes{kind="events"}' in metrics
        ready = (await http.get(f"{platform.url('archiver')}/readyz")).json()
        assert ready == {"ok": True, "redis": True, "consumer": True, "archiving": True, "migrated": True,
                         "archive": True}
    finally:
        await http.aclose()


async def _commands_joins_and_legal_are_refused(
    platform: LocalPlatform, client: BenthicClient, played: list[tuple[str, str, dict[int, str], int]]
) -> None:
    http = client.http
    for game_type, game_id, tokens, _ in played:
        fresh_id, fresh_tokens = await start_bot_game(client, game_type, len(tokens), name="fresh")
        first = await client.legal(fresh_id, fresh_tokens[0])
        seat = first["prompt"]["seats"][0]
        legal = (await client.legal(fresh_id, fresh_tokens[seat]))["commands"][0]  # well formed for this game
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        command = await http.post(f"{platform.command_url}/games/{game_id}/commands", headers=auth,
                                  json={"command_id": "after-the-end", "command": legal})
        assert (command.status_code, command.json()["code"]) == (409, "game_finished"), command.text
        join = await http.post(f"{platform.command_url}/games/{game_id}/join", json={},
                               headers={"Authorization": f"Bearer {platform.mint('latecomer')}"})
        assert (join.status_code, join.json()["code"]) == (409, "game_finished"), join.text
        legal = await http.get(f"{platform.command_url}/games/{game_id}/legal", headers=auth)
        assert (legal.status_code, legal.json()["code"]) == (409, "game_finished"), legal.text
    unknown = await http.post(f"{platform.command_url}/games/never-was/join", json={},
                              headers={"Authorization": f"Bearer {platform.mint('x')}"})
    assert (unknown.status_code, unknown.json()["code"]) == (404, "game_not_found")


async def _operator_cli_shows_and_exports(platform: LocalPlatform, game_id: str, events: int) -> None:
    env = {**os.environ, "BENTHIC_ARCHIVE_URL": platform.archive_url or ""}
    shown = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "benthic.cli", "archive", "show", game_id],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )
    assert shown.returncode == 0, shown.stderr
    card = json.loads(shown.stdout)
    assert card["game_id"] == game_id and card["event_count"] == events and card["last_version"] == events
    assert card["digest"].startswith("sha256:") and card["sizes"]["events_bytes"] < card["sizes"]["events_raw_bytes"]
    assert [p["player_id"] for p in card["players"]] == [f"arch{card['game_type'][:3]}-{card['game_type']}-{i}"
                                                          for i in range(len(card["players"]))]
    exported = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "benthic.cli", "archive", "export", game_id],
        env=env, capture_output=True, timeout=60, check=False,
    )
    assert exported.returncode == 0, exported.stderr
    lines = [msgspec.json.decode(line) for line in exported.stdout.splitlines()]
    assert [e["version"] for e in lines] == list(range(1, events + 1))
    assert lines[0]["kind"] == "e" and lines[-1]["type"] == "game_scored" and lines[-1]["kind"] == "p"
    assert isinstance(lines[0]["data"], dict) and lines[0]["data"]["type"] == lines[0]["type"]
    missing = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-m", "benthic.cli", "archive", "show", "never-was"],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )
    assert missing.returncode == 1 and "not in the archive" in missing.stderr
