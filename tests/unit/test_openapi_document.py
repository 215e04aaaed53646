"""Every documented route of the command and read services declares its answers (``opt=doc(...)``), so the
finished OpenAPI documents give every error status the ``{code, message, details}`` body with its codes."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from litestar import Litestar

from benthic.game.gameschemas import game_schemas
from benthic.runtime.config import from_env
from benthic.service.apidoc import DOC, FinishedJson, finish
from services.command.app import create_app as command_app
from services.matchmaker.app import create_app as matchmaker_app
from services.notifier.app import create_app as notifier_app
from services.projection.app import create_app as projection_app

SETTINGS = from_env({"REDIS_URL": "redis://127.0.0.1:1/0"})


def _handlers(app: Litestar) -> list[Any]:
    return [h for route in app.routes for h in getattr(route, "route_handlers", ()) if h.resolve_include_in_schema()]


@pytest.mark.parametrize(("create", "at_least"), [(command_app, 10), (projection_app, 10), (notifier_app, 5),
                                                  (matchmaker_app, 12)])
def test_every_documented_route_declares_its_answers(create: Any, at_least: int) -> None:
    app = create(SETTINGS)
    handlers = _handlers(app)
    assert len(handlers) >= at_least
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


def _served(create: Any) -> dict[str, Any]:
    """The document as `/schema/openapi.json` serves it (its render plugin: finished, refined, portable)."""
    app = create(SETTINGS)
    plugin = next(p for p in app.openapi_config.render_plugins if isinstance(p, FinishedJson))
    return json.loads(plugin.render(SimpleNamespace(app=app), app.openapi_schema.to_schema()))  # type: ignore[arg-type]


def test_the_documents_are_in_forms_client_generators_read() -> None:
    """No tuple `items: false`, no boolean `enum`, no title shared by two components (issue 25: openapi-python-client
    refused the first and warned on the others)."""
    for create in (command_app, projection_app, notifier_app, matchmaker_app):
        document = _served(create)
        text = json.dumps(document)
        assert '"items": false' not in text
        stack: list[Any] = [document]
        while stack:
            node = stack.pop()
            if isinstance(node, dict):
                assert not (isinstance(node.get("enum"), list) and node["enum"]
                            and all(isinstance(v, bool) for v in node["enum"])), node
                stack.extend(node.values())
            elif isinstance(node, list):
                stack.extend(node)
        titles = [s["title"] for s in document["components"]["schemas"].values() if "title" in s]
        assert len(titles) == len(set(titles)), sorted(t for t in titles if titles.count(t) > 1)
    rules = _served(command_app)["components"]["schemas"]["underwater_cities.Rules"]["properties"]
    assert rules["contracts_auto_claim"] == {"type": "boolean", "default": True}


def test_openapi_python_client_generates_every_client_without_a_warning(tmp_path: Path) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("post_hooks: []\n")  # no formatter run: only what the generator says of the documents
    for name, create in (("command", command_app), ("read", projection_app), ("notifier", notifier_app),
                         ("matchmaker", matchmaker_app)):
        spec = tmp_path / f"{name}.json"
        spec.write_text(json.dumps(_served(create)))
        run = subprocess.run(
            [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(spec), "--meta", "none",
             "--output-path", str(tmp_path / name), "--config", str(config)],
            capture_output=True, text=True, timeout=300, check=False)
        printed = run.stdout + run.stderr
        assert run.returncode == 0, printed[-4000:]
        assert "warning" not in printed.lower() and "unable" not in printed.lower(), printed[:4000]
        assert (tmp_path / name / "api").is_dir() and any((tmp_path / name / "models").iterdir())


def test_the_labels_keep_their_public_schema_name() -> None:
    """The legal commands' labels are the component `Description` in the command document, as they were before the
    engines' Description and the answers' Label became two types: a client generated from the document keeps its
    type's name."""
    schemas = _served(command_app)["components"]["schemas"]
    for answer in ("LegalCommands", "CommandAccepted"):
        labels = schemas[answer]["properties"]["labels"]
        assert "#/components/schemas/Description" in json.dumps(labels), (answer, labels)
    assert set(schemas["Description"]["properties"]) == {"label", "highlights"}
    assert "Label" not in schemas


@pytest.mark.parametrize("service", ["command", "projection", "notifier", "matchmaker", "scoring", "archiver", "bots"])
def test_no_service_declares_a_route_in_a_deprecated_form(service: str) -> None:
    """Litestar warns of the forms it drops in 3.0 (inferred path and query parameters, `data` without a body
    marker, `Parameter(header=...)`) when an app is built and documented: every service uses the current ones."""
    settings = from_env({"REDIS_URL": "redis://127.0.0.1:1/0", "BENTHIC_ARCHIVE_URL": "postgresql://x@127.0.0.1:1/x"})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        app = importlib.import_module(f"services.{service}.app").create_app(settings)
        app.openapi_schema.to_schema()
    deprecated = [str(w.message) for w in caught if issubclass(w.category, DeprecationWarning)]
    assert not deprecated, "\n".join(deprecated)
