"""Undo before new information (benthic.game.undo), pure: which commit an undo takes back or why not, the fold
that skips voided versions, and the leak proof of every engine's declaration of the events that reveal nothing."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import msgspec
import pytest

from benthic.game import lifecycle as lc
from benthic.game import platform_events as pe
from benthic.game import undo
from benthic.game.events import PLATFORM, Envelope
from benthic.game.gamestate import Folded, UndoBeforeStart, fold_envelopes
from benthic.rules import GameConfig, game_types, get_engine
from benthic.rules.bots import RandomBot
from benthic.rules.core import _tags
from benthic.runtime.telemetry import UNDO_OUTCOMES
from tests.engine_harness import hidden_from, random_game, strings_in

GAMES = game_types()
_json = msgspec.json.Encoder()


class Stream:
    """A game's stream as the store would hold it, built commit by commit (no Redis: the fold is pure)."""

    def __init__(self, engine: Any, seats: int, seed: int) -> None:
        self.engine = engine
        self.seats = seats
        self.entries: list[Envelope] = []
        self.ts = 1_000
        self.games = random_game(engine, seats, seed)

    def commit(self, events: list[Any], seat: int | None, command_id: str) -> None:
        self.ts += 1_000
        for e in events:
            self.entries.append(Envelope(len(self.entries) + 1, self.engine.event_name(e), self.engine.encode_event(e),
                                         command_id=command_id, seat=seat, ts_ms=self.ts,
                                         engine_version=self.engine.engine_version))

    def undo(self, made: undo.CommandUndone, command_id: str) -> None:
        self.ts += 1_000
        self.entries.append(Envelope(len(self.entries) + 1, undo.COMMAND_UNDONE, _json.encode(made), kind=PLATFORM,
                                     command_id=command_id, seat=made.seat, ts_ms=self.ts))

    def platform(self, type_: str, command_id: str, **data: Any) -> None:
        self.ts += 1_000
        self.entries.append(Envelope(len(self.entries) + 1, type_, _json.encode({"type": type_, **data}),
                                     kind=PLATFORM, command_id=command_id, ts_ms=self.ts))

    def folded(self) -> Folded:
        return fold_envelopes(self.engine, Folded(0, self.engine.initial_state()), self.entries)

    def decide(self, seat: int, undo_mode: str = "turn") -> undo.CommandUndone | undo.UndoRefused:
        folded = self.folded()
        return undo.decide(self.engine, folded.state, lc.is_finished(self.engine, folded.state, folded.life),
                           undo_mode, self.entries, seat)


def played(game_type: str, seed: int) -> Iterator[tuple[Stream, Any, int, list[Any], Any]]:
    """A random game as a stream: yields (stream before the commit, state before, seat, events, state after);
    the caller appends the commit (``stream.commit``) or stops."""
    engine = get_engine(game_type)
    seats = 2 if seed % 2 else min(engine.max_seats, 3)
    stream = Stream(engine, seats, seed)
    first = True
    for n, (before, seat, _command, events, after) in enumerate(stream.games):
        if first:  # the setup events: the game's first commit, no seat
            setup = engine.start(_config(engine, seats, seed))
            stream.commit(setup, None, "create")
            assert engine.encode_state(stream.folded().state) == engine.encode_state(before)
            first = False
        yield stream, before, seat, events, after
        stream.commit(events, seat, f"c{n}")


def _config(engine: Any, seats: int, seed: int) -> GameConfig:
    return GameConfig(seats=seats, seed=seed, options={})


def _undoable(engine: Any, seat: int, events: list[Any], after: Any) -> bool:
    prompt = engine.prompt(after)
    return (not any(engine.reveals(e) for e in events) and prompt is not None and seat in prompt.seats)


def _first(game_type: str, want_undoable: bool, seeds: range = range(1, 8)) -> tuple[Stream, Any, int, Any]:
    """The first commit of a random game that is (or is not, but keeps the seat prompted) undoable."""
    engine = get_engine(game_type)
    for seed in seeds:
        for stream, before, seat, events, after in played(game_type, seed):
            prompt = engine.prompt(after)
            if prompt is None or seat not in prompt.seats or before.version < 5:
                continue
            if _undoable(engine, seat, events, after) == want_undoable:
                stream.commit(events, seat, "the-move")
                return stream, before, seat, after
    raise AssertionError(f"{game_type}: no such commit in seeds {seeds}")


