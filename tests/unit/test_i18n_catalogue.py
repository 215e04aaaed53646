"""The Portuguese catalogue has every text the services use, with the same placeholders; a request's language is
negotiated as documented; sentences tell a viewer no more than its redacted event."""

from __future__ import annotations

import string
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from babel.messages.pofile import read_po

from benthic.game.events import Envelope
from benthic.game.history import history_entry
from benthic.i18n import localized_catalogue, localized_labels, negotiate, render
from benthic.i18n.catalogs import gettext, po_path
from benthic.i18n.keys import all_keys as engine_keys
from benthic.rules import GameConfig, Message, game_types, get_engine
from benthic.rules.nautilus.events import AssignmentDealt
from benthic.rules.presentation import SeatRef
from benthic.service.errormessages import RULE_MESSAGE, error_keys, localized_message
from tests.engine_harness import random_game


def all_keys() -> dict[str, str]:
    return {**engine_keys(), **error_keys()}


def _placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


@pytest.fixture(scope="module")
def portuguese() -> dict[str, Any]:
    with open(po_path("pt"), "rb") as po:
        return {m.id: m for m in read_po(po) if m.id}


def test_every_key_used_has_a_portuguese_translation_with_the_same_placeholders(portuguese: dict[str, Any]) -> None:
    keys = all_keys()
    assert len(keys) > 500  # catalogue texts, sentence templates and label templates of three games
    missing = [k for k in keys if k not in portuguese or not portuguese[k].string or portuguese[k].fuzzy]
    assert missing == [], f"no Portuguese for {len(missing)} keys (run scripts/i18n_update.py, translate): {missing}"
    differ = [k for k in keys if _placeholders(k) != _placeholders(portuguese[k].string)]
    assert differ == []


def test_the_catalogue_keeps_no_key_that_nothing_uses(portuguese: dict[str, Any]) -> None:
    assert sorted(set(portuguese) - set(all_keys())) == []


def _keys_of(value: Any) -> Iterator[str]:
    if isinstance(value, Message):
        yield value.key
        for param in value.params.values():
            yield from _keys_of(param)


@pytest.mark.parametrize("game", sorted(game_types()))
def test_labels_and_sentences_of_a_played_game_are_all_translated(game: str, portuguese: dict[str, Any]) -> None:
    """Also the keys a Message takes from data at run time (term names, kinds), which no extractor sees."""
    engine = get_engine(game)
    used: set[str] = set()
    sentences = 0
    for n, (state, seat, _command, events, _after) in enumerate(random_game(engine, 3, 2024)):
        if n % 4 == 0:
            for description in engine.describe_all(state, engine.legal_commands(state, seat), seat):
                assert description.message is not None and description.message.english() == description.label
                used.update(_keys_of(description.message))
                assert render(description.message, "pt")
        for event in events:
            for viewer in (None, seat):
                shown = engine.redact(event, viewer)
                sentence = engine.sentence(shown) if shown is not None else None
                if sentence is not None:
                    sentences += 1
                    used.update(_keys_of(sentence))
    assert sentences > 20
    assert sorted(k for k in used if not (k in portuguese and portuguese[k].string)) == []


def test_a_portuguese_label_and_sentence_read_in_portuguese() -> None:
    engine = get_engine("nautilus")
    for state, seat, _command, _events, _after in random_game(engine, 2, 5):
        labels = engine.describe_all(state, engine.legal_commands(state, seat), seat)
        if any(d.label.startswith("End your turn") for d in labels):
            break
    pt = localized_labels(labels, "pt")
    assert [p.highlights for p in pt] == [d.highlights for d in labels]
    assert any(p.label.startswith("Terminar seu turno") for p in pt)
    assert localized_labels(labels, "en") == [type(pt[0])(d.label, d.highlights) for d in labels]
    named = Message("{seat} opened the Gorge", {"seat": SeatRef(1)})
    assert render(named, "pt") == "Lugar 2 abriu o Desfiladeiro"
    assert render(named, "pt", ["Ana", "Bruno"]) == "Bruno abriu o Desfiladeiro"
    assert render(named, "en") == "Seat 2 opened the Gorge"


