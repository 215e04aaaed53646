"""The Portuguese catalogue has every text the services use (every component's name included), with the same
placeholders; a request's language is negotiated as documented; every event type of every engine and every
platform event reads as a sentence in both languages; sentences tell a viewer no more than its redacted event."""

from __future__ import annotations

import re
import string
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest
from babel.messages.pofile import read_po

from benthic.game import platform_events as pe
from benthic.game.events import Envelope
from benthic.game.history import history_entry
from benthic.game.undo import COMMAND_UNDONE
from benthic.i18n import localized_catalogue, localized_labels, negotiate, render
from benthic.i18n.catalogs import gettext, po_path
from benthic.i18n.keys import all_keys as engine_keys
from benthic.i18n.platform import platform_sentence, platform_sentences
from benthic.rules import GameConfig, Message, game_types, get_engine
from benthic.rules.aquatica.events import KingDraftOffered
from benthic.rules.nautilus.events import AssignmentDealt
from benthic.rules.presentation import SeatRef, counted, message_keys, named_ids_in
from benthic.service.errormessages import RULE_MESSAGE, error_keys, localized_message
from services.projection.webwords import client_keys
from tests.engine_harness import random_game
from tests.english_words import english_in


def all_keys() -> dict[Any, str]:
    return {**engine_keys(), **error_keys(), **client_keys()}


def _placeholders(text: str | tuple[str, ...]) -> set[str]:
    forms = (text,) if isinstance(text, str) else text
    return {name for form in forms for _, name, _, _ in string.Formatter().parse(form) if name is not None}


def _translated(message: Any) -> bool:
    """A message with every form translated (a plural one has a msgstr per form), not fuzzy."""
    forms = (message.string,) if isinstance(message.string, str) else message.string
    return all(forms) and not message.fuzzy


@pytest.fixture(scope="module")
def portuguese() -> dict[str, Any]:
    with open(po_path("pt"), "rb") as po:
        return {m.id: m for m in read_po(po) if m.id}


def test_every_key_used_has_a_portuguese_translation_with_the_same_placeholders(portuguese: dict[str, Any]) -> None:
    keys = all_keys()
    assert len(keys) > 1000  # component names, catalogue texts, sentence templates and label templates of 3 games
    missing = [k for k in keys if k not in portuguese or not _translated(portuguese[k])]
    assert missing == [], f"no Portuguese for {len(missing)} keys (run scripts/i18n_update.py, translate): {missing}"
    differ = [k for k in keys if _placeholders(k) != _placeholders(portuguese[k].string)]
    assert differ == []
    plurals = [k for k in keys if isinstance(k, tuple)]
    assert len(plurals) > 10 and all(len(portuguese[k].string) == 2 for k in plurals)  # ngettext: both forms


def test_the_catalogue_keeps_no_key_that_nothing_uses(portuguese: dict[str, Any]) -> None:
    assert sorted(set(portuguese) - set(all_keys())) == []


def _keys_of(value: Any) -> Iterator[str | tuple[str, str]]:
    yield from message_keys(value)


@pytest.mark.parametrize("game", sorted(game_types()))
def test_labels_and_sentences_of_a_played_game_are_all_translated(game: str, portuguese: dict[str, Any]) -> None:
    """Also the keys a Message takes from data at run time (term and component names), which no extractor sees;
    every event a viewer sees reads as a sentence."""
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
                if shown is None:
                    continue
                sentence = engine.sentence(shown)
                assert sentence is not None, (viewer, shown)
                sentences += 1
                used.update(_keys_of(sentence))
    assert sentences > 100
    assert sorted(map(str, (k for k in used if not (k in portuguese and _translated(portuguese[k]))))) == []


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
    # tags are case-insensitive (RFC 5646 §2.1.1), answered with our own spelling
    ("PT", None, "pt"),
    ("Pt", None, "pt"),
    ("PT-br", None, "pt"),
    ("PT-BR;q=0.9, EN;q=0.8", None, "pt"),
    ("EN-us", None, "en"),
    (None, "PT", "pt"),
    (None, "pT-Br", "pt"),
    (None, "PT_BR", "pt"),
    ("fr", "EN", "en"),
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
    components = english["components"]
    renamed = [c for c in components if pt["components"][c]["name"] != components[c]["name"]]
    assert len(renamed) > len(components) / 2  # cards, tiles, Locations, Characters ... (proper names may stay)
    assert all(pt["components"][c]["name"] == gettext("pt", components[c]["name"]) for c in components)
    assert english["terms"] == get_engine(game).catalogue()["terms"]  # the shared catalogue is untouched
    assert english["components"] == get_engine(game).catalogue()["components"]


_RAW_ID = re.compile(r"\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b")  # W_COIN2, T_POWER1: an id, not a name


@pytest.mark.parametrize("game", sorted(game_types()))
def test_catalogue_names_are_names_not_ids(game: str) -> None:
    catalogue = get_engine(game).catalogue()
    names = [c["name"] for c in catalogue["components"].values()]
    names += [s["name"] for board in catalogue["boards"].values() for s in board["spaces"].values()]
    names += [s["name"] for track in catalogue["tracks"].values() for s in track["spaces"]]
    assert [n for n in names if _RAW_ID.search(n)] == []