# --- the engines' declarations --------------------------------------------------------------------------------

@pytest.mark.parametrize("game_type", GAMES)
def test_every_event_declared_revealing_nothing_is_an_event_of_the_engine(game_type: str) -> None:
    engine = get_engine(game_type)
    assert engine.events_revealing_nothing, "an engine without undoable events makes undo useless"
    assert engine.events_revealing_nothing <= set(_tags(engine.event_type))
    for boundary in ("turn_started", "turn_ended", "game_ended"):
        assert boundary not in engine.events_revealing_nothing  # a turn's end passes the decision on


@pytest.mark.parametrize("game_type", GAMES)
def test_leak_proof_no_undoable_commit_shows_anyone_anything_hidden_before(game_type: str) -> None:
    """Over whole random games: a commit an undo could take back changes no viewer's hidden set (nothing drawn,
    dealt, shown or peeked), and each viewer's view after it holds no string hidden from that viewer before."""
    engine = get_engine(game_type)
    checked = 0
    for seed in range(1, 6):
        for stream, before, seat, events, after in played(game_type, seed):
            if not _undoable(engine, seat, events, after):
                continue
            checked += 1
            for viewer in [None, *range(stream.seats)]:
                hidden_before = hidden_from(engine, before, viewer)
                shown = hidden_before - hidden_from(engine, after, viewer)
                assert not shown, f"{game_type}: seed {seed}, {[engine.event_name(e) for e in events]} showed {shown}"
                leaked = hidden_before & strings_in(_builtins(engine.view(after, viewer)))
                assert not leaked, f"{game_type}: an undoable commit showed {viewer} {leaked}"
    assert checked > 20, f"{game_type}: only {checked} undoable commits in five games"


def _builtins(value: Any) -> Any:
    return msgspec.json.decode(msgspec.json.encode(value))


# --- undo per game type ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("game_type", GAMES)
def test_an_undo_folds_to_the_state_and_views_before_the_move(game_type: str) -> None:
    engine = get_engine(game_type)
    stream, before, seat, after = _first(game_type, want_undoable=True)
    version_before = len(stream.entries)
    made = stream.decide(seat)
    assert isinstance(made, undo.CommandUndone), made
    assert (made.seat, made.command_id, made.last_version) == (seat, "the-move", version_before)
    stream.undo(made, "undo-1")
    folded = stream.folded()
    assert folded.version == version_before + 1  # the voided versions still count
    assert engine.encode_state(folded.state) == engine.encode_state(before)
    for viewer in [None, *range(stream.seats)]:
        assert _builtins(engine.view(folded.state, viewer)) == _builtins(engine.view(before, viewer))
    assert engine.prompt(folded.state) == engine.prompt(before)


@pytest.mark.parametrize("game_type", GAMES)
def test_a_move_that_reveals_is_refused_with_the_event_named(game_type: str) -> None:
    engine = get_engine(game_type)
    stream, _before, seat, _after = _first(game_type, want_undoable=False)
    refused = stream.decide(seat)
    assert isinstance(refused, undo.UndoRefused)
    assert refused.reason == undo.REVEALS_INFORMATION
    assert engine.reveals(engine.decode_event(next(e.data for e in stream.entries if e.type == refused.details["event"]
                                                   and e.command_id == "the-move")))


@pytest.mark.parametrize("game_type", GAMES)
def test_another_seats_move_since_and_the_undoing_seats_own_turn_end_are_refused(game_type: str) -> None:
    engine = get_engine(game_type)
    for stream, before, seat, _events, _after in played(game_type, 3):
        last = stream.entries[-1].seat
        prompt = engine.prompt(before)
        if last is None or last == seat or prompt is None or last in prompt.seats:
            continue
        # the newest commit is seat ``last``'s, and it passed the decision to ``seat``
        refused = stream.decide(seat)
        assert isinstance(refused, undo.UndoRefused) and refused.reason == undo.ANOTHER_SEAT_ACTED, refused
        assert refused.details["seat"] == last
        own = stream.decide(last)
        assert isinstance(own, undo.UndoRefused) and own.reason == undo.REVEALS_INFORMATION, own
        return
    raise AssertionError("no turn passed from one seat to another")


