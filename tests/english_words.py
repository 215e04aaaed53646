"""Tell-tale English words of effect texts and labels: a Portuguese text holding one was left untranslated."""

from __future__ import annotations

import re

ENGLISH_WORDS = re.compile(r"\b(gain|coins?|score|take back|power|Locations?|credits?|upgrade|build|each|your|the|"
                           r"with|from|points?|cards?|then|either|whenever)\b")


def english_in(texts: list[str]) -> list[str]:
    """The texts among ``texts`` with an English word in them."""
    return [t for t in texts if ENGLISH_WORDS.search(t)]
