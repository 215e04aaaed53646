"""End to end: the three services as real processes, bots over HTTP, every registered game type."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from redis.asyncio import Redis

from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import ApiFailure, BenthicClient
from benthic.game.keys import GameKeys
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from benthic.store.entries import DATA, HEAD, CommitHead, encode_head
from tests.e2e.waiting import until
from tests.engine_harness import hidden_from, strings_in
from tests.platform_helpers import raw_game
from tests.variant_packs import FIRST_VIEW_CHECKS, VARIANT_ID, VARIANT_VERSION

GAMES = game_types()
# platform (the second content packs installed, limits the bots do not reach) and client: tests/e2e/conftest.py


def test_pids_name_each_service_process_and_no_redis_it_did_not_start(platform: LocalPlatform) -> None:
    pids = platform.pids()
    assert set(pids) == set(platform.processes)  # redis_url was given: its Redis is not the platform's
    for service, pid in pids.items():
        command_line = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        assert command_line[command_line.index(b"serve") + 1] == service.encode(), command_line


def _check_views_and_histories(engine: Any, envelopes: list[Any], states: list[Any], seats: int,
                               views: dict[Any, dict[str, Any]], histories: dict[Any, list[dict[str, Any]]]) -> None:
    """What the read API served each viewer equals the engine's view/redaction, and leaks no secret."""
    state = states[-1]
    for viewer, served in views.items():
        assert served["version"] == len(envelopes)
        assert served["view"] == msgspec.json.decode(msgspec.json.encode(engine.view(state, viewer)))
        leaked = hidden_from(engine, state, viewer) & strings_in(served["view"])
        assert not leaked, f"view of {viewer} leaks {leaked}"
    for viewer, entries in histories.items():
        by_version = {e["version"]: e["event"] for e in entries}
        before = engine.initial_state()
        for envelope, after in zip(envelopes, states, strict=True):
            if not envelope.is_engine:
                before = after
                continue
            expected = engine.redact(engine.decode_event(envelope.data), viewer)
            if expected is None:
                assert envelope.version not in by_version
            else:
                assert by_version[envelope.version] == msgspec.json.decode(msgspec.json.encode(expected))
                hidden = hidden_from(engine, after, viewer) & hidden_from(engine, before, viewer)
                known = strings_in(engine.view(before, viewer)) if before.version else set()
                leaked = (hidden & strings_in(by_version[envelope.version])) - known
                assert not leaked, f"history of {viewer} leaks {leaked} at {envelope.version}"
            before = after


async def _served(client: BenthicClient, game_id: str, tokens: dict[int, str], version: int) -> tuple[dict, dict]:
    views: dict[Any, dict[str, Any]] = {}
    histories: dict[Any, list[dict[str, Any]]] = {}
    for viewer in [None, *tokens]:
        token = None if viewer is None else tokens[viewer]
        views[viewer] = await until(
            lambda v=viewer, t=token: _at_version(client.view(game_id, v, t), version), "views caught up",
            retry_on=(ApiFailure,),
        )
        histories[viewer] = (await client.history(game_id, viewer, token, limit=1000))["events"]
        while histories[viewer] and len(histories[viewer]) % 1000 == 0:
            more = await client.history(game_id, viewer, token, after=histories[viewer][-1]["version"], limit=1000)
            if not more["events"]:
                break
            histories[viewer].extend(more["events"])
    return views, histories


async def _at_version(coroutine: Any, version: int) -> Any:
    view = await coroutine
    return view if view and view["version"] >= version else None


