"""The limits of a request's head (benthic.service.headlimits) in a uvicorn of this process, over raw sockets: the
same answers for a plain request and a WebSocket handshake, at once, and the WebSocket layer's own refusals
answered too (uvicorn's websockets-sansio protocol left them unanswered, the socket open: issue 33)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import msgspec
import pytest
import uvicorn
from litestar import Litestar, get, websocket
from litestar.connection import WebSocket
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from benthic.local.devredis import free_port
from benthic.service.headlimits import (
    MAX_FIELD,
    MAX_FIELDS,
    MAX_TARGET,
    AnsweringWebSocketProtocol,
    BoundedHttpToolsProtocol,
)

KEY = "dGhlIHNhbXBsZSBub25jZQ=="


@get("/plain", sync_to_thread=False)
def plain() -> dict[str, str]:
    return {"ok": "yes"}


@websocket("/socket")
async def socket_route(socket: WebSocket[Any, Any, Any]) -> None:
    await socket.accept()
    await socket.send_text("hello")
    await socket.close()


async def _serve(http_protocol: type[asyncio.Protocol]) -> AsyncIterator[int]:
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(Litestar([plain, socket_route]), host="127.0.0.1", port=port,
                                           log_config=None, lifespan="off", http=http_protocol,
                                           ws=AnsweringWebSocketProtocol))
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield port
    finally:
        server.should_exit = True
        await serving


@pytest.fixture
async def bounded() -> AsyncIterator[int]:
    async for port in _serve(BoundedHttpToolsProtocol):
        yield port


@pytest.fixture
async def stock_http() -> AsyncIterator[int]:
    """uvicorn's own httptools protocol (no limits of its own) before the answering WebSocket protocol."""
    async for port in _serve(HttpToolsProtocol):
        yield port


async def _ask(port: int, path: str, fields: list[tuple[str, str]], upgrade: bool) -> tuple[int, bytes]:
    """(status, body) of one request head sent raw; at most 5 s for an answer and the close (or a 101)."""
    lines = [f"GET {path} HTTP/1.1", f"Host: 127.0.0.1:{port}"]
    lines += (["Upgrade: websocket", "Connection: Upgrade", f"Sec-WebSocket-Key: {KEY}", "Sec-WebSocket-Version: 13"]
              if upgrade else ["Connection: close"])
    lines += [f"{name}: {value}" for name, value in fields]
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode())
        await writer.drain()
        answer = b""
        async with asyncio.timeout(5):
            while chunk := await reader.read(65536):
                answer += chunk
                if answer.startswith(b"HTTP/1.1 101") and b"\r\n\r\n" in answer:
                    break
    finally:
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split(b" ", 2)[1]), body


def _code(body: bytes) -> str:
    return str(msgspec.json.decode(body)["code"])


@pytest.mark.parametrize("upgrade", [False, True], ids=["plain", "handshake"])
async def test_a_head_over_the_limits_is_answered_the_same_over_plain_http_and_a_handshake(
    bounded: int, upgrade: bool
) -> None:
    path = "/socket" if upgrade else "/plain"
    over = [
        ([("Accept-Language", "a" * 10_000)], "", 431, "request_headers_too_large"),
        ([("X-A", "a" * (MAX_FIELD - len("x-a: ") + 1))], "", 431, "request_headers_too_large"),
        ([(f"X-Field-{i}", "v") for i in range(200)], "", 431, "request_headers_too_large"),
        ([("X-Big", "b" * 2_000_000)], "", 431, "request_headers_too_large"),
        ([], "?pad=" + "p" * 9_000, 414, "request_line_too_long"),
    ]
    for fields, query, status, code in over:
        answered = await _ask(bounded, path + query, fields, upgrade)
        assert (answered[0], _code(answered[1])) == (status, code), (len(fields), len(query))
    within = [("X-A", "a" * (MAX_FIELD - len("x-a: "))), *[(f"X-Field-{i}", "v") for i in range(MAX_FIELDS - 7)]]
    query = "?pad=" + "p" * (MAX_TARGET - len(path) - len("?pad="))
    assert (await _ask(bounded, path + query, within, upgrade))[0] == (101 if upgrade else 200)


async def test_a_handshake_the_websocket_library_refuses_is_answered(stock_http: int) -> None:
    """Past uvicorn's own HTTP parsing (no limits of its own), the ``websockets`` library refuses a handshake with
    more than 128 header fields or a line over 8 KiB: answered 431 and closed, not left open."""
    assert (await _ask(stock_http, "/socket", [], True))[0] == 101
    for fields in ([(f"X-Field-{i}", "v") for i in range(200)], [("X-Big", "b" * 10_000)]):
        status, body = await _ask(stock_http, "/socket", fields, True)
        assert (status, _code(body)) == (431, "request_headers_too_large")
    status, body = await _ask(stock_http, "/socket?pad=" + "p" * 9_000, [], True)
    assert (status, _code(body)) == (414, "request_line_too_long")
