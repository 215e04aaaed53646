"""What the HTTP services share: the error body, exception mapping, health and metrics routes, and the
archive connection of the services that only read it."""

from __future__ import annotations

import re
import time
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import msgspec
from litestar import Request, Response, get
from litestar.config.cors import CORSConfig
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.params import Parameter
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from benthic.archive import Archive, ArchiveUnavailable
from benthic.errors import RETRY_AFTER_S, ApiError, store_unavailable
from benthic.i18n import negotiate
from benthic.patterns import whole
from benthic.rules import GameNotSupported
from benthic.runtime.config import Settings
from benthic.runtime.redisconn import is_unavailable
from benthic.runtime.telemetry import AUTH_REFUSALS, log, metrics_payload
from benthic.service.errormessages import localized_message
from benthic.store import GameNotFound
from benthic.store.durability import DurabilityUnconfirmed


class ErrorBody(msgspec.Struct, frozen=True):
    code: str
    message: str
    details: dict[str, Any] | None = None


def _error(
    status: int, code: str, message: str, details: dict[str, Any] | None = None, headers: dict[str, str] | None = None,
    request: Request[Any, Any, Any] | None = None,
) -> Response[ErrorBody]:
    """The error answer; its message in the language ``request`` asks for (``Content-Language`` says which)."""
    if request is not None and ("accept-language" in request.headers or "lang" in request.query_params):
        language = negotiate(request.headers.get("accept-language"), request.query_params.get("lang"))
        message = localized_message(status, code, message, language)
        headers = {**(headers or {}), "Content-Language": language, "Vary": "Accept-Language"}
    return Response(ErrorBody(code, message, details), status_code=status, headers=headers)


_HTTP_CODES = {
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


def _http_error(request: Request[Any, Any, Any], exc: HTTPException) -> Response[ErrorBody]:
    if isinstance(exc, ValidationException):
        return _error(400, "invalid_request", str(exc.detail), {"errors": exc.extra} if exc.extra else None,
                      request=request)
    if isinstance(exc, NotFoundException):
        return _error(404, "not_found", "no such resource", request=request)
    if exc.status_code == 400:  # the body could not be decoded (malformed, truncated, empty), else the request
        body = request.method in ("POST", "PUT", "PATCH")
        return _error(400, "invalid_json" if body else "invalid_request",
                      f"the body is not valid JSON: {exc.detail}" if body else str(exc.detail), request=request)
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return _error(exc.status_code, code, str(exc.detail), headers=exc.headers, request=request)  # 405: its Allow


def durability_unconfirmed(exc: DurabilityUnconfirmed) -> ApiError:
    return ApiError(
        503, "durability_unconfirmed",
        f"the write may or may not have been applied: its replication to {exc.ack.replicas} replica(s) was not "
        f"confirmed within {exc.ack.timeout_ms} ms. Sending it again with the same command_id is safe: it is then "
        "applied once, or answered as the duplicate it is",
        {"replicas_required": exc.ack.replicas, "timeout_ms": exc.ack.timeout_ms},
        headers={"Retry-After": str(RETRY_AFTER_S)},
    )


_last_outage_log = 0.0


def _log_outage(where: str, exc: BaseException) -> None:
    global _last_outage_log
    if time.monotonic() - _last_outage_log > 1.0:  # one line a second, not one per refused request
        _last_outage_log = time.monotonic()
        origin = exc.__traceback__
        while origin is not None and origin.tb_next is not None:
            origin = origin.tb_next
        at = f"{origin.tb_frame.f_code.co_filename}:{origin.tb_lineno}" if origin else ""
        log().warning("store_unavailable", path=where, error=f"{exc!r}: {exc}", at=at)


def as_api_error(exc: Exception, where: str) -> ApiError:
    """The error answer to whatever a request's handling raised (``where``: its path, for the log), the same for
    the HTTP routes and the play socket's frames."""
    if isinstance(exc, ApiError):
        return exc
    if isinstance(exc, GameNotSupported):  # counted where the fold was refused
        return ApiError(503, exc.code, f"this service cannot read the game: {exc.message}",
                        {"game_type": exc.game_type})
    if isinstance(exc, GameNotFound):  # the game left Redis between a read and a write: nothing was changed
        return ApiError(404, "game_not_found", f"no game {str(exc)!r} (it may have been archived just now)")
    if isinstance(exc, ArchiveUnavailable):
        log().warning("archive_unavailable", error=str(exc))
        return ApiError(503, "archive_unavailable", "the archive of finished games cannot be reached; retry later",
                        headers={"Retry-After": "5"})
    if isinstance(exc, DurabilityUnconfirmed):
        _log_outage(where, exc)
        return durability_unconfirmed(exc)
    if is_unavailable(exc):
        _log_outage(where, exc)
        return store_unavailable()
    log().exception("unhandled_error", path=where, error=repr(exc))
    return ApiError(HTTP_500_INTERNAL_SERVER_ERROR, "internal_error", "an internal error occurred; nothing was changed")


def _handled(request: Request[Any, Any, Any], exc: Exception) -> Response[ErrorBody]:
    error = as_api_error(exc, request.url.path)
    if error.status in (401, 403):
        AUTH_REFUSALS.labels(error.code).inc()
    return _error(error.status, error.code, error.message, error.details, error.headers, request)


EXCEPTION_HANDLERS: dict[Any, Callable[..., Response[ErrorBody]]] = {
    HTTPException: _http_error,  # Litestar's own: validation, decoding, routing
    Exception: _handled,  # everything else (as_api_error)
}


async def open_archive_reader(settings: Settings, service: str) -> Archive | None:
    """The archive for a service that only reads it (None when BENTHIC_ARCHIVE_URL is unset): connecting
    in the background, so the service starts and serves live games while PostgreSQL is down."""
    if not settings.archive_url:
        return None
    archive = Archive(settings.archive_url, settings.archive_pool, timeout_s=2.0, name=f"benthic-{service}")
    return await archive.open(wait=False)


@get("/metrics", include_in_schema=False, sync_to_thread=False)
def metrics() -> Response[bytes]:
    payload, content_type = metrics_payload()
    return Response(payload, media_type=content_type)


def health_routes(ready: Callable[[], Awaitable[dict[str, Any]]]) -> list[Any]:
    """``/healthz``: the process serves.  ``/readyz``: it can do its job now (``ready`` raises or returns
    a report with ``ok``; it must answer from what the process already knows, never wait on a busy pool)."""

    @get("/healthz", include_in_schema=False, sync_to_thread=False)
    def healthz() -> dict[str, str]:
        return {"status": "ok"}

    @get("/readyz", include_in_schema=False)
    async def readyz() -> Response[dict[str, Any]]:
        try:
            report = await ready()
        except Exception as exc:  # noqa: BLE001 - any failure means not ready
            return Response({"ok": False, "error": repr(exc)}, status_code=503)
        return Response(report, status_code=200 if report.get("ok") else 503)

    return [healthz, readyz, metrics]


MAX_BODY_DEPTH = 32  # arrays and objects inside each other: real bodies nest 6 deep at most
_STRINGS = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_BRACKETS = re.compile(rb"[\[\]{}]")


def too_deep(raw: bytes, limit: int = MAX_BODY_DEPTH) -> bool:
    """Whether the JSON text ``raw`` nests arrays and objects more than ``limit`` deep (strings skipped)."""
    if raw.count(b"[") + raw.count(b"{") <= limit:
        return False  # the common case, without a scan
    depth = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub(b"", raw)):
        depth += 1 if bracket in (b"[", b"{") else -1
        if depth > limit:
            return True
    return False