@pytest.mark.parametrize("game_type", GAMES)
async def test_bot_game_over_http_is_projected_scored_rated_and_leaks_nothing(
    platform: LocalPlatform, client: BenthicClient, game_type: str
) -> None:
    engine = get_engine(game_type)
    seats = engine.max_seats
    game_id, tokens = await start_bot_game(client, game_type, seats, name=f"e2e{uuid.uuid4().hex[:4]}")
    game = HttpGame(client, game_id, tokens, random.Random(7))
    await game.play(pause_after=25)  # part-way: secrets are still hidden
    engine_, envelopes, states = await raw_game(platform, game_id)
    views, histories = await _served(client, game_id, tokens, len(envelopes))
    _check_views_and_histories(engine_, envelopes, states, seats, views, histories)

    final_version = await game.play()
    scores = await until(lambda: client.scores(game_id), "final scores", retry_on=(ApiFailure,))
    summary = await until(lambda: _scored(client, game_id), "game_scored projected", retry_on=(ApiFailure,))
    assert summary["status"] == "finished"
    engine_, envelopes, states = await raw_game(platform, game_id)
    assert engine_.is_over(states[-1])
    assert [e.type for e in envelopes].count("game_scored") == 1 and envelopes[-1].type == "game_scored"
    assert len(envelopes) == final_version + 1
    expected = msgspec.json.decode(msgspec.json.encode(engine.final_scores(states[-1])))
    assert scores == expected
    views, histories = await _served(client, game_id, tokens, len(envelopes))
    _check_views_and_histories(engine_, envelopes, states, seats, views, histories)
    players = [s["player_id"] for s in (await client.summary(game_id))["seats"]]
    rated = await until(lambda: _on_leaderboard(client, game_type, players), "ratings applied", retry_on=(ApiFailure,))
    assert all(rated[p]["games"] == 1 for p in players)
    lobby = await client.lobby(game_type, "finished", limit=500)
    assert game_id in [g["game_id"] for g in lobby["games"]]


async def _on_leaderboard(client: BenthicClient, game_type: str, players: list[str]) -> dict[str, Any] | None:
    """The leaderboard by player once every one of ``players`` is on it (ratings apply just after game_scored
    is appended, so a game may show as scored a moment before)."""
    board = {p["player_id"]: p for p in (await client.leaderboard(game_type, 500))["players"]}
    return board if all(p in board for p in players) else None


async def _scored(client: BenthicClient, game_id: str) -> dict[str, Any] | None:
    summary = await client.summary(game_id)
    return summary if summary.get("scored") else None


