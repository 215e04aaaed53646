"""The archive's packing and digests, and the shared history function: pure, no servers."""

from __future__ import annotations

import msgspec
import pytest
from hypothesis import given
from hypothesis import strategies as st

from benthic.archive.records import (
    pack_events,
    pack_read_models,
    read_models_digest,
    unpack_events,
    unpack_read_models,
)
from benthic.game.events import PLATFORM, Envelope, event_digest
from benthic.game.history import history_entry, history_page
from benthic.rules import get_engine
from tests.archive_contract import played_game

envelopes = st.lists(
    st.builds(
        Envelope,
        version=st.integers(1, 10**6),
        type=st.text(max_size=20),
        data=st.binary(max_size=200),
        kind=st.sampled_from(["e", "p"]),
        command_id=st.text(max_size=30),
        seat=st.none() | st.integers(0, 5),
        ts_ms=st.integers(0, 2**53),
    ),
    max_size=30,
)


@given(envelopes)
def test_a_packed_log_unpacks_to_the_same_entries(entries: list[Envelope]) -> None:
    packed, raw = pack_events(entries)
    assert unpack_events(packed) == entries and raw >= len(packed) - 64


@given(st.dictionaries(st.text(max_size=20), st.binary(max_size=300), max_size=12))
def test_packed_read_models_unpack_to_the_same_fields(models: dict[str, bytes]) -> None:
    packed, _ = pack_read_models(models)
    assert unpack_read_models(packed) == models
    assert read_models_digest(models) == read_models_digest(dict(reversed(list(models.items()))))


BASE = Envelope(3, "card_drawn", b'{"card":"x"}', "e", "cmd-1", 2, 1234)


@pytest.mark.parametrize(
    "changed",
    [
        {"version": 4}, {"type": "card_played"}, {"data": b'{"card":"y"}'}, {"kind": PLATFORM},
        {"command_id": "cmd-2"}, {"seat": None}, {"seat": 1}, {"ts_ms": 1235},
    ],
)
def test_the_digest_covers_every_field_of_every_entry(changed: dict[str, object]) -> None:
    other = msgspec.structs.replace(BASE, **changed)
    assert event_digest([BASE]) != event_digest([other])


def test_the_digest_covers_order_and_count() -> None:
    second = msgspec.structs.replace(BASE, version=4)
    assert event_digest([BASE, second]) != event_digest([second, BASE])
    assert event_digest([BASE]) != event_digest([BASE, BASE]) != event_digest([])
    assert event_digest([BASE, second]) == event_digest(iter([BASE, second]))
    assert event_digest([]).startswith("sha256:") and len(event_digest([])) == 7 + 64


def test_history_entries_redact_engine_events_and_show_platform_events() -> None:
    game = played_game("underwater_cities", seats=4, seed=2)
    engine = get_engine("underwater_cities")
    scored = game.envelopes[-1]
    assert scored.kind == PLATFORM
    entry = history_entry(engine, scored, 3)
    assert entry is not None
    assert msgspec.json.decode(entry) == {"version": scored.version, "ts_ms": scored.ts_ms,
                                          "event": msgspec.json.decode(scored.data),
                                          "text": "The final scores are in"}  # benthic.i18n.platform
    for envelope in game.envelopes[:-1]:
        event = engine.decode_event(envelope.data)
        for viewer in (None, 0, 3):
            shown = engine.redact(event, viewer)
            entry = history_entry(engine, envelope, viewer)
            assert entry == history_entry(engine, envelope, viewer, event)
            if shown is None:
                assert entry is None
            else:
                decoded = msgspec.json.decode(entry)
                assert decoded["event"] == msgspec.json.decode(msgspec.json.encode(shown))
                sentence = engine.sentence(shown)  # the sentence is made from the same redacted event
                assert decoded["text"] == (sentence.english() if sentence is not None else None)
    page = history_page(engine, game.envelopes, None, after=10, limit=5)
    assert len(page) == 5 and msgspec.json.decode(page[0])["version"] > 10
    assert history_page(engine, game.envelopes, None, after=game.last_version, limit=5) == []