def _event_types(engine: Any) -> list[str]:
    info = msgspec.inspect.type_info(engine.event_type)
    types = info.types if isinstance(info, msgspec.inspect.UnionType) else (info,)
    return [t.tag for t in types if isinstance(t, msgspec.inspect.StructType)]


@pytest.mark.parametrize("game", sorted(game_types()))
def test_every_event_type_has_a_sentence_in_english_and_portuguese(game: str, portuguese: dict[str, Any]) -> None:
    """Each type has variants, the last of them a fallback (no ``when``) for any event of the type."""
    engine = get_engine(game)
    sentences = engine.sentences()
    assert sentences is not None
    types = _event_types(engine)
    assert len(types) > 30
    assert sorted(set(types) - set(sentences.variants)) == []
    assert sorted(set(sentences.variants) - set(types)) == []  # no template for a type that does not exist
    assert [t for t in types if "when" in sentences.variants[t][-1]] == []
    templates = [v["text"] for t in types for v in sentences.variants[t]]
    assert [k for k in templates if not (k in portuguese and portuguese[k].string)] == []


PLATFORM_EVENTS = [
    {"type": pe.CLOCKS_STARTED},
    {"type": pe.CLOCK_EXPIRED, "seat": 1, "deadline_ms": 5, "policy": "takeover"},
    {"type": pe.SEAT_TAKEN_OVER, "seat": 1, "reason": "clock", "bot": "greedy"},
    {"type": pe.SEAT_TAKEN_OVER, "seat": 1, "reason": "resigned", "bot": "greedy"},
    {"type": pe.SEAT_RECLAIMED, "seat": 1, "player_id": "bob"},
    {"type": pe.PLAYER_RESIGNED, "seat": 1, "player_id": "bob"},
    {"type": pe.SEAT_FORFEITED, "seat": 1},
    {"type": pe.GAME_ABORTED, "reason": "operator", "by": "ops"},
    {"type": pe.GAME_ENDED, "reason": "too_few_seats_in_play"},
    {"type": pe.VACATION_STARTED, "seat": 1, "player_id": "bob", "until_ms": 9},
    {"type": pe.VACATION_ENDED, "seat": 1, "player_id": "bob", "reason": "moved"},
    {"type": pe.VACATION_ENDED, "seat": 1, "player_id": "bob", "reason": "returned"},
    {"type": COMMAND_UNDONE, "seat": 1, "command_id": "c9", "first_version": 7, "last_version": 8},
    {"type": "game_scored", "game_type": "nautilus", "results": []},
]


def test_every_platform_event_has_a_sentence_in_english_and_portuguese(portuguese: dict[str, Any]) -> None:
    types = {e["type"] for e in PLATFORM_EVENTS}
    assert types <= pe.TYPES  # every type has its sentence: tests/unit/test_platform_events.py
    assert set(platform_sentences().variants) == types
    for event in PLATFORM_EVENTS:
        sentence = platform_sentence(event)
        assert sentence is not None, event
        assert sentence.key in portuguese and portuguese[sentence.key].string
        assert render(sentence, "pt") != render(sentence, "en")
    undone = platform_sentence(PLATFORM_EVENTS[-2])
    assert undone is not None
    assert render(undone, "en", ["Ana", "Bruno"]) == "Bruno took back their last move"
    assert render(undone, "pt", ["Ana", "Bruno"]) == "Bruno desfez sua última jogada"


def test_a_platform_event_in_the_history_reads_as_a_sentence() -> None:
    engine = get_engine("nautilus")
    envelope = Envelope(version=9, type=COMMAND_UNDONE, kind="p", ts_ms=1,
                        data=msgspec.json.encode(PLATFORM_EVENTS[-2]))
    for viewer in (None, 0, 1):
        found = history_entry(engine, envelope, viewer, None, "pt", ["Ana", "Bruno"])
        assert found is not None
        entry = msgspec.json.decode(found)
        assert entry["event"] == PLATFORM_EVENTS[-2] and entry["text"] == "Bruno desfez sua última jogada"


def test_a_component_name_in_a_label_and_a_sentence_reads_in_portuguese() -> None:
    engine = get_engine("aquatica")
    catalogue = engine.catalogue()
    for _state, seat, _command, events, _after in random_game(engine, 2, 11):
        for event in events:
            shown = engine.redact(event, seat)
            if shown is not None and shown["type"] == "character_played":
                sentence = engine.sentence(shown)
                assert sentence is not None
                name = catalogue["components"][shown["card_id"]]["name"]
                assert gettext("pt", name) in render(sentence, "pt") and name in render(sentence, "en")
                return
    raise AssertionError("no Character played")


# Internal ids no sentence may write: ids with a colon ("B:C34:2", "T:C33-C34", "row:3", "stack:echo"), and
# component ids whose name differs from the id ("c189", "SB07", "green_03"); cities ("C24"), action slots ("G2")
# and Nautilus cells ("12,8") are how the labels name places.
_STRUCTURED_ID = re.compile(r"\b\w+:\w[\w:-]*")