async def refuse_deep_bodies(request: Request[Any, Any, Any]) -> None:
    """``before_request`` of the services: a body nested deeper than MAX_BODY_DEPTH is refused before it is
    decoded (decoders recurse once per level: a thousand levels would exhaust the interpreter's stack)."""
    if request.method in ("POST", "PUT", "PATCH") and too_deep(await request.body()):
        raise ApiError(400, "body_too_deep", f"the body nests arrays and objects more than {MAX_BODY_DEPTH} deep")


# --- path parameters, as enforced and documented ------------------------------------------------------------------

GameId = Annotated[str, Parameter(pattern=whole(r"[A-Za-z0-9_.:\-]{1,128}"), description="a game id (as created)")]
# Routes name it `{seat:str}`: Litestar parses a `{seat:int}` segment with Python's int(), which takes "0\n", " 0"
# or "٠" for 0; from a string, msgspec takes the digits and nothing else (anything else: 400 invalid_request).
Seat = Annotated[int, Parameter(ge=0, description="a seat of the game, from 0")]
GAME_TYPE_PATTERN = whole(r"[a-z][a-z0-9_]{0,63}")
GameType = Annotated[str, Parameter(pattern=GAME_TYPE_PATTERN, description="a game type's name")]


# --- OpenAPI: how callers authenticate ---------------------------------------------------------------------------

def cors_config(settings: Settings) -> CORSConfig | None:
    """Browsers of ``BENTHIC_CORS_ORIGINS`` may call the API (bearer credentials only: no cookies to leak)."""
    origins = [o.strip().rstrip("/") for o in settings.cors_origins.split(",") if o.strip()]
    if not origins:
        return None
    return CORSConfig(
        allow_origins=origins, allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["Authorization", "Content-Type", "If-None-Match"],
        expose_headers=["ETag", "Retry-After", "X-Benthic-Version", "WWW-Authenticate"], max_age=600,
    )


PLAYER_JWT = "playerJwt"
SEAT_TOKEN = "seatToken"
OPERATOR = "operator"


def security_schemes(*names: str) -> dict[str, Any]:
    """The bearer credentials of the APIs (``names``: those a service uses; none: all), for
    ``OpenAPIConfig(components=Components(security_schemes=...))``."""
    from litestar.openapi.spec import SecurityScheme

    schemes = {
        PLAYER_JWT: SecurityScheme(
            type="http",
            scheme="bearer",
            bearer_format="JWT",
            description=(
                "A JWT of the platform's identity provider (RS256, ES256 or EdDSA; issuer and audience as "
                "configured; `sub` is the player id). Scope `benthic:matchmaker` makes it a trusted backend, "
                "`benthic:operator` an operator. In dev mode `benthic dev-token PLAYER` mints one."
            ),
        ),
        SEAT_TOKEN: SecurityScheme(
            type="http",
            scheme="bearer",
            description=(
                "A seat token (HMAC; names the game, the seat and the player; expires). Issued on create/join "
                "and by `POST /games/{id}/token` or `GET /players/me/seats` with the player's JWT."
            ),
        ),
        OPERATOR: SecurityScheme(
            type="http",
            scheme="bearer",
            description="The operator token (BENTHIC_OPERATOR_TOKEN), or a JWT with scope `benthic:operator`.",
        ),
    }
    return {name: scheme for name, scheme in schemes.items() if not names or name in names}
