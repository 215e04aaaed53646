"""End to end, the services as real processes: `POST /games/{id}/undo` and the play socket's undo frame for every
game type; the views served after an undo are the views before the move, and no history shows anyone what
was hidden from them."""

from __future__ import annotations

import random
import re
import uuid
from typing import Any

import msgspec
import pytest
from websockets.asyncio.client import connect

from benthic.clients.bots_http import start_bot_game
from benthic.clients.client import ApiFailure, BenthicClient
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from tests.e2e.waiting import until
from tests.engine_harness import hidden_from, strings_in

GAMES = game_types()
# platform and client: tests/e2e/conftest.py


async def _refused(client: BenthicClient, game_id: str, token: str, **body: Any) -> dict[str, Any]:
    """The refusal of an undo, its body whole (the client's ApiFailure keeps no details)."""
    response = await client.http.post(f"{client.command_url}/games/{game_id}/undo",
                                      json={"command_id": uuid.uuid4().hex, **body},
                                      headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 409, response.text
    return response.json()  # type: ignore[no-any-return]


async def _state(client: BenthicClient, engine: Any, game_id: str) -> tuple[int, Any]:
    version, raw = await client.operator_state(game_id)
    return version, engine.decode_state(raw)


async def _views(client: BenthicClient, game_id: str, tokens: dict[int, str], version: int) -> dict[Any, Any]:
    """Every viewer's view once the read API serves ``version``."""
    async def at(viewer: int | None) -> Any:
        view = await client.view(game_id, viewer, None if viewer is None else tokens[viewer])
        return view if view["version"] == version else None

    return {v: (await until(lambda v=v: at(v), f"view of {v} at {version}", retry_on=(ApiFailure,)))["view"]
            for v in [None, *tokens]}


async def _to_a_silent_move(
    client: BenthicClient, engine: Any, game_id: str, tokens: dict[int, str], rng: random.Random
) -> tuple[int, Any, int, dict[str, Any]]:
    """Play random legal commands until the next one reveals nothing (the engine, asked locally, says so):
    (version, state, seat, command) of that move, not played yet."""
    for _ in range(300):
        version, state = await _state(client, engine, game_id)
        prompt = engine.prompt(state)
        assert prompt is not None
        seat = rng.choice(prompt.seats)
        command = rng.choice((await client.legal(game_id, tokens[seat]))["commands"])
        events = engine.decide(state, seat, engine.decode_command(command))
        after = engine.prompt(engine.fold(state, events))
        if (version > 1 and not any(engine.reveals(e) for e in events) and after is not None
                and seat in after.seats):
            return version, state, seat, command
        await client.play(game_id, tokens[seat], command)
    raise AssertionError("no silent move in 300 commands")


@pytest.mark.parametrize("game_type", GAMES)
async def test_undo_over_http_restores_every_view_once_and_leaks_nothing(
    platform: LocalPlatform, client: BenthicClient, game_type: str
) -> None:
    engine = get_engine(game_type)
    game_id, tokens = await start_bot_game(client, game_type, 2, name=f"undo{uuid.uuid4().hex[:4]}")
    nothing = await _refused(client, game_id, tokens[0])
    assert (nothing["code"], nothing["details"]["reason"]) == ("undo_not_allowed", "nothing_to_undo")

    version, before, seat, command = await _to_a_silent_move(client, engine, game_id, tokens, random.Random(5))
    views_before = await _views(client, game_id, tokens, version)
    played = await client.play(game_id, tokens[seat], command, command_id="the-move", expected_version=version)
    stale = await _refused(client, game_id, tokens[seat], expected_version=version)
    assert (stale["code"], stale["details"]) == ("version_conflict", {"current_version": played["last_version"]})
    other = 1 - seat
    assert (await _refused(client, game_id, tokens[other]))["details"] == {
        "reason": "another_seat_acted", "version": version + 1, "command_id": "the-move", "seat": seat}

    done = await client.undo(game_id, tokens[seat], command_id="undo-1", expected_version=played["last_version"])
    assert done == {"game_id": game_id, "command_id": "undo-1", "version": played["last_version"] + 1,
                    "duplicate": False, "undone": {"seat": seat, "command_id": "the-move",
                                                   "first_version": version + 1,
                                                   "last_version": played["last_version"]}}
    again = await client.undo(game_id, tokens[seat], command_id="undo-1")
    assert again == {**done, "duplicate": True}
    audit = (await client.audit(game_id))["entries"]
    assert [e["command_id"] for e in audit if e["type"] == "command_undone"] == ["undo-1"]
    assert audit[-1]["seat"] == seat and audit[-1]["kind"] == "p" and audit[-1]["actor_kind"] == "player"

    after_version, after = await _state(client, engine, game_id)
    assert after_version == done["version"]
    assert engine.encode_state(after) == engine.encode_state(before)
    assert await _views(client, game_id, tokens, after_version) == views_before
    # the leak proof: what was hidden from the other seat before the move is in no entry of its history since
    history = (await client.history(game_id, other, tokens[other], after=version))["events"]
    assert {k: v for k, v in history[-1].items() if k != "text"} == {
        "version": done["version"], "ts_ms": history[-1]["ts_ms"],
        "event": {"type": "command_undone", **done["undone"]}}
    assert history[-1]["text"].endswith(" took back their last move")  # benthic.i18n.platform
    assert not hidden_from(engine, before, other) & strings_in(history)
    # the game plays on from the state before the move: the same move is legal again
    replayed = await client.play(game_id, tokens[seat], command, expected_version=after_version)
    assert replayed["first_version"] == after_version + 1


async def test_the_option_undo_off_is_refused_and_a_bad_value_is_an_invalid_option(client: BenthicClient) -> None:
    engine = get_engine("nautilus")
    players = [{"player_id": f"off{uuid.uuid4().hex[:6]}-{i}"} for i in range(2)]
    with pytest.raises(ApiFailure) as bad:
        await client.create_game("nautilus", players, {"undo": "always"})
    assert (bad.value.status, bad.value.code) == (422, "invalid_option")
    game_id, tokens = await start_bot_game(client, "nautilus", 2, name=f"off{uuid.uuid4().hex[:4]}",
                                           options={"undo": "off"})
    _version, _state_, seat, command = await _to_a_silent_move(client, engine, game_id, tokens, random.Random(5))
    await client.play(game_id, tokens[seat], command)
    refused = await _refused(client, game_id, tokens[seat])
    assert refused["details"] == {"reason": "undo_off"}
    metrics = (await client.http.get(f"{client.command_url}/metrics")).text
    assert re.search(r'^benthic_undos_total\{outcome="undo_off"\} [1-9]', metrics, re.M), metrics[-2000:]
    document = (await client.http.get(f"{client.command_url}/game-types/nautilus")).json()
    undo_option = next(o for o in document["platform_options"] if o["name"] == "undo")
    assert (undo_option["default"], undo_option["values"]) == ("turn", ["turn", "off"])


async def test_the_play_socket_undoes_with_the_posts_answers(platform: LocalPlatform, client: BenthicClient) -> None:
    engine = get_engine("aquatica")
    game_id, tokens = await start_bot_game(client, "aquatica", 2, name=f"wsu{uuid.uuid4().hex[:4]}")
    version, before, seat, command = await _to_a_silent_move(client, engine, game_id, tokens, random.Random(9))
    url = platform.command_url.replace("http://", "ws://") + f"/games/{game_id}/play?token={tokens[seat]}"
    async with connect(url) as socket:
        async def ask(frame: dict[str, Any]) -> dict[str, Any]:
            await socket.send(msgspec.json.encode(frame).decode())
            return msgspec.json.decode(await socket.recv())  # type: ignore[no-any-return]

        played = await ask({"command_id": "ws-move", "command": command})
        assert played["status"] == 200
        bad = await ask({"undo": True, "command_id": "x", "command": command})
        assert (bad["status"], bad["error"]["code"]) == (400, "invalid_request")
        stale = await ask({"undo": True, "command_id": "ws-stale", "expected_version": version})
        assert (stale["status"], stale["command_id"], stale["error"]["code"]) == (409, "ws-stale", "version_conflict")
        undone = await ask({"undo": True, "command_id": "ws-undo"})
        assert undone["status"] == 200 and undone["command_id"] == "ws-undo"
        assert undone["result"]["undone"]["command_id"] == "ws-move" and not undone["result"]["duplicate"]
        repeat = await ask({"undo": True, "command_id": "ws-undo"})
        assert repeat["result"] == {**undone["result"], "duplicate": True}
        assert engine.encode_state((await _state(client, engine, game_id))[1]) == engine.encode_state(before)
        next_undo = await ask({"undo": True, "command_id": "ws-undo-2"})
        if next_undo["status"] != 200:  # the move before revealed, or was another seat's
            assert (next_undo["status"], next_undo["error"]["code"]) == (409, "undo_not_allowed")
            assert next_undo["error"]["details"]["reason"] in ("reveals_information", "another_seat_acted",
                                                              "nothing_to_undo")