@pytest.mark.parametrize("game_type", GAMES)
async def test_every_bad_input_gets_its_status_and_code_and_changes_nothing(
    platform: LocalPlatform, client: BenthicClient, game_type: str
) -> None:
    engine = get_engine(game_type)
    game_id, tokens = await start_bot_game(client, game_type, engine.max_seats, name="bad")
    other_id, other_tokens = await start_bot_game(client, game_type, engine.max_seats, name="other")
    legal = await client.legal(game_id, tokens[0])
    version = legal["version"]
    acting = legal["prompt"]["seats"][0]
    idle = next((s for s in tokens if s not in legal["prompt"]["seats"]), None)
    acting_legal = await client.legal(game_id, tokens[acting])
    command = acting_legal["commands"][0]
    url = f"{platform.command_url}/games/{game_id}/commands"
    auth = {"Authorization": f"Bearer {tokens[acting]}"}
    body = {"command_id": "c-bad", "command": command}
    http = client.http

    async def expect(response: httpx.Response, status: int, code: str) -> None:
        assert response.status_code == status, response.text
        assert response.json()["code"] == code, response.text
        assert response.json()["message"]

    await expect(await http.post(url, content=b"{not json", headers=auth), 400, "invalid_json")
    await expect(await http.post(url, json={"command_id": "c1", "command": {"type": "no_such"}}, headers=auth),
                 400, "unknown_command_type")
    await expect(await http.post(url, json={"command_id": "c1"}, headers=auth), 400, "invalid_request")
    await expect(await http.post(url, json={"command_id": "c 1", "command": command}, headers=auth),
                 400, "invalid_request")
    await expect(await http.post(url, json=body), 401, "missing_token")
    await expect(await http.post(url, json=body, headers={"Authorization": "Bearer x.y.z"}), 401, "invalid_token")
    forged = tokens[acting][:-4] + ("AAAA" if not tokens[acting].endswith("AAAA") else "BBBB")
    await expect(await http.post(url, json=body, headers={"Authorization": f"Bearer {forged}"}), 401, "invalid_token")
    await expect(await http.post(url, json=body, headers={"Authorization": f"Bearer {other_tokens[acting]}"}),
                 403, "wrong_game")
    await expect(await http.post(f"{platform.command_url}/games/nope/commands", json=body, headers=auth),
                 404, "game_not_found")
    await expect(await http.post(url, json={**body, "expected_version": version - 1}, headers=auth),
                 409, "version_conflict")
    await expect(await http.post(url, content=b'{"command_id":"big","command":{"type":"' + b"x" * 20000 + b'"}}',
                                 headers={**auth, "content-type": "application/json"}), 413, "body_too_large")
    if idle is not None:
        idle_auth = {"Authorization": f"Bearer {tokens[idle]}"}
        response = await http.post(url, json={"command_id": "c-idle", "command": command}, headers=idle_auth)
        assert response.status_code == 422 and response.json()["code"], response.text
    backend = {"Authorization": f"Bearer {platform.mint('mm-bad', ('benthic:matchmaker',))}"}
    await expect(await http.post(f"{platform.command_url}/games", json={"game_type": "chess", "seats": [None]}),
                 401, "missing_token")
    await expect(await http.post(f"{platform.command_url}/games", json={"game_type": "chess", "seats": [None]},
                                 headers=backend), 422, "unknown_game_type")
    await expect(await http.post(f"{platform.command_url}/games", headers=backend,
                                 json={"game_type": game_type, "seats": [None] * (engine.max_seats + 1)}),
                 422, "invalid_player_count")
    await expect(await http.post(f"{platform.command_url}/games", headers=backend,
                                 json={"game_type": game_type, "seats": [None] * engine.max_seats, "seed": 3}),
                 403, "seed_requires_operator")
    await expect(await http.post(f"{platform.command_url}/games", headers=backend,
                                 json={"game_type": game_type, "seats": [{"player_id": "p", "name": "n" * 65}]}),
                 400, "invalid_request")
    player_p = {"Authorization": f"Bearer {platform.mint('p')}"}
    await expect(await http.post(f"{platform.command_url}/games/nope/join", json={}), 401, "missing_token")
    await expect(await http.post(f"{platform.command_url}/games/nope/join", json={}, headers=player_p),
                 404, "game_not_found")
    await expect(await http.post(f"{platform.command_url}/games/{game_id}/join", json={"player_id": "late"},
                                 headers={"Authorization": f"Bearer {platform.mint('late')}"}),
                 409, "no_open_seat")
    await expect(await http.get(f"{platform.read_url}/games/{game_id}/seats/{acting}/view"), 401, "missing_token")
    other_seat = (acting + 1) % engine.max_seats
    await expect(await http.get(f"{platform.read_url}/games/{game_id}/seats/{other_seat}/view", headers=auth),
                 403, "wrong_seat")
    await expect(await http.get(f"{platform.read_url}/games/nope/view"), 404, "game_not_found")
    after = await client.legal(game_id, tokens[0])
    assert after["version"] == version, "a rejected input changed the game"
    accepted = await client.play(game_id, tokens[acting], command, command_id="c-ok", expected_version=version)
    again = await client.play(game_id, tokens[acting], command, command_id="c-ok", expected_version=version)
    assert again["duplicate"] and again["last_version"] == accepted["last_version"]
    assert again["events"] == accepted["events"]
    assert (await client.legal(game_id, tokens[0]))["version"] == accepted["last_version"]


async def test_open_seats_block_play_until_joined(platform: LocalPlatform, client: BenthicClient) -> None:
    game_type = GAMES[0]
    engine = get_engine(game_type)
    seats = [{"player_id": "host", "name": "Host"}] + [None] * (engine.max_seats - 1)
    created = await client.create_game(game_type, seats, jwt=platform.mint("host"))  # for themselves
    game_id, host_token = created["game_id"], created["seats"][0]["token"]
    assert created["status"] == "open"
    legal = await client.legal(game_id, host_token)
    assert legal["commands"] == []
    with pytest.raises(ApiFailure) as blocked:
        await client.play(game_id, host_token, {"type": "anything"})
    assert blocked.value.status in (400, 409)
    for i in range(1, engine.max_seats):
        joined = await client.join(game_id, f"guest{i}-{game_id}")
    assert joined["status"] == "running"
    with pytest.raises(ApiFailure) as full:
        await client.join(game_id, "late")
    assert (full.value.status, full.value.code) == (409, "no_open_seat")
    lobby = await until(lambda: _in_lobby(client, game_type, "running", game_id), "lobby shows running",
                        retry_on=(ApiFailure,))
    assert lobby


async def _in_lobby(client: BenthicClient, game_type: str, status: str, game_id: str) -> bool:
    games = (await client.lobby(game_type, status, limit=500))["games"]
    return game_id in [g["game_id"] for g in games]