def test_undoing_twice_takes_back_two_moves_then_stops_at_what_revealed() -> None:
    """Nautilus: two silent moves of one seat in a row, undone one by one; the third undo meets the move before
    them (it revealed, or passed the turn) or another seat's move."""
    engine = get_engine("nautilus")
    for seed in range(1, 10):
        run: list[tuple[Any, list[Any]]] = []  # (state before, events) of a seat's silent moves in a row
        for stream, before, seat, events, after in played("nautilus", seed):
            if _undoable(engine, seat, events, after) and (not run or stream.entries[-1].seat == seat):
                run.append((before, events))
            else:
                run = []
            if len(run) == 2:
                stream.commit(events, seat, "second")
                first_before = run[0][0]
                made = [stream.decide(seat)]
                assert isinstance(made[0], undo.CommandUndone) and made[0].command_id == "second"
                stream.undo(made[0], "u1")
                assert engine.encode_state(stream.folded().state) == engine.encode_state(run[1][0])
                made.append(stream.decide(seat))
                assert isinstance(made[1], undo.CommandUndone) and made[1].last_version < made[0].first_version
                stream.undo(made[1], "u2")
                assert engine.encode_state(stream.folded().state) == engine.encode_state(first_before)
                third = stream.decide(seat)
                assert isinstance(third, undo.UndoRefused)
                assert third.reason in (undo.REVEALS_INFORMATION, undo.ANOTHER_SEAT_ACTED, undo.NOTHING_TO_UNDO)
                assert third.details["version"] < made[1].first_version
                return
    raise AssertionError("no two silent moves of one seat in a row")


def test_nothing_to_undo_off_and_game_over() -> None:
    engine = get_engine("nautilus")
    stream = Stream(engine, 2, 5)
    stream.commit(engine.start(_config(engine, 2, 5)), None, "create")
    refused = stream.decide(0)
    assert isinstance(refused, undo.UndoRefused) and refused.reason == undo.NOTHING_TO_UNDO
    stream, _before, seat, _after = _first("nautilus", want_undoable=True)
    off = stream.decide(seat, undo_mode="off")
    assert isinstance(off, undo.UndoRefused) and off.reason == undo.UNDO_OFF
    stream.platform(pe.GAME_ABORTED, "abort", reason="test", by="op")
    over = stream.decide(seat)
    assert isinstance(over, undo.UndoRefused) and over.reason == undo.GAME_OVER


def test_a_platform_commit_since_the_move_stands_in_the_way() -> None:
    stream, _before, seat, _after = _first("nautilus", want_undoable=True)
    stream.platform(pe.CLOCKS_STARTED, "clocks")
    refused = stream.decide(seat)
    assert isinstance(refused, undo.UndoRefused) and refused.reason == undo.NOTHING_TO_UNDO
    assert refused.details["event"] == pe.CLOCKS_STARTED


def test_the_decision_reads_further_back_when_the_tail_given_is_too_short() -> None:
    stream, _before, seat, _after = _first("nautilus", want_undoable=True)
    folded = stream.folded()
    with pytest.raises(undo.NeedEarlier):
        undo.decide(stream.engine, folded.state, False, "turn", stream.entries[-1:], seat)


# --- the fold ---------------------------------------------------------------------------------------------------

def test_a_fold_from_a_state_past_the_voided_versions_refuses_and_one_from_before_them_agrees() -> None:
    engine = get_engine("nautilus")
    stream, before, seat, _after = _first("nautilus", want_undoable=True)
    made = stream.decide(seat)
    assert isinstance(made, undo.CommandUndone)
    past = stream.folded()  # holds the move
    stream.undo(made, "u")
    with pytest.raises(UndoBeforeStart) as raised:
        fold_envelopes(engine, past, stream.entries[past.version:])
    assert raised.value.first_voided == made.first_version
    start = fold_envelopes(engine, Folded(0, engine.initial_state()), stream.entries[:made.first_version - 1])
    from_before = fold_envelopes(engine, start, stream.entries[made.first_version - 1:])
    whole = stream.folded()
    assert from_before.version == whole.version
    assert engine.encode_state(from_before.state) == engine.encode_state(whole.state) == engine.encode_state(before)
    assert lc.encode(from_before.life) == lc.encode(whole.life)


