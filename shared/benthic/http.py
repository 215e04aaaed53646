"""What the three HTTP services share: the error body, exception mapping, health and metrics routes."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from litestar import Request, Response, get
from litestar.exceptions import HTTPException, NotFoundException, ValidationException
from litestar.status_codes import HTTP_500_INTERNAL_SERVER_ERROR

from benthic.redisconn import UNAVAILABLE
from benthic.telemetry import log, metrics_payload


class ErrorBody(msgspec.Struct, frozen=True):
    code: str
    message: str
    details: dict[str, Any] | None = None


class ApiError(Exception):
    """An error answer: HTTP status plus a stable ``code`` and a human ``message``."""

    def __init__(
        self, status: int, code: str, message: str, details: dict[str, Any] | None = None,
        retry_after: int | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.retry_after = retry_after


def _error(status: int, code: str, message: str, details: dict[str, Any] | None = None) -> Response[ErrorBody]:
    return Response(ErrorBody(code, message, details), status_code=status)


def _api_error(_: Request[Any, Any, Any], exc: ApiError) -> Response[ErrorBody]:
    response = _error(exc.status, exc.code, exc.message, exc.details)
    if exc.retry_after is not None:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


_HTTP_CODES = {
    400: "bad_request",
    401: "unauthorized",
    403: "forbidden",
    404: "not_found",
    405: "method_not_allowed",
    413: "body_too_large",
    415: "unsupported_media_type",
}


def _http_error(_: Request[Any, Any, Any], exc: HTTPException) -> Response[ErrorBody]:
    if isinstance(exc, ValidationException):
        return _error(400, "invalid_request", str(exc.detail), {"errors": exc.extra} if exc.extra else None)
    if isinstance(exc, NotFoundException):
        return _error(404, "not_found", "no such resource")
    if exc.status_code == 400 and "JSON is malformed" in str(exc.detail):
        return _error(400, "invalid_json", str(exc.detail))
    code = _HTTP_CODES.get(exc.status_code, "http_error")
    return _error(exc.status_code, code, str(exc.detail))


def _unexpected(request: Request[Any, Any, Any], exc: Exception) -> Response[ErrorBody]:
    log().exception("unhandled_error", path=request.url.path, error=repr(exc))
    return _error(HTTP_500_INTERNAL_SERVER_ERROR, "internal_error", "an internal error occurred; nothing was changed")


RETRY_AFTER_S = 1


def store_unavailable() -> ApiError:
    return ApiError(503, "store_unavailable", "the store cannot answer right now; nothing was changed, retry shortly")


_last_outage_log = 0.0


def _unavailable(request: Request[Any, Any, Any], exc: Exception) -> Response[ErrorBody]:
    global _last_outage_log
    if time.monotonic() - _last_outage_log > 1.0:  # one line a second, not one per refused request
        _last_outage_log = time.monotonic()
        log().warning("store_unavailable", path=request.url.path, error=repr(exc))
    error = store_unavailable()
    return Response(
        ErrorBody(error.code, error.message), status_code=503, headers={"Retry-After": str(RETRY_AFTER_S)}
    )


EXCEPTION_HANDLERS: dict[Any, Callable[..., Response[ErrorBody]]] = {
    ApiError: _api_error,
    HTTPException: _http_error,
    **{kind: _unavailable for kind in UNAVAILABLE},
    Exception: _unexpected,
}


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


def decode_body(raw: bytes, kind: type[Any], what: str) -> Any:
    try:
        return msgspec.json.decode(raw, type=kind)
    except msgspec.DecodeError as exc:
        if isinstance(exc, msgspec.ValidationError):
            raise ApiError(400, "invalid_request", f"{what}: {exc}") from None
        raise ApiError(400, "invalid_json", f"the body is not valid JSON: {exc}") from None