async def test_killed_projection_and_scoring_processes_recover(platform: LocalPlatform, client: BenthicClient) -> None:
    """SIGKILL the consumers while bots play; restarted ones claim what the dead ones held."""
    games = []
    for game_type in GAMES:
        engine = get_engine(game_type)
        game_id, tokens = await start_bot_game(client, game_type, engine.min_seats if engine.min_seats > 1 else 2,
                                               name=f"kill{uuid.uuid4().hex[:4]}")
        games.append(HttpGame(client, game_id, tokens, random.Random(game_id)))
    plays = [asyncio.create_task(g.play()) for g in games]
    await asyncio.sleep(0.5)
    for service in ("projection", "scoring"):
        os.kill(platform.processes[service].pid, signal.SIGKILL)
        platform.processes[service].wait()
    await asyncio.sleep(0.5)
    for service in ("projection", "scoring"):
        platform.start_service(service)
    platform.wait_ready(60, ("projection", "scoring"))
    versions = await asyncio.gather(*plays)
    for game, version in zip(games, versions, strict=True):
        summary = await until(lambda g=game: _scored(client, g.game_id), "scored after restart", 60,
                              retry_on=(ApiFailure,))
        assert summary["version"] == version + 1
        engine_, envelopes, _ = await raw_game(platform, game.game_id)
        assert [e.type for e in envelopes].count("game_scored") == 1


async def test_read_api_etag_long_poll_sse_and_openapi(platform: LocalPlatform, client: BenthicClient) -> None:
    game_type = GAMES[0]
    engine = get_engine(game_type)
    game_id, tokens = await start_bot_game(client, game_type, engine.max_seats, name="reads")
    first = await until(lambda: client.view(game_id), "first projection", retry_on=(ApiFailure,))
    url = f"{platform.read_url}/games/{game_id}/view"
    response = await client.http.get(url)
    etag = response.headers["etag"]
    assert response.headers["x-benthic-version"] == str(first["version"])
    assert (await client.http.get(url, headers={"If-None-Match": etag})).status_code == 304

    waiting = asyncio.create_task(client.view(game_id, after_version=first["version"], wait=20))
    await asyncio.sleep(0.3)
    assert not waiting.done()
    game = HttpGame(client, game_id, tokens, random.Random(1))
    await game.play(pause_after=1)
    woke = await asyncio.wait_for(waiting, 10)
    assert woke["version"] > first["version"]
    assert (await client.http.get(url, headers={"If-None-Match": etag})).status_code == 200

    async with client.http.stream("GET", f"{platform.read_url}/games/{game_id}/live") as stream:
        assert stream.headers["content-type"].startswith("text/event-stream")
        lines = stream.aiter_lines()
        seen: dict[str, str] = {}
        async for line in lines:
            if line.startswith(("event:", "data:", "id:")):
                key, _, value = line.partition(":")
                seen[key] = value.strip()
            if "data" in seen:
                break
        assert seen["event"] == "view" and int(seen["id"]) >= woke["version"]
        assert msgspec.json.decode(seen["data"])["game_id"] == game_id

    for service in ("command", "projection"):
        schema = (await client.http.get(f"{platform.url(service)}/schema/openapi.json")).json()
        assert schema["openapi"].startswith("3.") and schema["paths"]
    metrics = (await client.http.get(f"{platform.command_url}/metrics")).text
    assert "benthic_commands_total" in metrics and "benthic_http_requests_total" in metrics
    for service in ("command", "projection", "scoring", "archiver", "bots"):
        assert (await client.http.get(f"{platform.url(service)}/healthz")).json() == {"status": "ok"}, service
        ready = (await client.http.get(f"{platform.url(service)}/readyz")).json()
        assert ready["ok"] is True and ready["redis"] is True, (service, ready)  # one bootstrap, one readiness
        metrics = (await client.http.get(f"{platform.url(service)}/metrics")).text
        for shared in ("process_resident_memory_bytes", "benthic_http_requests_total",
                       "benthic_redis_memory_used_bytes", "benthic_redis_replicas_required",
                       "benthic_redis_replicas_connected"):
            assert f"\n{shared}" in metrics, (service, shared)


