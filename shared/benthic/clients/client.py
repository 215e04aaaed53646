"""An HTTP client of the Benthic APIs (httpx), for the CLI, the demo bots, the load generator and tests.

Credentials: seat tokens for play and seat reads; a JWT of the identity provider for creating, joining and
getting seat tokens (``jwt=`` per call, else the client's ``jwt``, else one from ``mint`` — the development
issuer's minting function in dev and tests); the operator token for operator endpoints.  A ``429`` and a ``503
overloaded`` (a service's admission control: nothing of the request was read) are retried after their
``Retry-After`` (a few times) unless ``retry_rate_limited=False``."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Sequence
from typing import Any, cast

import httpx

MATCHMAKER_SCOPE = "benthic:matchmaker"
DEV_MATCHMAKER = "dev-matchmaker"  # the client id a minted matchmaker credential carries

Mint = Callable[..., str]  # mint(subject, scopes=()) -> JWT


class ApiFailure(Exception):
    def __init__(self, status: int, code: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.retry_after = retry_after


def _check(response: httpx.Response) -> Any:
    if response.status_code >= 400:
        try:
            body = response.json()
            code, message = body.get("code", "http_error"), body.get("message", response.text)
        except ValueError:
            code, message = "http_error", response.text
        retry_after = response.headers.get("retry-after")
        raise ApiFailure(response.status_code, code, message, float(retry_after) if retry_after else None)
    if response.status_code == 304 or not response.content:
        return None
    return response.json()


def _object(response: httpx.Response) -> dict[str, Any]:
    """``_check``'s answer where the route answers a JSON object (every route but the game-type list)."""
    return cast("dict[str, Any]", _check(response))


