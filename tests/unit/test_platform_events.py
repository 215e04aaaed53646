"""The platform events' table is whole (CONTRIBUTING.md, "Adding a platform event"): every platform event type has
its Struct, its fold into the lifecycle and its sentence in English and Portuguese, and every Struct writes the
JSON the streams, archives and clients already hold."""

from __future__ import annotations

from typing import Any, get_args, get_origin

import msgspec
import pytest
from babel.messages.pofile import read_po

from benthic.game import platform_events as pe
from benthic.game.history import stored_sentence
from benthic.game.lifecycle import Lifecycle
from benthic.i18n import render
from benthic.i18n.catalogs import po_path
from benthic.i18n.platform import platform_sentence, platform_sentences
from benthic.play import platform_commits

# The JSON of each type as the streams hold it (written by platform_commits' former
# ``{"type": type_, **data}``, benthic.game.undo and the scoring service): it must not change.
STORED = {
    pe.CLOCKS_STARTED: b'{"type":"clocks_started"}',
    pe.CLOCK_EXPIRED: b'{"type":"clock_expired","seat":1,"deadline_ms":5,"policy":"takeover"}',
    pe.SEAT_TAKEN_OVER: b'{"type":"seat_taken_over","seat":1,"reason":"clock","bot":"greedy"}',
    pe.SEAT_RECLAIMED: b'{"type":"seat_reclaimed","seat":1,"player_id":"bob"}',
    pe.PLAYER_RESIGNED: b'{"type":"player_resigned","seat":1,"player_id":"bob"}',
    pe.SEAT_FORFEITED: b'{"type":"seat_forfeited","seat":1}',
    pe.GAME_ABORTED: b'{"type":"game_aborted","reason":"operator","by":"ops"}',
    pe.GAME_ENDED: b'{"type":"game_ended","reason":"too_few_seats_in_play"}',
    pe.VACATION_STARTED: b'{"type":"vacation_started","seat":1,"player_id":"bob","until_ms":9}',
    pe.VACATION_ENDED: b'{"type":"vacation_ended","seat":1,"player_id":"bob","reason":"moved"}',
    pe.COMMAND_UNDONE: b'{"type":"command_undone","seat":1,"command_id":"c9","first_version":7,"last_version":8}',
    pe.GAME_SCORED: b'{"type":"game_scored","game_type":"nautilus","results":[{"seat":0,"score":3,"rank":1}],'
                    b'"details":{},"players":["ana"],"rated":false}',
}


def _structs(base: type[pe.PlatformEvent]) -> set[type[pe.PlatformEvent]]:
    found: set[type[pe.PlatformEvent]] = set()
    for sub in base.__subclasses__():
        found |= {sub, *_structs(sub)}
    return found


def _sample(kind: pe.Kind) -> pe.PlatformEvent:
    """An event of the type with plain values (1, "x", [], {}, false) in every field without a default."""
    plain: dict[Any, Any] = {int: 1, str: "x", bool: False, list: [], dict: {}}
    return msgspec.convert({f.name: plain[get_origin(f.type) or f.type] for f in msgspec.structs.fields(kind.struct)
                            if f.required}, kind.struct)


@pytest.fixture(scope="module")
def portuguese() -> dict[str, Any]:
    with open(po_path("pt"), "rb") as po:
        return {m.id: m for m in read_po(po) if m.id}


def test_every_struct_is_one_row_of_the_table_under_its_tag() -> None:
    assert _structs(pe.PlatformEvent) == {kind.struct for kind in pe.EVENTS.values()}
    assert all(pe.type_of(kind.struct) == type_ for type_, kind in pe.EVENTS.items())
    assert set(STORED) <= set(pe.EVENTS)  # the types that have been stored (a new one may add its bytes)
    assert set(get_args(pe.AnyPlatformEvent)) == {kind.struct for kind in pe.EVENTS.values()}


@pytest.mark.parametrize("type_", sorted(STORED))
def test_every_type_writes_and_reads_the_json_stored_today(type_: str) -> None:
    kind = pe.EVENTS[type_]
    event = pe.decode(type_, STORED[type_])
    assert type(event) is kind.struct
    assert pe.encode(event) == STORED[type_]
    assert msgspec.json.decode(STORED[type_], type=pe.AnyPlatformEvent) == event  # the tag alone tells the type
    assert pe.decode("draw_offered", b'{"type":"draw_offered"}') is None
    with pytest.raises(msgspec.ValidationError):
        pe.decode(type_, b'{"type":"not_' + type_.encode() + b'"}')