async def test_operator_state_and_house_greedy_bots(platform: LocalPlatform, client: BenthicClient) -> None:
    from benthic.clients.bots_http import house_greedy_chooser

    game_type = GAMES[0]
    engine = get_engine(game_type)
    game_id, tokens = await start_bot_game(client, game_type, engine.max_seats, name="house")
    response = await client.http.get(f"{platform.command_url}/games/{game_id}/ops/state")
    assert (response.status_code, response.json()["code"]) == (401, "operator_only")
    version, raw = await client.operator_state(game_id)
    state = engine.decode_state(raw)
    assert engine.prompt(state) is not None and version >= state.version
    game = HttpGame(client, game_id, tokens, random.Random(2), house_greedy_chooser(client, engine))
    await game.play(pause_after=30)
    assert game.commands == 30


async def test_an_unrated_game_leaves_the_leaderboards_unchanged(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    game_type = "nautilus" if "nautilus" in GAMES else GAMES[0]
    seats = max(2, get_engine(game_type).min_seats)
    tag = uuid.uuid4().hex[:6]

    async def game(kind: str, **create: Any) -> tuple[str, list[str], HttpGame]:
        players = [f"{kind}-{tag}-{i}" for i in range(seats)]
        created = await client.create_game(game_type, [{"player_id": p} for p in players], **create)
        tokens = {s["seat"]: (await client.seat_token(created["game_id"], s["player_id"]))["token"]
                  for s in created["seats"]}
        assert created["rated"] is (kind == "rated")
        return created["game_id"], players, HttpGame(client, created["game_id"], tokens, random.Random(3))

    unrated = [await game("casual", rated=False), await game("seeded", seed=11)]
    await asyncio.gather(*(g.play() for _, _, g in unrated))
    for game_id, _, _ in unrated:
        await until(lambda g=game_id: _scored(client, g), "scored", retry_on=(ApiFailure,))
    # A rated game played after them: once its ratings show, the scorer is long done with the unrated ones.
    games = [await game("rated"), *unrated]
    await games[0][2].play()
    board = await until(lambda: _on_leaderboard(client, game_type, games[0][1]), "ratings applied",
                        retry_on=(ApiFailure,))
    for (game_id, players, _), rated in zip(games, (True, False, False), strict=True):
        # The projection may show the end a moment after the scorer applied the ratings.
        summary = await until(lambda g=game_id: _scored(client, g), "the end projected", retry_on=(ApiFailure,))
        assert summary["rated"] is rated and summary["status"] == "finished"
        assert all((p in board) is rated for p in players), (game_id, rated)
        _, envelopes, _ = await raw_game(platform, game_id)
        assert msgspec.json.decode(envelopes[-1].data)["rated"] is rated


async def test_dev_mode_the_cli_mints_tokens_and_plays_as_two_commands_do(platform: LocalPlatform,
                                                                           client: BenthicClient) -> None:
    jwks = (await client.http.get(f"{platform.command_url}/.well-known/jwks.json")).json()
    assert [k["kid"] for k in jwks["keys"]] == [platform.dev_issuer.kid] and jwks["keys"][0]["alg"] == "EdDSA"
    cli = [sys.executable, "-m", "benthic.cli", "--command-url", platform.command_url, "--read-url",
           platform.read_url, "--dev-issuer-dir", platform.env["BENTHIC_DEV_ISSUER_DIR"]]
    env = {k: v for k, v in os.environ.items() if k not in ("BENTHIC_JWT", "BENTHIC_ENVIRONMENT")}

    def run(*args: str) -> Any:
        done = subprocess.run([*cli, *args], env=env, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        return done.stdout

    alice, bob = f"alice-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    token = run("dev-token", alice).strip()
    assert (await client.my_seats(jwt=token))["player_id"] == alice
    game_type = GAMES[0]
    created = json.loads(await asyncio.to_thread(run, "create", game_type, "--player", alice, "--open", "1"))
    assert created["status"] == "open" and created["seats"][0]["token"] and created["rated"]
    joined = json.loads(await asyncio.to_thread(run, "join", created["game_id"], "--player", bob))
    assert (joined["seat"], joined["status"]) == (1, "running")
    seats = json.loads(await asyncio.to_thread(run, "seats", "--player", bob))["seats"]
    assert [s["game_id"] for s in seats] == [created["game_id"]]
    legal = json.loads(await asyncio.to_thread(run, "legal", created["game_id"], "--token", seats[0]["token"]))
    assert legal["seat"] == 1
    both = json.loads(await asyncio.to_thread(run, "create", game_type, "--player", alice, "--player", bob))
    assert all(s["token"] for s in both["seats"]), "dev: the CLI fetched every named player's token"
@pytest.mark.parametrize("game_type", [g for g in GAMES if get_engine(g).content_packs is not None])
async def test_a_second_content_pack_plays_a_game_end_to_end(
    platform: LocalPlatform, client: BenthicClient, game_type: str
) -> None:
    """A pack installed from BENTHIC_CONTENT_DIRS, chosen with options.content: recorded in the first event,
    used by the command service, the projection and scoring to the end; unknown packs are refused."""
    engine = get_engine(game_type)
    with pytest.raises(ApiFailure) as refused:
        await start_bot_game(client, game_type, 2, name="nopack", options={"content": "no-such-pack"})
    assert (refused.value.status, refused.value.code) == (422, "unknown_content_pack")
    game_id, tokens = await start_bot_game(client, game_type, 2, name=f"pack{uuid.uuid4().hex[:4]}",
                                           options={"content": VARIANT_ID})
    history = await until(lambda: client.history(game_id, None, None, limit=1), "first event projected",
                          retry_on=(ApiFailure,))
    first = history["events"][0]["event"]
    assert first["content"] == {"id": VARIANT_ID, "version": VARIANT_VERSION}
    view = await until(lambda: _at_version(client.view(game_id, None, None), 1), "first view", retry_on=(ApiFailure,))
    assert FIRST_VIEW_CHECKS[game_type](view["view"])
    game = HttpGame(client, game_id, tokens, random.Random(3))
    await game.play()
    scores = await until(lambda: client.scores(game_id), "final scores", retry_on=(ApiFailure,))
    await until(lambda: _scored(client, game_id), "game_scored projected", retry_on=(ApiFailure,))
    engine_, envelopes, states = await raw_game(platform, game_id)
    assert engine_.is_over(states[-1]) and states[-1].content == f"{VARIANT_ID}@{VARIANT_VERSION}"
    assert scores == msgspec.json.decode(msgspec.json.encode(engine.final_scores(states[-1])))
    assert all(e.engine_version == engine.engine_version for e in envelopes if e.is_engine)
    views, histories = await _served(client, game_id, tokens, len(envelopes))
    _check_views_and_histories(engine_, envelopes, states, 2, views, histories)


async def test_a_game_of_an_engine_version_this_release_cannot_read_is_refused_and_counted(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    """Events recorded by a newer engine (as during a rolling deploy): the command service never folds them,
    answers 503 engine_version_unsupported and counts the refusal."""
    game_type = GAMES[0]
    engine = get_engine(game_type)
    game_id, tokens = await start_bot_game(client, game_type, engine.max_seats, name=f"newer{uuid.uuid4().hex[:4]}")
    legal = await client.legal(game_id, tokens[0])
    seat = legal["prompt"]["seats"][0]
    legal = await client.legal(game_id, tokens[seat])
    redis = Redis.from_url(platform.redis_url)
    try:  # what a replica of a newer release would have appended (without a feed notification)
        keys = GameKeys(game_id, 16)
        last = (await redis.xrevrange(keys.events, count=1))[0][1]
        version = legal["version"] + 1
        head = CommitHead(int(time.time() * 1000), 1, engine_version=engine.engine_version + 1)
        await redis.xadd(keys.events, {DATA: last[DATA], HEAD: encode_head(head)}, id=f"{version}-0")
        await redis.hset(keys.meta, "version", version)
    finally:
        await redis.aclose()
    for token in tokens.values():
        response = await client.http.get(f"{platform.command_url}/games/{game_id}/legal",
                                         headers={"Authorization": f"Bearer {token}"})
        body = response.json()
        assert (response.status_code, body["code"]) == (503, "engine_version_unsupported"), body
        assert f"version {engine.engine_version + 1}" in body["message"]
    command = {"command_id": uuid.uuid4().hex, "command": legal["commands"][0]}
    response = await client.http.post(f"{platform.command_url}/games/{game_id}/commands", json=command,
                                      headers={"Authorization": f"Bearer {tokens[seat]}"})
    assert response.status_code == 503 and response.json()["code"] == "engine_version_unsupported"
    metrics = (await client.http.get(f"{platform.command_url}/metrics")).text
    counted = [line for line in metrics.splitlines() if line.startswith("benthic_games_not_supported_total{")
               and 'code="engine_version_unsupported"' in line and f'game_type="{game_type}"' in line]
    assert counted and float(counted[0].rsplit(" ", 1)[1]) >= len(tokens) + 1

