"""The texts people read, as a person would write them: along seeded random games of every game and seat count,
every label of every legal command and every history sentence, in English and Portuguese, has no singular number
before a plural noun ("1 cards"), no doubled word ("find find"), no English "a" before a vowel ("a Atlantis"), and
no internal id ("stack:residential_green:", "12,12")."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from benthic.i18n import localized_labels, render
from benthic.rules import GameConfig, get_engine
from tests.unit.test_engine_presentation import GAME_SEATS, CoverageBot

LANGS = ("en", "pt")
NAMES = ("Ana", "Greedy Gus", "Bruno", "Carla", "Davi")
# A count of one before a word that reads as a plural noun. English plurals end in s; Portuguese ones in s too
# ("1 cartas", "1 pesquisadores"); a short list of words ending in s that are singular is let through.
ONE_PLURAL = re.compile(r"(?<![\d,.])\b1 ([A-Za-zÀ-ÿ]+s)\b")
SINGULAR_S = {"Nemo", "bonus", "bônus", "Atlas", "Kelpies", "Mantas", "Tempus", "Sea Horses", "vez", "mês", "Kraken",
              "Analysis", "lápis", "ás", "país", "gás", "atlas", "pires", "Nautilus", "nautilus", "Aquatica", "campus",
              "vírus", "ônibus", "tênis", "simples", "is", "was", "has", "begins", "ends", "das", "dos", "gets",
              "takes", "pays", "moves", "scores", "wins"}
DOUBLED = re.compile(r"\b(\w+) \1\b", re.IGNORECASE)
A_VOWEL = re.compile(r"(?:^|[\s(])[Aa] ([AEIOUaeiou]\w*)")
A_VOWEL_OK = {"one", "once", "unit", "use", "user", "uniform", "union", "unique", "Unique", "Use"}
RAW_ID = re.compile(r"\b\w+:\w+:|\b\d+,\d+\b(?!\.\d)")


def problems(text: str, language: str) -> Iterator[str]:
    for m in ONE_PLURAL.finditer(text):
        if m.group(1) not in SINGULAR_S:
            yield f"a singular number before a plural noun: {m.group(0)!r}"
    for m in DOUBLED.finditer(text):
        if not m.group(1).isdigit():
            yield f"a doubled word: {m.group(0)!r}"
    if language == "en":
        for m in A_VOWEL.finditer(text):
            if m.group(1) not in A_VOWEL_OK:
                yield f"'a' before a vowel: {m.group(0).strip()!r}"
    for m in RAW_ID.finditer(text):
        yield f"an internal id: {m.group(0)!r}"


def texts_of_a_game(game: str, seats: int, seed: int) -> Iterator[tuple[str, str]]:
    """(language, text) of every label and sentence along one seeded game."""
    engine = get_engine(game)
    rng = random.Random(seed)
    bot = CoverageBot()
    names = NAMES[:seats]
    state = engine.replay(engine.start(GameConfig(seats=seats, seed=seed)))
    for step in range(engine.playout_bound):
        prompt = engine.prompt(state)
        if prompt is None:
            return
        seat = rng.choice(prompt.seats)
        legal = engine.legal_commands(state, seat)
        if step % 3 == 0 or len(legal) < 40:
            descriptions = engine.describe_all(state, legal, seat)
            for language in LANGS:
                for label in localized_labels(descriptions, language):
                    yield language, label.label
        events = engine.decide(state, seat, bot.choose(engine, state, seat, rng))
        for event in events:
            for viewer in (seat, None):
                shown = engine.redact(event, viewer)
                sentence = engine.sentence(shown) if shown is not None else None
                if sentence is not None:
                    for language in LANGS:
                        yield language, render(sentence, language, names)
        state = engine.fold(state, events)


@pytest.mark.parametrize(("game", "seats"), GAME_SEATS)
def test_labels_and_sentences_read_as_a_person_writes(game: str, seats: int) -> None:
    found: dict[str, str] = {}
    for seed in (seats, 40 + seats):
        for language, text in texts_of_a_game(game, seats, seed):
            for problem in problems(text, language):
                found.setdefault(problem, f"[{language}] {text}")
    assert not found, "\n".join(f"{p}  <- {t}" for p, t in sorted(found.items()))


def test_the_checks_catch_what_they_name() -> None:
    assert list(problems("Ana discarded 1 cards", "en"))
    assert list(problems("Ana descartou 1 cartas", "pt"))
    assert list(problems("Ana took a find find", "en"))
    assert list(problems("Ana took a Atlantis find", "en"))
    assert list(problems("3 moves with stack:residential_green:", "en"))
    assert list(problems("2 moves with 12,12: build", "en"))
    assert not list(problems("Ana discarded 1 card and 2 cards for 1 Nemo, a unit, an Atlantis find", "en"))