def _auth(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def _retryable(response: httpx.Response) -> bool:
    """A refusal that changed nothing and says when to come back: a rate limit, or an overloaded service."""
    if response.status_code == 429:
        return True
    return response.status_code == 503 and response.headers.get("content-type", "").startswith("application/json") \
        and response.json().get("code") == "overloaded"


class BenthicClient:
    def __init__(
        self,
        command_url: str = "http://127.0.0.1:8001",
        read_url: str = "http://127.0.0.1:8002",
        operator_token: str | None = None,
        timeout: float = 30.0,
        http: httpx.AsyncClient | None = None,
        jwt: str | None = None,
        mint: Mint | None = None,
        retry_rate_limited: bool = True,
    ) -> None:
        self.command_url = command_url.rstrip("/")
        self.read_url = read_url.rstrip("/")
        self.operator_token = operator_token
        self.jwt = jwt
        self.mint = mint
        self.retry_rate_limited = retry_rate_limited
        self.http = http or httpx.AsyncClient(
            timeout=timeout, limits=httpx.Limits(max_connections=512, max_keepalive_connections=512)
        )

    async def _call(self, method: str, url: str, **kwargs: Any) -> dict[str, Any]:
        for attempt in range(6):
            response = await self.http.request(method, url, **kwargs)
            if not _retryable(response) or not self.retry_rate_limited or attempt == 5:
                return _object(response)
            await asyncio.sleep(min(float(response.headers.get("retry-after", "1")), 10.0))
        raise AssertionError("unreachable")

    def player_jwt(self, player_id: str | None = None, jwt: str | None = None) -> str | None:
        """The JWT to act as ``player_id``: the one given, else a minted one, else the client's own."""
        if jwt is not None:
            return jwt
        if player_id is not None and self.mint is not None:
            return self.mint(player_id)
        return self.jwt

    def backend_jwt(self, jwt: str | None = None) -> str | None:
        """The credential to create games naming players: the one given, the client's, or a minted matchmaker."""
        if jwt is not None:
            return jwt
        if self.jwt is not None:
            return self.jwt
        if self.mint is not None:
            return self.mint(DEV_MATCHMAKER, (MATCHMAKER_SCOPE,))
        return self.operator_token

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> BenthicClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    # --- command API ---------------------------------------------------------------------------
    async def create_game(
        self,
        game_type: str,
        seats: Sequence[dict[str, str] | None],
        options: dict[str, Any] | None = None,
        seed: int | None = None,
        jwt: str | None = None,
        rated: bool | None = None,
    ) -> dict[str, Any]:
        """As ``jwt`` (a player for themselves, or a backend naming players); by default as the client's JWT or a
        minted matchmaker.  A ``seed`` needs the operator token."""
        body: dict[str, Any] = {"game_type": game_type, "seats": seats, "options": options or {}}
        if seed is not None:
            body["seed"] = seed
        if rated is not None:
            body["rated"] = rated
        credential = self.operator_token if seed is not None and jwt is None else self.backend_jwt(jwt)
        return await self._call("POST", f"{self.command_url}/games", json=body, headers=_auth(credential))

    async def join(
        self, game_id: str, player_id: str | None = None, name: str = "", seat: int | None = None,
        jwt: str | None = None,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"name": name}
        if player_id is not None:
            body["player_id"] = player_id
        if seat is not None:
            body["seat"] = seat
        return await self._call("POST", f"{self.command_url}/games/{game_id}/join", json=body,
                                headers=_auth(self.player_jwt(player_id, jwt)))

    async def seat_token(self, game_id: str, player_id: str | None = None, jwt: str | None = None) -> dict[str, Any]:
        """A fresh token for the player's seat in the game (refresh or reconnect)."""
        return await self._call("POST", f"{self.command_url}/games/{game_id}/token",
                                headers=_auth(self.player_jwt(player_id, jwt)))

    async def my_seats(self, player_id: str | None = None, jwt: str | None = None) -> dict[str, Any]:
        """Every unfinished game the player holds a seat in, with fresh tokens."""
        return await self._call("GET", f"{self.command_url}/players/me/seats",
                                headers=_auth(self.player_jwt(player_id, jwt)))

    async def revoke_game(self, game_id: str) -> dict[str, Any]:
        return await self._call("POST", f"{self.command_url}/games/{game_id}/ops/revoke",
                                headers=_auth(self.operator_token))

    async def revoke_player(self, player_id: str) -> dict[str, Any]:
        return await self._call("POST", f"{self.command_url}/players/{player_id}/ops/revoke",
                                headers=_auth(self.operator_token))

    async def audit(self, game_id: str) -> dict[str, Any]:
        return await self._call("GET", f"{self.command_url}/games/{game_id}/ops/audit",
                                headers=_auth(self.operator_token))

    async def legal(self, game_id: str, token: str) -> dict[str, Any]:
        return await self._call("GET", f"{self.command_url}/games/{game_id}/legal", headers=_auth(token))

    async def play(
        self,
        game_id: str,
        token: str,
        command: dict[str, Any],
        command_id: str | None = None,
        expected_version: int | None = None,
        include_legal: bool = False,
    ) -> dict[str, Any]:
        body: dict[str, Any] = {"command_id": command_id or uuid.uuid4().hex, "command": command}
        if expected_version is not None:
            body["expected_version"] = expected_version
        params = {"include": "legal"} if include_legal else None
        return await self._call(
            "POST", f"{self.command_url}/games/{game_id}/commands", json=body, headers=_auth(token), params=params
        )

    async def resign(self, game_id: str, token: str, command_id: str | None = None) -> dict[str, Any]:
        params = {"command_id": command_id} if command_id else None
        return await self._call("POST", f"{self.command_url}/games/{game_id}/resign", headers=_auth(token),
                                params=params)

    async def reclaim(self, game_id: str, token: str, command_id: str | None = None) -> dict[str, Any]:
        params = {"command_id": command_id} if command_id else None
        return await self._call("POST", f"{self.command_url}/games/{game_id}/reclaim", headers=_auth(token),
                                params=params)

    async def undo(
        self, game_id: str, token: str, command_id: str | None = None, expected_version: int | None = None
    ) -> dict[str, Any]:
        """Take back the seat's last move (409 ``undo_not_allowed`` says why not in ``details.reason``)."""
        body: dict[str, Any] = {"command_id": command_id or uuid.uuid4().hex}
        if expected_version is not None:
            body["expected_version"] = expected_version
        return await self._call("POST", f"{self.command_url}/games/{game_id}/undo", json=body, headers=_auth(token))

    async def abort(self, game_id: str, reason: str) -> dict[str, Any]:
        return await self._call("POST", f"{self.command_url}/games/{game_id}/ops/abort", json={"reason": reason},
                                headers=_auth(self.operator_token))

    async def operator_state(self, game_id: str) -> tuple[int, bytes]:
        """(version, the engine's msgpack encoding of the state): operator token only."""
        response = await self.http.get(
            f"{self.command_url}/games/{game_id}/ops/state", params={"format": "msgpack"},
            headers=_auth(self.operator_token),
        )
        if response.status_code >= 400:
            _check(response)
        return int(response.headers["x-benthic-version"]), response.content

    async def game_types(self) -> list[dict[str, Any]]:
        return cast("list[dict[str, Any]]", _check(await self.http.get(f"{self.command_url}/game-types")))

    # --- read API ------------------------------------------------------------------------------
    async def view(
        self,
        game_id: str,
        seat: int | None = None,
        token: str | None = None,
        after_version: int | None = None,
        wait: float = 0,
        at: int | None = None,
    ) -> dict[str, Any]:
        """The view (``at``: as it was at that version)."""
        path = f"/games/{game_id}/view" if seat is None else f"/games/{game_id}/seats/{seat}/view"
        params: dict[str, Any] = {}
        if after_version is not None:
            params = {"after_version": after_version, "wait": wait}
        if at is not None:
            params["at"] = at
        return _object(
            await self.http.get(f"{self.read_url}{path}", params=params, headers=_auth(token), timeout=wait + 30)
        )

    async def history(
        self, game_id: str, seat: int | None = None, token: str | None = None, after: int = 0, limit: int = 1000
    ) -> dict[str, Any]:
        path = f"/games/{game_id}/history" if seat is None else f"/games/{game_id}/seats/{seat}/history"
        return _object(
            await self.http.get(f"{self.read_url}{path}", params={"after": after, "limit": limit}, headers=_auth(token))
        )

    async def summary(self, game_id: str) -> dict[str, Any]:
        return _object(await self.http.get(f"{self.read_url}/games/{game_id}"))

    async def scores(self, game_id: str) -> dict[str, Any]:
        return _object(await self.http.get(f"{self.read_url}/games/{game_id}/scores"))

    async def lobby(self, game_type: str | None = None, status: str | None = None, limit: int = 50) -> dict[str, Any]:
        params: dict[str, Any] = {"limit": limit}
        if game_type:
            params["game_type"] = game_type
        if status:
            params["status"] = status
        return _object(await self.http.get(f"{self.read_url}/lobby", params=params))

    async def leaderboard(self, game_type: str, limit: int = 20) -> dict[str, Any]:
        return _object(await self.http.get(f"{self.read_url}/leaderboards/{game_type}", params={"limit": limit}))
