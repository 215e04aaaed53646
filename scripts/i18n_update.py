"""Writes every msgid the services use (benthic.i18n.keys) into each translated language's .po file, keeping
the translations it already has (new keys get an empty msgstr for a translator; keys no longer used are
dropped), and the web client's (``t("...")`` in services/projection/web/js).  Run after adding a ``msg("...")``,
a ``t("...")`` or a catalogue text: ``.venv/bin/python scripts/i18n_update.py``."""

from __future__ import annotations

import os
import sys

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from benthic.i18n.catalogs import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, po_path, read_catalog
from benthic.i18n.keys import all_keys
from benthic.service.errormessages import error_keys
from services.projection.webwords import client_keys


def _order(key: str | tuple[str, str]) -> str:
    return key if isinstance(key, str) else key[0]


def _known(old: Catalog, key: str | tuple[str, str]) -> str | tuple[str, ...]:
    """The translation ``old`` has of ``key``; a plural key whose two forms were two keys keeps both."""
    if isinstance(key, str):
        found = old.get(key)
        return found.string if found is not None and isinstance(found.string, str) else ""
    found = old.get(key[0])
    if found is not None and isinstance(found.string, (tuple, list)) and found.id == key:
        return tuple(found.string)
    return tuple(_text(old, form) for form in key)


def _text(old: Catalog, key: str) -> str:
    found = old.get(key)
    return found.string if found is not None and isinstance(found.string, str) else ""


def update(language: str) -> tuple[int, int]:
    """(keys, keys without a translation) after writing ``language``'s .po."""
    old = read_catalog(language) if os.path.exists(po_path(language)) else Catalog(locale=language)
    catalog = Catalog(locale=language, domain=DOMAIN, project="Benthic", charset="utf-8", fuzzy=False,
                      creation_date=old.creation_date)  # a diff shows only what changed
    missing = 0
    keys: dict[str | tuple[str, str], str] = dict(all_keys())
    keys.update(error_keys())
    for key, where in client_keys().items():  # the web client's own words: t("...") in services/projection/web/js
        keys.setdefault(key, where)
    for key, where in sorted(keys.items(), key=lambda item: _order(item[0])):
        string = _known(old, key)
        missing += not all(string) if isinstance(string, tuple) else not string
        flags = ["python-brace-format"] if "{" in _order(key) else []
        catalog.add(key, string, locations=[(where, 0)], flags=flags)
    os.makedirs(os.path.dirname(po_path(language)), exist_ok=True)
    with open(po_path(language), "wb") as po:
        write_po(po, catalog, width=120, omit_header=False, sort_output=True, include_lineno=False)
    return len(catalog), missing


def main() -> int:
    for language in LANGUAGES:
        if language != DEFAULT_LANGUAGE:
            total, missing = update(language)
            print(f"{language}: {total} keys, {missing} without a translation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