@pytest.mark.parametrize(("header", "lang", "expected"), [
    (None, None, "en"),
    ("pt", None, "pt"),
    ("pt-BR,pt;q=0.9,en;q=0.8", None, "pt"),
    ("en-US,en;q=0.9,pt;q=0.8", None, "en"),
    ("en;q=0.2, pt;q=0.7", None, "pt"),
    ("fr-FR, de;q=0.5", None, "en"),  # nothing we have: English
    ("*", None, "en"),
    ("pt;q=0", None, "en"),  # q=0: not acceptable
    ("en", "pt", "pt"),  # ?lang= wins
    ("pt", "xx", "pt"),  # an unknown ?lang= is ignored
    (None, "pt_BR", "pt"),
    ("garbage;;q=zz,,", None, "en"),
])
def test_negotiation(header: str | None, lang: str | None, expected: str) -> None:
    assert negotiate(header, lang) == expected


@pytest.mark.parametrize("game", sorted(game_types()))
def test_the_portuguese_catalogue_translates_names_and_keeps_the_content_version(game: str) -> None:
    english = get_engine(game).catalogue()
    pt = localized_catalogue(english, "pt")
    assert localized_catalogue(english, "en") is english and "language" not in english
    assert pt["language"] == "pt" and pt["content_version"] == english["content_version"]
    assert pt["name"] == gettext("pt", english["name"])
    changed = [t for t in english["terms"] if pt["terms"][t]["name"] != english["terms"][t]["name"]]
    assert len(changed) > len(english["terms"]) / 2  # most names differ (a few, like "Nemo", are the same)
    assert english["terms"] == get_engine(game).catalogue()["terms"]  # the shared catalogue is untouched


def test_a_history_sentence_tells_a_viewer_only_what_its_redacted_event_shows() -> None:
    """Nautilus deals each seat a secret special assignment: its owner reads the card's name, others do not."""
    engine = get_engine("nautilus")
    event = next(e for e in engine.start(GameConfig(seats=2, seed=9)) if isinstance(e, AssignmentDealt))
    card_name = engine.catalogue()["components"][event.card]["name"]
    envelope = Envelope(version=3, type="assignment_dealt", data=msgspec.json.encode(event), ts_ms=1,
                        engine_version=engine.engine_version)

    def entry(viewer: int | None, language: str) -> dict[str, Any]:
        found = history_entry(engine, envelope, viewer, None, language)
        assert found is not None
        return msgspec.json.decode(found)

    own, other, spectator = entry(event.seat, "pt"), entry(1 - event.seat, "pt"), entry(None, "en")
    assert own["text"] == f"Lugar {event.seat + 1} recebeu a missão especial {card_name}"
    assert "card" not in other["event"] and card_name not in other["text"]
    assert other["text"] == f"Lugar {event.seat + 1} recebeu uma missão especial"
    assert spectator["text"] == f"Seat {event.seat + 1} was dealt a special assignment"


def test_error_messages_in_portuguese_keep_their_codes_and_the_rules_citation() -> None:
    assert localized_message(409, "game_finished", "game g1 is over", "en") == "game g1 is over"
    finished = localized_message(409, "game_finished", "game g1 is over", "pt")
    assert finished == gettext("pt", "the game is over (or archived): it accepts no more commands or joins")
    assert finished.startswith("a partida terminou")
    rule = localized_message(422, "not_your_turn", "§5.2: seat 1 is not prompted", "pt")
    assert rule == gettext("pt", RULE_MESSAGE).format(code="not_your_turn", rule="§5.2: seat 1 is not prompted")
    assert "not_your_turn" in rule and "§5.2" in rule and rule.startswith("As regras")
