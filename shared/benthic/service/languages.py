"""The language of an answer over HTTP: ``?lang=`` or ``Accept-Language`` (``benthic.i18n.negotiate``), and the
headers that say which one was chosen (``Content-Language``) and that the answer depends on the request's
``Accept-Language`` (``Vary``, so shared caches keep one copy per language)."""

from __future__ import annotations

from typing import Annotated, Any

from litestar import Request
from litestar.params import Parameter

from benthic.i18n import LANGUAGES, negotiate

Lang = Annotated[str | None, Parameter(
    max_length=35,
    description=f"the language of the texts ({', '.join(LANGUAGES)}); overrides `Accept-Language`; an unknown "
                "one falls back to English")]


def request_language(request: Request[Any, Any, Any], lang: str | None) -> str:
    return negotiate(request.headers.get("accept-language"), lang)


def language_headers(language: str) -> dict[str, str]:
    return {"Content-Language": language, "Vary": "Accept-Language"}