@pytest.mark.parametrize("type_", sorted(pe.EVENTS))
def test_every_type_folds_into_the_lifecycle(type_: str) -> None:
    kind = pe.EVENTS[type_]
    assert callable(kind.fold)
    life = Lifecycle(since={1: 10}, away={})
    after = kind.fold(life, _sample(kind), 20)
    assert isinstance(after, Lifecycle)
    assert pe.fold(life, type_, pe.encode(_sample(kind)), 20) == (life if kind.fold is pe.unchanged else after)


def test_the_folds_change_the_lifecycle_as_their_events_say() -> None:
    life = pe.fold(Lifecycle(), pe.CLOCKS_STARTED, STORED[pe.CLOCKS_STARTED], 1)
    assert life.clock_on
    life = pe.fold(msgspec.structs.replace(life, since={1: 2}), pe.SEAT_TAKEN_OVER, STORED[pe.SEAT_TAKEN_OVER], 3)
    assert life.taken_over == (1,)
    assert pe.fold(life, pe.SEAT_RECLAIMED, STORED[pe.SEAT_RECLAIMED], 7).since == {1: 7}
    resigned = pe.fold(life, pe.PLAYER_RESIGNED, STORED[pe.PLAYER_RESIGNED], 4)
    assert (resigned.out, resigned.forfeited, resigned.taken_over) == ((1,), (), ())
    assert pe.fold(resigned, pe.SEAT_FORFEITED, STORED[pe.SEAT_FORFEITED], 5) == resigned  # out already
    assert pe.fold(life, pe.GAME_ABORTED, STORED[pe.GAME_ABORTED], 4).aborted == "operator"
    assert pe.fold(life, pe.GAME_ENDED, STORED[pe.GAME_ENDED], 4).ended == "too_few_seats_in_play"
    away = pe.fold(life, pe.VACATION_STARTED, STORED[pe.VACATION_STARTED], 5)
    assert (away.away, away.since, away.used) == ({1: 9}, {1: 9}, {1: 3})
    back = pe.fold(away, pe.VACATION_ENDED, STORED[pe.VACATION_ENDED], 6)
    assert (back.away, back.since) == ({}, {1: 6})
    resign_clock = b'{"type":"seat_taken_over","seat":1,"reason":"resigned","bot":"greedy"}'
    assert pe.fold(life, pe.SEAT_TAKEN_OVER, resign_clock, 3) == life


@pytest.mark.parametrize("type_", sorted(pe.EVENTS))
def test_every_type_has_a_sentence_in_english_and_portuguese(type_: str, portuguese: dict[str, Any]) -> None:
    variants = platform_sentences().variants
    assert type_ in variants, f"no sentence for {type_} in benthic/i18n/platform_sentences.json"
    assert "when" not in variants[type_][-1], "the last variant is the fallback of any event of the type"
    missing = [v["text"] for v in variants[type_]
               if v["text"] not in portuguese or not portuguese[v["text"]].string or portuguese[v["text"]].fuzzy]
    assert missing == [], "run scripts/i18n_update.py and translate in shared/benthic/i18n/locales/pt"
    sentence = platform_sentence(msgspec.to_builtins(_sample(pe.EVENTS[type_])))
    assert sentence is not None
    assert render(sentence, "pt", ["Ana", "Bruno"]) != render(sentence, "en", ["Ana", "Bruno"])
    assert stored_sentence(type_, pe.encode(_sample(pe.EVENTS[type_]))) is not None


def test_no_sentence_without_its_event() -> None:
    assert set(platform_sentences().variants) == set(pe.EVENTS)


def test_the_decisions_append_the_tables_events() -> None:
    made = platform_commits.event(pe.SeatTakenOver(seat=1, reason="clock", bot="greedy"))
    assert (made.type, made.data, made.kind) == (pe.SEAT_TAKEN_OVER, STORED[pe.SEAT_TAKEN_OVER], "p")
