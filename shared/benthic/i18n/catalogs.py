"""The message catalogues, read once at import from ``locales/<lang>/LC_MESSAGES/benthic.po`` with Babel.

The ``.po`` files are read as they are (no compiled ``.mo``): they are the only copy in the repository, the
package has no build step, and reading them costs a few milliseconds once per process.  A missing or fuzzy
translation falls back to the English msgid (``tests/unit/test_i18n_catalogue.py`` fails on any).
"""

from __future__ import annotations

from importlib.resources import files

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

DOMAIN = "benthic"
DEFAULT_LANGUAGE = "en"
LANGUAGES = ("en", "pt")  # English is the source language: its texts are the msgids


def po_path(language: str) -> str:
    return str(files("benthic.i18n") / "locales" / language / "LC_MESSAGES" / f"{DOMAIN}.po")


def read_catalog(language: str) -> Catalog:
    with open(po_path(language), "rb") as po:
        return read_po(po, locale=language, domain=DOMAIN)


def _translations(language: str) -> dict[str, str]:
    return {m.id: m.string for m in read_catalog(language)
            if m.id and isinstance(m.id, str) and isinstance(m.string, str) and m.string and not m.fuzzy}


_TABLES: dict[str, dict[str, str]] = {lang: _translations(lang) for lang in LANGUAGES if lang != DEFAULT_LANGUAGE}


def gettext(language: str, key: str) -> str:
    """``key`` (an English text or template) in ``language``; the key itself when there is no translation."""
    table = _TABLES.get(language)
    return table.get(key, key) if table is not None else key