def test_a_voided_move_is_no_move_for_the_clocks_but_its_time_stays_spent() -> None:
    stream, _before, seat, _after = _first("nautilus", want_undoable=True)
    entries = list(stream.entries)
    moved = len([e for e in entries if e.command_id == "the-move"])
    head = len(entries) - moved
    clocked = [*entries[:head], Envelope(head + 1, pe.CLOCKS_STARTED, b'{"type":"clocks_started"}', kind=PLATFORM,
                                          command_id="clocks", ts_ms=entries[head - 1].ts_ms + 1)]
    clocked += [msgspec.structs.replace(e, version=e.version + 1, ts_ms=e.ts_ms + 5_000) for e in entries[head:]]
    stream.entries = clocked
    played_life = stream.folded().life
    made = stream.decide(seat)
    assert isinstance(made, undo.CommandUndone)
    stream.undo(made, "u")
    life = stream.folded().life
    assert played_life.moves.get(seat, 0) == life.moves.get(seat, 0) + 1  # the move no longer counts
    started = clocked[head].ts_ms
    assert seat in life.since and life.since[seat] <= started  # its clock ran on from before the move
    assert life.used.get(seat, 0) == 0


def test_the_option_undo_is_checked() -> None:
    assert lc.parse_options({}).undo == "turn"
    assert lc.parse_options({"undo": "off"}).undo == "off"
    with pytest.raises(lc.InvalidOption, match="undo must be one of"):
        lc.parse_options({"undo": "always"})
    assert lc.engine_options({"undo": "off", "x": 1}) == {"x": 1}
    assert any(o["name"] == "undo" and o["default"] == "turn" for o in lc.OPTION_DOCS)


@pytest.mark.parametrize("game_type", GAMES)
def test_random_moves_and_undos_fold_as_if_the_undone_moves_never_happened(game_type: str) -> None:
    """Random play with undos asked at random: each undo made folds back to the state before the move it takes
    back, and the whole stream folds to the replay of the commits not undone."""
    engine = get_engine(game_type)
    rng, bot = random.Random(11), RandomBot()
    stream = Stream(engine, 2, 11)
    stream.commit(engine.start(_config(engine, 2, 11)), None, "create")
    folded = stream.folded()
    undos = 0
    for n in range(250):
        prompt = engine.prompt(folded.state)
        if prompt is None:
            break
        seat = rng.choice(prompt.seats)
        events = engine.decide(folded.state, seat, bot.choose(engine, folded.state, seat, rng))
        before, at = folded, len(stream.entries)
        stream.commit(events, seat, f"m{n}")
        folded = fold_envelopes(engine, folded, stream.entries[at:])
        if rng.random() < 0.5:
            made = undo.decide(engine, folded.state, False, "turn", stream.entries, seat)
            if isinstance(made, undo.CommandUndone):
                stream.undo(made, f"u{n}")
                with pytest.raises(UndoBeforeStart):
                    fold_envelopes(engine, folded, stream.entries[-1:])
                folded = stream.folded()
                assert engine.encode_state(folded.state) == engine.encode_state(before.state)
                undos += 1
    assert undos >= 5, f"{game_type}: only {undos} undos in 250 moves"
    void = undo.voided(stream.entries)
    kept = [e for e in stream.entries if e.is_engine and not any(a <= e.version <= b for a, b in void)]
    replayed = engine.replay(engine.decode_event(e.data, e.engine_version) for e in kept)
    assert engine.encode_state(folded.state) == engine.encode_state(replayed)


def test_the_undo_metric_knows_every_outcome() -> None:
    assert set(UNDO_OUTCOMES) == {"taken_back", *undo.REASONS}
