"""The message catalogues, read once at import from ``locales/<lang>/LC_MESSAGES/benthic.po`` with Babel.

The ``.po`` files are read as they are (no compiled ``.mo``): they are the only copy in the repository, the
package has no build step, and reading them costs a few milliseconds once per process.  A plural message
(``msgid_plural``) takes the form that the catalogue's ``Plural-Forms`` rule picks.  A missing or fuzzy
translation falls back to the English msgid (``tests/unit/test_i18n_catalogue.py`` fails on any).
"""

from __future__ import annotations

from collections.abc import Callable
from gettext import c2py
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


class _Table:
    """One language's translations: msgid -> text, (singular, plural) -> forms, and the rule that picks a form
    for a count (the catalogue's ``Plural-Forms`` header)."""

    def __init__(self, catalog: Catalog) -> None:
        self.texts: dict[str, str] = {}
        self.plurals: dict[tuple[str, str], tuple[str, ...]] = {}
        self.form: Callable[[int], int] = c2py(catalog.plural_expr)
        for m in catalog:
            if not m.id or m.fuzzy:
                continue
            if isinstance(m.id, str) and isinstance(m.string, str) and m.string:
                self.texts[m.id] = m.string
            elif isinstance(m.id, (tuple, list)) and isinstance(m.string, (tuple, list)) and all(m.string):
                self.plurals[(m.id[0], m.id[1])] = tuple(m.string)


_TABLES: dict[str, _Table] = {lang: _Table(read_catalog(lang)) for lang in LANGUAGES if lang != DEFAULT_LANGUAGE}


def gettext(language: str, key: str) -> str:
    """``key`` (an English text or template) in ``language``; the key itself when there is no translation."""
    table = _TABLES.get(language)
    return table.texts.get(key, key) if table is not None else key


def ngettext(language: str, singular: str, plural: str, n: int) -> str:
    """The form of (``singular``, ``plural``) for count ``n`` in ``language``; English's when untranslated."""
    table = _TABLES.get(language)
    forms = table.plurals.get((singular, plural)) if table is not None else None
    if table is None or forms is None:
        return singular if n == 1 else plural
    return forms[min(table.form(n), len(forms) - 1)]
