"""End to end: playing over the command service's WebSocket (`WS /games/{id}/play`) gives the POST's answers."""

from __future__ import annotations

import asyncio
import random
import socket
from typing import Any

import msgspec
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from benthic.clients.bots_http import start_bot_game
from benthic.clients.client import BenthicClient
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine

GAMES = game_types()
# platform and client: tests/e2e/conftest.py, the platform test_platform.py plays on


def _socket_url(running: LocalPlatform, game_id: str, token: str | None) -> str:
    url = running.command_url.replace("http://", "ws://") + f"/games/{game_id}/play"
    return url + (f"?token={token}" if token else "")


async def _ask(socket: Any, frame: dict[str, Any] | str) -> dict[str, Any]:
    await socket.send(frame if isinstance(frame, str) else msgspec.json.encode(frame).decode())
    return msgspec.json.decode(await socket.recv())  # type: ignore[no-any-return]


@pytest.mark.parametrize("game_type", GAMES)
async def test_a_whole_game_over_sockets_matches_the_stream_and_bad_frames_change_nothing(
    platform: LocalPlatform, client: BenthicClient, game_type: str
) -> None:
    engine = get_engine(game_type)
    game_id, tokens = await start_bot_game(client, game_type, engine.min_seats, name=f"ws{random.randrange(10**6)}")
    rng = random.Random(7)
    sockets = {seat: await connect(_socket_url(platform, game_id, token)) for seat, token in tokens.items()}
    try:
        legal = {seat: await client.legal(game_id, token) for seat, token in tokens.items()}
        version, moves, checked_refusals = (await client.operator_state(game_id))[0], 0, False
        while True:
            movers = [seat for seat, answer in legal.items() if answer["commands"]]
            if not movers:
                break
            seat = rng.choice(movers)
            socket = sockets[seat]
            if not checked_refusals:
                checked_refusals = True
                before = (await client.operator_state(game_id))[0]
                assert (await _ask(socket, "{not json"))["error"]["code"] == "invalid_json"
                bad = await _ask(socket, {"command_id": "x", "command": {}, "surprise": 1})
                assert (bad["status"], bad["error"]["code"]) == (400, "invalid_request")
                stale = await _ask(socket, {"command_id": "stale", "command": legal[seat]["commands"][0],
                                            "expected_version": version + 5})
                assert (stale["status"], stale["error"]["code"], stale["command_id"]) == (409, "version_conflict",
                                                                                          "stale")
                unknown = await _ask(socket, {"command_id": "u", "command": {"type": "no_such_command"}})
                assert unknown["status"] == 400
                for frame in ({}, {"command_id": "c"}, {"query": "legal", "command_id": "c"}, {"query": "state"}):
                    refused = await _ask(socket, frame)
                    assert (refused["status"], refused["error"]["code"]) == (400, "invalid_request"), frame
                assert (await client.operator_state(game_id))[0] == before, "a refused frame changed the game"
            command = rng.choice(legal[seat]["commands"])
            answer = await _ask(socket, {"command_id": f"m{moves}", "command": command,
                                         "expected_version": version, "include": "legal"})
            assert answer["status"] == 200, answer
            result = answer["result"]
            assert result["first_version"] == version + 1 and not result["duplicate"]
            again = await _ask(socket, {"command_id": f"m{moves}", "command": command})
            assert again["result"]["duplicate"] and again["result"]["last_version"] == result["last_version"]
            version, moves = result["last_version"], moves + 1
            legal = {s: await client.legal(game_id, t) for s, t in tokens.items()}
            assert legal[seat]["commands"] == result["legal"]
            for other, other_socket in sockets.items():  # the socket's own query answers what GET /legal does
                asked = await _ask(other_socket, {"query": "legal"})
                assert asked["status"] == 200
                if asked["result"]["version"] != legal[other]["version"]:  # game_scored came in between
                    legal[other] = await client.legal(game_id, tokens[other])
                assert asked["result"] == legal[other]
            if moves >= 40:
                break
        stored = (await client.operator_state(game_id))[0]
        over = not any(answer["commands"] for answer in legal.values())
        assert moves > 0 and (stored == version or over and stored > version), "game_scored may follow the end"
    finally:
        for socket in sockets.values():
            await socket.close()


