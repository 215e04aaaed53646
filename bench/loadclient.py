"""The load generator's client of the command service: the bots' calls over HTTP (aiohttp + msgspec) and, for
seats playing over the WebSocket, the same calls as frames on ``WS /games/{id}/play``."""

from __future__ import annotations

import asyncio
import contextlib
import uuid
from typing import Any

import aiohttp
import msgspec

from benthic.clients.client import ApiFailure


class LoadClient:
    """The three calls the bots make, on aiohttp + msgspec: the load generator shares the machine with the
    services, and httpx's connection pool alone would cost it most of a core at a few hundred games."""

    def __init__(self, command_url: str, mint: Any) -> None:
        self.command_url = command_url
        self.socket_url = command_url.replace("http://", "ws://", 1)
        self.mint = mint
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=60)
        )
        self._json = msgspec.json.Encoder()

    async def _call(self, method: str, path: str, token: str | None, body: Any = None) -> Any:
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        data = self._json.encode(body) if body is not None else None
        async with self.session.request(method, f"{self.command_url}{path}", data=data, headers=headers) as reply:
            raw = await reply.read()
        if reply.status >= 400:
            error = msgspec.json.decode(raw)
            raise ApiFailure(reply.status, error.get("code", "http_error"), error.get("message", ""))
        return msgspec.json.decode(raw)

    async def create_game(self, game_type: str, seats: list[Any], options: Any = None, seed: Any = None) -> Any:
        matchmaker = self.mint("bench-matchmaker", ("benthic:matchmaker",))
        return await self._call("POST", "/games", matchmaker, {"game_type": game_type, "seats": seats,
                                                                "options": options or {}})

    async def seat_token(self, game_id: str, player_id: str) -> Any:
        return await self._call("POST", f"/games/{game_id}/token", self.mint(player_id))

    async def legal(self, game_id: str, token: str) -> Any:
        return await self._call("GET", f"/games/{game_id}/legal", token)

    async def play(self, game_id: str, token: str, command: Any, command_id: str | None = None,
                   expected_version: int | None = None, include_legal: bool = False) -> Any:
        body = {"command_id": command_id or uuid.uuid4().hex, "command": command,
                "expected_version": expected_version}
        path = f"/games/{game_id}/commands" + ("?include=legal" if include_legal else "")
        return await self._call("POST", path, token, body)

    async def socket(self, game_id: str, token: str, pushes: bool = False) -> PlaySocket:
        """A WebSocket play channel of one seat (``WS /games/{id}/play``, with turn pushes if asked)."""
        ws = await self.session.ws_connect(f"{self.socket_url}/games/{game_id}/play"
                                           + ("?push=turns" if pushes else ""),
                                           headers={"authorization": f"Bearer {token}"})
        return PlaySocket(ws, pushes)

    async def aclose(self) -> None:
        await self.session.close()


class SocketPlays:
    """``LoadClient``'s calls, with every command and legal query sent over the seat's WebSocket (opened on its
    first use, kept for the game), which asks for turn pushes: what a client playing a whole game on one
    connection does.  A seat's turn comes as a push when the last commit was made over a socket (all of them
    here); the seat asks ``{query: legal}`` only when none came."""

    def __init__(self, client: LoadClient) -> None:
        self.client = client
        self.sockets: dict[tuple[str, str], PlaySocket] = {}
        self.versions: dict[str, int] = {}  # game -> the newest version an answer named

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    async def _socket(self, game_id: str, token: str) -> PlaySocket:
        socket = self.sockets.get((game_id, token))
        if socket is None:
            socket = self.sockets[(game_id, token)] = await self.client.socket(game_id, token, pushes=True)
        return socket

    async def play(self, game_id: str, token: str, command: Any, command_id: str | None = None,
                   expected_version: int | None = None, include_legal: bool = False) -> Any:
        socket = await self._socket(game_id, token)
        answer = await socket.play(command, command_id, expected_version, include_legal)
        self.versions[game_id] = max(self.versions.get(game_id, 0), answer["last_version"])
        return answer

    async def legal(self, game_id: str, token: str) -> Any:
        opened = (game_id, token) in self.sockets  # a socket opened now has had no push yet: ask at once
        socket = await self._socket(game_id, token)
        return await socket.legal(self.versions.get(game_id) if opened else None)

    async def close_game(self, game_id: str) -> None:
        self.versions.pop(game_id, None)
        for key in [key for key in self.sockets if key[0] == game_id]:
            await self.sockets.pop(key).aclose()


PUSH_WAIT_S = 0.02  # how long a seat whose turn it is waits for its push before asking


class PlaySocket:
    """One seat's commands over the command service's WebSocket: the same answers as ``LoadClient.play``.  With
    ``pushes``, a reader task tells the pushed turns (kept: the newest) from the answers."""

    def __init__(self, ws: Any, pushes: bool = False) -> None:
        self.ws = ws
        self._json = msgspec.json.Encoder()
        self.turn: dict[str, Any] | None = None  # the newest pushed legal answer not used yet
        self._turned = asyncio.Event()
        self._pending: asyncio.Future[Any] | None = None
        self._reader = asyncio.create_task(self._read()) if pushes else None

    async def play(self, command: Any, command_id: str | None = None, expected_version: int | None = None,
                   include_legal: bool = False) -> Any:
        frame = {"command_id": command_id or uuid.uuid4().hex, "command": command,
                 "expected_version": expected_version, "include": "legal" if include_legal else None}
        return await self._ask(frame)

    async def legal(self, at_least: int | None = None) -> Any:
        """The seat's legal commands: its pushed turn when one at ``at_least`` or later came (waiting a little
        for it), else asked for."""
        if self._reader is not None and at_least is not None:
            if self.turn is None or self.turn["version"] < at_least:
                self._turned.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._turned.wait(), PUSH_WAIT_S)
            turn, self.turn = self.turn, None
            if turn is not None and turn["version"] >= at_least:
                return turn
        return await self._ask({"query": "legal"})

    async def _ask(self, frame: dict[str, Any]) -> Any:
        if self._reader is None:
            await self.ws.send_str(self._json.encode(frame).decode())
            answer = msgspec.json.decode(await self.ws.receive_str())
        else:
            self._pending = asyncio.get_running_loop().create_future()  # before sending: the reader may answer
            await self.ws.send_str(self._json.encode(frame).decode())
            answer = await self._pending
        if answer["status"] >= 400:
            error = answer["error"]
            raise ApiFailure(answer["status"], error["code"], error["message"])
        return answer["result"]

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                if message.type is not aiohttp.WSMsgType.TEXT:
                    break
                frame = msgspec.json.decode(message.data)
                if frame.get("push"):
                    self.turn = frame["result"]
                    self._turned.set()
                elif self._pending is not None and not self._pending.done():
                    self._pending.set_result(frame)
        finally:
            if self._pending is not None and not self._pending.done():
                self._pending.set_exception(ConnectionError("the play socket closed"))

    async def aclose(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        await self.ws.close()
