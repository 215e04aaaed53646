"""Writes every msgid the services use (benthic.i18n.keys) into each translated language's .po file, keeping
the translations it already has (new keys get an empty msgstr for a translator; keys no longer used are
dropped).  Run after adding a ``msg("...")`` or a catalogue text: ``.venv/bin/python scripts/i18n_update.py``."""

from __future__ import annotations

import os
import sys

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

from benthic.i18n.catalogs import DEFAULT_LANGUAGE, DOMAIN, LANGUAGES, po_path, read_catalog
from benthic.i18n.keys import all_keys
from benthic.service.errormessages import error_keys


def update(language: str) -> tuple[int, int]:
    """(keys, keys without a translation) after writing ``language``'s .po."""
    old = read_catalog(language) if os.path.exists(po_path(language)) else Catalog(locale=language)
    catalog = Catalog(locale=language, domain=DOMAIN, project="Benthic", charset="utf-8", fuzzy=False,
                      creation_date=old.creation_date)  # a diff shows only what changed
    missing = 0
    for key, where in sorted({**all_keys(), **error_keys()}.items()):
        known = old.get(key)
        string = known.string if known is not None and isinstance(known.string, str) else ""
        missing += not string
        flags = ["python-brace-format"] if "{" in key else []
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
