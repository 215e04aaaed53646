"""Every documented route of the command and read services declares its answers (``opt=doc(...)``), so the
finished OpenAPI documents give every error status the ``{code, message, details}`` body with its codes."""

from __future__ import annotations

from typing import Any

import pytest
from benthic.service.apidoc import DOC, finish
from benthic.service.config import from_env
from benthic.game.gameschemas import game_schemas
from litestar import Litestar

from services.command.app import create_app as command_app
from services.projection.app import create_app as projection_app

SETTINGS = from_env({"REDIS_URL": "redis://127.0.0.1:1/0"})


def _handlers(app: Litestar) -> list[Any]:
    return [h for route in app.routes for h in getattr(route, "route_handlers", ()) if h.resolve_include_in_schema()]


@pytest.mark.parametrize("create", [command_app, projection_app])
def test_every_documented_route_declares_its_answers(create: Any) -> None:
    app = create(SETTINGS)
    handlers = _handlers(app)
    assert len(handlers) >= 10
    missing = [sorted(h.paths) for h in handlers if DOC not in h.opt]
    assert not missing, f"routes without opt=doc(...): {missing}"
    document = finish(app.openapi_schema.to_schema(), app, game_schemas().components)
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if status[0] in "45":
                    schema = response["content"]["application/json"]["schema"]
                    assert set(schema["required"]) == {"code", "message"}, (method, path, status)
                    assert schema["properties"]["code"].get("enum") or schema["properties"]["code"].get("pattern")
