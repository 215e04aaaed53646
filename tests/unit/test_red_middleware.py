"""The HTTP metrics middleware counts and times every request under its own label set (the children it keeps
from one request to the next are the metric's own series)."""

from __future__ import annotations

import asyncio
from typing import Any

from prometheus_client import REGISTRY

from benthic.runtime.telemetry import red_middleware


def _app(status: int) -> Any:
    async def app(scope: Any, receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": status})
        await send({"type": "http.response.body", "body": b"{}"})
    return app


def _value(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def test_each_route_method_and_status_is_counted_and_timed_apart() -> None:
    service, route = "red-test", "/games/{game_id:str}/commands"

    async def sent(message: Any) -> None:
        return None

    async def requests() -> None:
        ok, missing = red_middleware(service)(_app(200)), red_middleware(service)(_app(404))
        for app, method in ((ok, "POST"), (ok, "POST"), (missing, "POST"), (ok, "GET")):
            await app({"type": "http", "method": method, "path_template": route}, None, sent)

    asyncio.run(requests())
    count = "benthic_http_requests_total"
    assert _value(count, service=service, method="POST", route=route, status="200") == 2
    assert _value(count, service=service, method="POST", route=route, status="404") == 1
    assert _value(count, service=service, method="GET", route=route, status="200") == 1
    timed = "benthic_http_request_duration_seconds_count"
    assert _value(timed, service=service, method="POST", route=route) == 3
    assert _value(timed, service=service, method="GET", route=route) == 1
