"""The web client's own words ("Your hand", "Lobby", toasts ...) from the same gettext catalogue as the services'.

The client writes them as ``t("English text", {params})`` and ``tn(n, "{n} move", "{n} moves", {params})`` in
``web/js/**/*.js``; their msgids are found there with Babel's JavaScript extractor (``scripts/i18n_update.py``
writes them into the ``.po`` files, ``tests/unit/test_i18n_catalogue.py`` checks Portuguese has each).  The
projection service answers them in one language as ``GET /app/messages.json?lang=``: the language is in the URL
(Chromium's HTTP cache ignored ``Vary`` for us), the body is the same for every reader of that language.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

import msgspec

from benthic.i18n.catalogs import DEFAULT_LANGUAGE, gettext, ngettext
from benthic.i18n.keys import Key, extracted_keys

WEB_JS = Path(__file__).parent / "web" / "js"
KEYWORDS = {"t": None, "tn": (2, 3)}  # t("text", params); tn(n, "singular", "plural", params)


class ClientMessages(msgspec.Struct, frozen=True):
    """``messages``: English msgid -> its text in ``language`` (a plural msgid -> its [singular, plural] forms,
    the form for a count chosen in the client with ``Intl.PluralRules``); empty for English, whose texts are the
    msgids."""

    language: str
    messages: dict[str, str | list[str]]


@cache
def client_keys() -> dict[Key, str]:
    """msgid -> the web client's file that uses it (a ``tn`` call gives one (singular, plural) msgid)."""
    return extracted_keys(WEB_JS, "javascript", KEYWORDS, prefix="web/js/")


@cache
def client_messages(language: str) -> tuple[bytes, str]:
    """The body of ``/app/messages.json`` in ``language`` and its ETag (a digest of the body)."""
    messages: dict[str, str | list[str]] = {}
    if language != DEFAULT_LANGUAGE:
        for key in client_keys():
            if isinstance(key, str):
                messages[key] = gettext(language, key)
            else:
                messages[key[0]] = [ngettext(language, key[0], key[1], 1), ngettext(language, key[0], key[1], 2)]
    body = msgspec.json.encode(ClientMessages(language, messages))
    return body, f'"{hashlib.sha256(body).hexdigest()[:16]}"'
