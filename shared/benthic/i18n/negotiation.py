"""Which language an answer is in: ``?lang=`` when the client names one we have, else the best of the
``Accept-Language`` header (RFC 9110 §12.5.4, quality values) that we have, matched with Babel's
``negotiate_locale`` (``pt-BR`` finds ``pt``), else English.  Tags are case-insensitive (RFC 5646 §2.1.1): ``PT``,
``Pt`` and ``PT-br`` find ``pt`` too, and every answer names the language as :data:`LANGUAGES` spells it (Babel
hands back the client's own spelling), so one language has one body, one ETag and one ``Content-Language``."""

from __future__ import annotations

from functools import lru_cache

from babel.core import negotiate_locale

from benthic.i18n.catalogs import DEFAULT_LANGUAGE, LANGUAGES

_OURS = {language.lower(): language for language in LANGUAGES}


def _ranked(accept_language: str) -> list[str]:
    """The header's language ranges, best first (q=0 dropped; ties keep their order)."""
    ranked: list[tuple[float, int, str]] = []
    for index, part in enumerate(accept_language.split(",")):
        tag, _, rest = part.strip().partition(";")
        tag = tag.strip()
        quality = 1.0
        for param in rest.split(";"):
            name, _, value = param.strip().partition("=")
            if name.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if tag and tag != "*" and quality > 0:
            ranked.append((-quality, index, tag))
    return [tag for _, _, tag in sorted(ranked)]


@lru_cache(maxsize=256)
def negotiate(accept_language: str | None, lang: str | None = None) -> str:
    """The language of an answer: one of :data:`LANGUAGES`."""
    for preferred in ([lang] if lang else []) + _ranked(accept_language or ""):
        found = negotiate_locale([preferred.replace("_", "-")], LANGUAGES, sep="-")
        if found is not None and found.lower() in _OURS:
            return _OURS[found.lower()]
    return DEFAULT_LANGUAGE
