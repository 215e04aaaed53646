"""Dev mode only: a browser gets a player's JWT from the development issuer (the web client's sign-in).

Registered only when no identity provider is configured, which the services allow only with
``BENTHIC_ENVIRONMENT=dev`` (``config.check_identity``): in production the route does not exist (404).  It is
exactly as insecure as ``benthic dev-token``: whoever reaches it may act as any player."""

from __future__ import annotations

import time
from typing import Any

import msgspec
from litestar import Request, Response, post
from litestar.params import JSONBody

from benthic.errors import ApiError
from benthic.service.apidoc import doc
from benthic.trust.devissuer import DevIssuer
from services.command.seating import Name, PlayerId, check_player_id

TTL_S = 12 * 3600


class DevTokenRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    player: PlayerId
    name: Name = ""


class DevToken(msgspec.Struct, frozen=True):
    player_id: str
    token: str
    expires_at_ms: int
    insecure: str = "development issuer: dev only"


@post("/dev/token", status_code=200, summary="Dev mode only: a player's JWT from the development issuer",
      tags=["identity"], opt=doc("not_found", "rate_limited", "reserved_player_id"))
async def dev_token(request: Request[Any, Any, Any], data: JSONBody[DevTokenRequest]) -> Response[DevToken]:
    """`{player, name?}` → a JWT for that player id (subject), signed by the insecure development issuer.
    Served only without an identity provider (dev mode); the web client's sign-in uses it."""
    issuer: DevIssuer | None = request.app.state.dev_issuer
    if issuer is None or request.app.state.settings.environment != "dev":
        raise ApiError(404, "not_found", "the development issuer is off (an identity provider is configured)")
    check_player_id(data.player, "player")
    if len(data.name) > 64:
        raise ApiError(400, "invalid_request", "name must be at most 64 characters")
    await request.app.state.limits.hit("token", data.player, request.client.host if request.client else None)
    claims: dict[str, Any] = {"name": data.name} if data.name else {}
    token = issuer.mint(data.player, ttl_s=TTL_S, **claims)
    return Response(DevToken(data.player, token, int((time.time() + TTL_S) * 1000)),
                    headers={"Cache-Control": "no-store"})
