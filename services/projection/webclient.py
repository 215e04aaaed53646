"""The web client: static ES modules and CSS under ``web/`` served at ``/app`` (no build step), and the one
setting a browser needs to find the command API."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import msgspec
from litestar import Request, get
from litestar.datastructures import CacheControlHeader
from litestar.params import FromQuery
from litestar.response import Redirect, Response
from litestar.static_files import create_static_files_router

from benthic.i18n import negotiate
from benthic.runtime.config import Settings
from benthic.service.apidoc import doc

from .webwords import ClientMessages, client_messages

WEB_DIR = Path(__file__).parent / "web"


@get("/", include_in_schema=False, sync_to_thread=False)
def root() -> Redirect:
    return Redirect("/app/")


class ClientConfig(msgspec.Struct, frozen=True):
    command_url: str | None  # BENTHIC_PUBLIC_COMMAND_URL; null: the page's host with command_port
    command_port: int
    matchmaker_url: str | None = None  # BENTHIC_PUBLIC_MATCHMAKER_URL; null: the page's host with matchmaker_port
    matchmaker_port: int = 8007


@get("/client-config", summary="The web client's settings: where the command API is", tags=["web"],
     sync_to_thread=False, opt=doc(store=False))
def client_config(request: Request[Any, Any, Any]) -> ClientConfig:
    """`command_url` (BENTHIC_PUBLIC_COMMAND_URL) or null, then the client uses the page's host with
    `command_port`; the matchmaker's the same way (BENTHIC_PUBLIC_MATCHMAKER_URL, `matchmaker_port`)."""
    settings: Settings = request.app.state.settings
    return ClientConfig(settings.public_command_url or None, settings.command_port,
                        settings.public_matchmaker_url or None, settings.matchmaker_port)


@get("/app/messages.json", summary="The web client's own words in a language", tags=["web"],
     sync_to_thread=False, opt=doc(store=False, ok=ClientMessages, not_modified=True,
                                   ok_headers={"ETag": "a digest of the body"}))
def messages(request: Request[Any, Any, Any], lang: FromQuery[str | None] = None) -> Response[bytes]:
    """`messages`: each English text of the web client -> its text in `language` (the best of `lang`, a
    language tag or a list like Accept-Language's, that we have; else English).  Cacheable: the language is
    in the URL; revalidated with its ETag (a new release may have new words)."""
    language = negotiate(lang or request.headers.get("accept-language"))
    body, etag = client_messages(language)
    headers = {"ETag": etag, "Cache-Control": "no-cache"}
    if request.headers.get("if-none-match") == etag:
        return Response(b"", status_code=304, headers=headers)
    return Response(body, media_type="application/json", headers=headers)


def web_routes() -> list[Any]:
    static = create_static_files_router(
        "/app", [WEB_DIR], html_mode=True, name="web", cache_control=CacheControlHeader(no_cache=True),
    )
    return [root, client_config, messages, static]