@pytest.mark.parametrize("game", sorted(game_types()))
def test_history_sentences_name_places_and_components_as_the_labels_do(game: str) -> None:
    """The whole history of random games, in both languages and for every viewer, as the history API renders it:
    no sentence writes an internal id."""
    engine = get_engine(game)
    catalogue = engine.catalogue()
    named = {cid: c["name"] for cid, c in catalogue["components"].items() if c["name"] != cid}
    checked = 0
    for seed in (3, 17):
        for _state, seat, _command, events, _after in random_game(engine, 3, seed):
            for event in events:
                for viewer in (None, seat):
                    shown = engine.redact(event, viewer)
                    sentence = engine.sentence(shown) if shown is not None else None
                    if sentence is None:
                        continue
                    for language in ("en", "pt"):
                        text = render(sentence, language, ["Ana", "Bruno", "Carla"])
                        assert _STRUCTURED_ID.findall(text) == [], (text, shown)
                        assert named_ids_in(text, named) == [], (text, shown)
                        checked += 1
    assert checked > 500


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
    assert own["text"] == f"Lugar {event.seat + 1} recebeu a missão especial {gettext('pt', card_name)}"
    assert gettext("pt", card_name) != card_name
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


def test_a_king_draft_reads_the_kings_names_to_its_seat_only() -> None:
    engine = get_engine("aquatica")
    kings = ["K1", "K2"]
    event = KingDraftOffered(seat=0, king_ids=tuple(kings))
    names = [engine.catalogue()["components"][k]["name"] for k in kings]
    own, other = (engine.sentence(engine.redact(event, viewer) or {}) for viewer in (0, 1))
    assert own is not None and other is not None
    assert render(own, "en") == f"Seat 1 was offered the Kings {names[0]} and {names[1]}"
    first, second = (gettext("pt", name) for name in names)
    assert render(own, "pt") == f"Lugar 1 recebeu a oferta dos Reis {first} e {second}"
    assert render(other, "pt") == "Lugar 1 recebeu a oferta de 2 Reis"
    assert not any(name in render(other, "en") for name in names)


def _names_and_texts(value: Any, out: list[str]) -> list[str]:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in ("name", "text") and isinstance(item, str):
                out.append(item)
            else:
                _names_and_texts(item, out)
    elif isinstance(value, list):
        for item in value:
            _names_and_texts(item, out)
    return out


@pytest.mark.parametrize("game", sorted(game_types()))
def test_a_portuguese_catalogue_writes_effect_texts_and_space_names_in_portuguese(game: str) -> None:
    """Effect texts (built from effect data as Messages), boards' space names and texts: no English word left."""
    english = get_engine(game).catalogue()
    pt = localized_catalogue(english, "pt")
    texts = _names_and_texts({section: pt[section] for section in ("components", "boards", "tracks", "terms")}, [])
    assert len(texts) > 500
    assert english_in(texts) == []
    assert len(english_in(_names_and_texts(english["components"], []))) > len(english["components"]) / 3
    with_text = [c for c in english["components"] if english["components"][c].get("text")]
    translated = [c for c in with_text if pt["components"][c]["text"] != english["components"][c]["text"]]
    assert len(translated) == len(with_text) > 30


@pytest.mark.parametrize("game", sorted(game_types()))
def test_portuguese_labels_quote_effects_in_portuguese(game: str) -> None:
    engine = get_engine(game)
    english: list[str] = []
    portuguese: list[str] = []
    for n, (state, seat, _command, _events, _after) in enumerate(random_game(engine, 3, 7)):
        if n % 2 == 0:
            described = engine.describe_all(state, engine.legal_commands(state, seat), seat)
            english += [d.label for d in described]
            portuguese += [label.label for label in localized_labels(described, "pt")]
    assert len(portuguese) > 300 and english_in(english)
    assert english_in(portuguese) == []


def test_effect_texts_are_msgids_with_plural_forms() -> None:
    keys = all_keys()
    assert "gain {what}" in keys and "{a}, then {b}" in keys
    assert ("score up to {n} fully risen Location", "score up to {n} fully risen Locations") in keys
    assert ("{n} coin", "{n} coins") in keys and "{n} coin" not in keys
    one, two = counted(1, "{n} coin", "{n} coins"), counted(2, "{n} coin", "{n} coins")
    assert (one.english(), two.english()) == ("1 coin", "2 coins")
    assert (render(one, "pt"), render(two, "pt")) == ("1 moeda", "2 moedas")
    patrician = get_engine("aquatica").catalogue()["components"]["S3-PATRICIAN"]
    assert patrician["text"] == "Gain 1 coin, then buy 1 Location with coins."
    assert localized_catalogue(get_engine("aquatica").catalogue(), "pt")["components"]["S3-PATRICIAN"]["text"] == (
        "Ganhar 1 moeda, depois comprar 1 Local com moedas.")
