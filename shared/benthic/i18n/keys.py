"""Every msgid the services use: the catalogue texts of every game type, and every ``msg("...")`` template in
the sources (found with Babel's Python extractor).  ``scripts/i18n_update.py`` writes them into the ``.po``
files; ``tests/unit/test_i18n_catalogue.py`` checks that Portuguese has each one."""

from __future__ import annotations

from pathlib import Path

from babel.messages.extract import extract_from_dir

from benthic.i18n.render import catalogue_texts
from benthic.rules import game_types, get_engine

SOURCES = Path(__file__).resolve().parent.parent  # shared/benthic: the engines and this package
KEYWORDS = {"msg": None, "Message": None}  # msg("template", ...), Message("template", {...})


def catalogue_keys() -> dict[str, str]:
    """msgid -> where it comes from (the game type's catalogue)."""
    return {text: f"catalogue:{game_type}" for game_type in game_types()
            for text in catalogue_texts(get_engine(game_type).catalogue())}


def source_keys() -> dict[str, str]:
    """msgid -> the source file that uses it."""
    found: dict[str, str] = {}
    for filename, _line, message, _comments, _context in extract_from_dir(
            str(SOURCES), method_map=[("**.py", "python")], keywords=KEYWORDS):
        if isinstance(message, str) and message:
            found.setdefault(message, filename)
    return found


def all_keys() -> dict[str, str]:
    return {**catalogue_keys(), **source_keys()}
