"""Every msgid the services use: the catalogue texts of every game type, and every ``msg("...")`` template in
the sources (found with Babel's Python extractor).  ``scripts/i18n_update.py`` writes them into the ``.po``
files; ``tests/unit/test_i18n_catalogue.py`` checks that Portuguese has each one."""

from __future__ import annotations

from pathlib import Path

from babel.messages.extract import extract_from_dir

from benthic.i18n.platform import platform_sentences
from benthic.i18n.render import catalogue_texts
from benthic.rules import game_types, get_engine

SOURCES = Path(__file__).resolve().parent.parent  # shared/benthic: the engines and this package
# msg("template", ...), Message("template", {...}), counted(n, "{n} thing", "{n} things"), N_("template")
KEYWORDS = {"msg": None, "Message": None, "counted": (2, 3), "N_": None}


Key = str | tuple[str, str]  # a msgid, or (singular, plural) of a plural message


def catalogue_keys() -> dict[Key, str]:
    """msgid -> where it comes from (the game type's catalogue)."""
    return {text: f"catalogue:{game_type}" for game_type in game_types()
            for text in catalogue_texts(get_engine(game_type).catalogue())}


def source_keys() -> dict[Key, str]:
    """msgid -> the source file that uses it (``counted``'s two forms make one plural msgid)."""
    return extracted_keys(SOURCES, "python", KEYWORDS)


def extracted_keys(directory: Path, method: str, keywords: dict[str, tuple[int, int] | None],
                   prefix: str = "") -> dict[Key, str]:
    """msgid -> ``prefix`` + the file below ``directory`` that uses it, found by Babel's extractor ``method``
    ("python", "javascript") in the calls named by ``keywords`` (a two-argument spec makes one plural msgid)."""
    extension = {"python": "py", "javascript": "js"}[method]
    found: dict[Key, str] = {}
    for filename, _line, message, _comments, _context in extract_from_dir(
            str(directory), method_map=[(f"**.{extension}", method)], keywords=keywords,
            options_map={f"**.{extension}": {"parse_template_string": True}}):  # t("...") inside `...${t("Live")}`
        if isinstance(message, str):
            if message:
                found.setdefault(message, prefix + filename)
        elif len(message) == 2 and all(message):
            found.setdefault((message[0], message[1]), prefix + filename)
    return found


def sentence_keys() -> dict[Key, str]:
    """msgid -> the game type whose sentences.json has it (or the platform's, for its own events)."""
    found: dict[Key, str] = {text: "sentences:platform" for text in platform_sentences().keys()}
    for game_type in game_types():
        sentences = get_engine(game_type).sentences()
        for text in sentences.keys() if sentences is not None else ():
            found.setdefault(text, f"sentences:{game_type}")
    return found


def all_keys() -> dict[Key, str]:
    return {**catalogue_keys(), **sentence_keys(), **source_keys()}