async def test_a_socket_without_a_valid_token_of_this_game_is_refused_and_closed(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    game_type = GAMES[0]
    engine = get_engine(game_type)
    game_id, tokens = await start_bot_game(client, game_type, engine.min_seats, name="wsbad")
    other_id, _ = await start_bot_game(client, game_type, engine.min_seats, name="wsother")
    for token, status, code in ((None, 401, "missing_token"), ("forged", 401, None)):
        async with connect(_socket_url(platform, game_id, token)) as socket:
            answer = msgspec.json.decode(await socket.recv())
            assert answer["status"] == status and (code is None or answer["error"]["code"] == code)
            with pytest.raises(ConnectionClosed) as closed:
                await socket.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4000 + status
    async with connect(_socket_url(platform, other_id, tokens[0])) as socket:  # a token of another game
        answer = await _ask(socket, {"command_id": "c", "command": {"type": "anything"}})
        assert (answer["status"], answer["error"]["code"]) == (403, "wrong_game")


@pytest.mark.parametrize("game_type", GAMES)
async def test_sockets_that_ask_for_turn_pushes_get_their_legal_commands_when_prompted(
    platform: LocalPlatform, client: BenthicClient, game_type: str
) -> None:
    engine = get_engine(game_type)
    seats = max(engine.min_seats, 2)
    game_id, tokens = await start_bot_game(client, game_type, seats, name=f"push{random.randrange(10**6)}")
    rng = random.Random(11)
    pushing = {seat: await connect(_socket_url(platform, game_id, token) + "&push=turns")
               for seat, token in tokens.items() if seat != 0}
    quiet = await connect(_socket_url(platform, game_id, tokens[0]))  # seat 0 asks for no pushes
    sockets = {0: quiet, **pushing}
    try:
        pushes = 0
        for move in range(30):
            legal = {seat: await client.legal(game_id, token) for seat, token in tokens.items()}
            movers = [seat for seat, answer in legal.items() if answer["commands"]]
            if not movers:
                break
            seat = rng.choice(movers)
            answer = await _ask(sockets[seat], {"command_id": f"p{move}",
                                                "command": rng.choice(legal[seat]["commands"]),
                                                "expected_version": legal[seat]["version"]})
            assert answer["status"] == 200, answer
            version = answer["result"]["last_version"]
            now = {s: await client.legal(game_id, t) for s, t in tokens.items()}
            for other, socket in pushing.items():
                if other == seat or not now[other]["commands"] or now[other]["version"] != version:
                    continue  # not prompted (no push), or a platform event came in between
                pushed = msgspec.json.decode(await asyncio.wait_for(socket.recv(), 5))
                assert (pushed["status"], pushed["push"]) == (200, "turn")
                assert pushed["result"] == now[other], "a push is the legal answer of that moment"
                pushes += 1
        assert pushes > 0
        with pytest.raises(TimeoutError):  # the socket that asked for none got none
            await asyncio.wait_for(quiet.recv(), 0.3)
    finally:
        for socket in sockets.values():
            await socket.close()
    async with connect(_socket_url(platform, game_id, tokens[0]) + "&push=everything") as socket:
        refused = msgspec.json.decode(await socket.recv())
        assert (refused["status"], refused["error"]["code"]) == (400, "invalid_request")
        with pytest.raises(ConnectionClosed) as closed:
            await socket.recv()
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4400


def _raw_request(host: str, port: int, path: str, headers: list[tuple[str, str]], upgrade: bool) -> bytes:
    """Send one request's head over a raw socket; what comes back before the server closes (at most 5 s: a
    server that neither answers nor closes fails the test, as the play socket's handshake did)."""
    lines = [f"GET {path} HTTP/1.1", f"Host: {host}:{port}"]
    if upgrade:
        lines += ["Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
                  "Sec-WebSocket-Version: 13"]
    else:
        lines.append("Connection: close")
    lines += [f"{name}: {value}" for name, value in headers]
    with socket.create_connection((host, port), timeout=5) as raw:
        raw.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        answer = b""
        try:
            while chunk := raw.recv(65536):
                answer += chunk
                if upgrade and answer.startswith(b"HTTP/1.1 101"):
                    break  # a WebSocket: it stays open
        except TimeoutError:
            raise AssertionError(f"no answer and no close within 5 s; got {answer[:200]!r}") from None
    return answer


OVERSIZED = [  # (what, extra header fields, padding of the target, status, code)
    ("a 10 KB Accept-Language", [("Accept-Language", "a" * 10_000)], 0, 431, "request_headers_too_large"),
    ("200 header fields", [(f"X-Field-{i}", "v") for i in range(200)], 0, 431, "request_headers_too_large"),
    ("a 9 KB request line", [], 9_000, 414, "request_line_too_long"),
    ("a 1 MB header field", [("X-Big", "b" * 1_000_000)], 0, 431, "request_headers_too_large"),
]


async def test_an_oversized_handshake_is_answered_at_once_with_the_limits_of_plain_http(
    platform: LocalPlatform, client: BenthicClient
) -> None:
    """Issue 33: a handshake of the play socket whose head is over the limits (benthic.service.headlimits) hung,
    neither answered nor closed.  Now the play socket and a plain HTTP request get the same answer for the same
    head: the status and the services' error body, and the connection closed; within the limits both work."""
    game_id, tokens = await start_bot_game(client, "nautilus", 2, name=f"head{random.randrange(10**6)}")
    host, port = platform.command_url.removeprefix("http://").split(":")
    play = f"/games/{game_id}/play?token={tokens[0]}"
    plain = "/game-types/nautilus"
    for what, headers, padding, status, code in OVERSIZED:
        pad = "&pad=" + "p" * padding if padding else ""
        for path, upgrade in ((play + pad, True), (plain + ("?" + pad[1:] if pad else ""), False)):
            answer = await asyncio.to_thread(_raw_request, host, int(port), path, headers, upgrade)
            head, _, body = answer.partition(b"\r\n\r\n")
            assert head.startswith(b"HTTP/1.1 %d " % status), (what, upgrade, answer[:300])
            assert msgspec.json.decode(body)["code"] == code, (what, upgrade, body)
            assert b"connection: close" in head.lower()
    within = [("Accept-Language", "a" * 8_000), *[(f"X-Field-{i}", "v") for i in range(90)]]
    opened = await asyncio.to_thread(_raw_request, host, int(port), play + "&pad=" + "p" * 7_000, within, True)
    assert opened.startswith(b"HTTP/1.1 101 "), opened[:300]
    served = await asyncio.to_thread(_raw_request, host, int(port), plain + "?pad=" + "p" * 7_000, within, False)
    assert served.startswith(b"HTTP/1.1 200 "), served[:300]
