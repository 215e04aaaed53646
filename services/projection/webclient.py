"""The web client: static ES modules and CSS under ``web/`` served at ``/app`` (no build step), and the one
setting a browser needs to find the command API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from litestar import Request, get
from litestar.datastructures import CacheControlHeader
from litestar.response import Redirect
from litestar.static_files import create_static_files_router

from benthic.service.apidoc import doc
from benthic.service.config import Settings

WEB_DIR = Path(__file__).parent / "web"


@get("/", include_in_schema=False, sync_to_thread=False)
def root() -> Redirect:
    return Redirect("/app/")


class ClientConfig(msgspec.Struct, frozen=True):
    command_url: str | None  # BENTHIC_PUBLIC_COMMAND_URL; null: the page's host with command_port
    command_port: int


@get("/client-config", summary="The web client's settings: where the command API is", tags=["web"],
     sync_to_thread=False, opt=doc(store=False))
def client_config(request: Request[Any, Any, Any]) -> ClientConfig:
    """`command_url` (BENTHIC_PUBLIC_COMMAND_URL) or null, then the client uses the page's host with
    `command_port`."""
    settings: Settings = request.app.state.settings
    return ClientConfig(settings.public_command_url or None, settings.command_port)


def web_routes() -> list[Any]:
    static = create_static_files_router(
        "/app", [WEB_DIR], html_mode=True, name="web", cache_control=CacheControlHeader(no_cache=True),
    )
    return [root, client_config, static]
