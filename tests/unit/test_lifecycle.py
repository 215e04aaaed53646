"""The game lifecycle folded from a stream (benthic.game.lifecycle through benthic.game.gamestate): clocks from commit
timestamps, takeovers and reclaims, resignations, aborts, and the final ranking they make."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from benthic.game import lifecycle as lc
from benthic.game import platform_events as pe
from benthic.game.events import PLATFORM, Envelope
from benthic.game.gamestate import Folded, fold_envelopes
from benthic.play import platform_commits
from benthic.rules import GameConfig, get_engine
from benthic.store import GameMeta, SeatInfo
from tests.unit.toy_engine import ToyEngine

ENGINE = ToyEngine()


class Stream:
    """A game stream built commit by commit (the toy game: seats take turns, 3 cards each)."""

    def __init__(self, seats: int = 2) -> None:
        self.envelopes: list[Envelope] = []
        self.commit(0, None, [(e, True) for e in ENGINE.start(GameConfig(seats=seats, seed=7))], "create")
        self.state = ENGINE.replay(ENGINE.start(GameConfig(seats=seats, seed=7)))

    def commit(self, ts_ms: int, seat: int | None, events: list[tuple[Any, bool]], command_id: str) -> None:
        version = len(self.envelopes)
        for event, is_engine in events:
            version += 1
            if is_engine:
                data, type_, kind = ENGINE.encode_event(event), ENGINE.event_name(event), "e"
            else:
                type_, fields = event
                data, kind = msgspec.json.encode({"type": type_, **fields}), PLATFORM
            self.envelopes.append(Envelope(version, type_, data, kind, command_id, seat, ts_ms))

    def move(self, ts_ms: int, seat: int) -> None:
        command = ENGINE.legal_commands(self.state, seat)[0]
        events = ENGINE.decide(self.state, seat, command)
        self.state = ENGINE.fold(self.state, events)
        self.commit(ts_ms, seat, [(e, True) for e in events], f"m{len(self.envelopes)}")

    def platform(self, ts_ms: int, *events: tuple[str, dict[str, Any]]) -> None:
        self.commit(ts_ms, None, [(e, False) for e in events], f"p{len(self.envelopes)}")

    def folded(self) -> Folded:
        return fold_envelopes(ENGINE, Folded(0, ENGINE.initial_state()), self.envelopes)


FISCHER = lc.parse_options({"clock": {"mode": "fischer", "initial_s": 10, "increment_s": 2}})
PER_MOVE = lc.parse_options({"clock": {"mode": "per_move", "per_move_s": 30}, "on_expiry": "forfeit"})


def test_fischer_clocks_follow_the_commit_times() -> None:
    stream = Stream()
    stream.platform(1_000, ("clocks_started", {}))
    life = stream.folded().life
    assert lc.next_deadline(life, FISCHER, 2) == (11_000, 0)  # seat 0 is prompted: 10 s from 1 s
    stream.move(4_000, 0)  # 3 s used, +2 s
    life = stream.folded().life
    assert lc.next_deadline(life, FISCHER, 2) == (14_000, 1)
    view = lc.clock_view(life, FISCHER, 2)
    assert view is not None and view.as_of_ms == 4_000
    assert [(s.remaining_ms, s.running) for s in view.seats] == [(9_000, False), (10_000, True)]
    stream.move(5_000, 1)
    assert lc.next_deadline(stream.folded().life, FISCHER, 2) == (5_000 + 9_000, 0)


def test_clocks_run_only_once_started_and_per_move_deadlines_restart_each_move() -> None:
    stream = Stream()
    stream.move(2_000, 0)
    assert lc.next_deadline(stream.folded().life, PER_MOVE, 2) is None  # no clocks_started yet
    stream.platform(3_000, ("clocks_started", {}))
    assert lc.next_deadline(stream.folded().life, PER_MOVE, 2) == (33_000, 1)
    stream.move(10_000, 1)
    assert lc.next_deadline(stream.folded().life, PER_MOVE, 2) == (40_000, 0)


def test_a_taken_over_seat_has_no_deadline_until_reclaimed_then_a_fresh_clock() -> None:
    stream = Stream()
    stream.platform(0, ("clocks_started", {}))
    stream.platform(11_000, ("clock_expired", {"seat": 0, "deadline_ms": 10_000, "policy": "takeover"}),
                    ("seat_taken_over", {"seat": 0, "reason": "clock", "bot": "greedy"}))
    life = stream.folded().life
    assert life.taken_over == (0,) and lc.seat_status(life, 0) == "taken_over"
    assert lc.next_deadline(life, FISCHER, 2) is None
    stream.platform(12_000, ("seat_reclaimed", {"seat": 0, "player_id": "ann"}))
    life = stream.folded().life
    assert life.taken_over == () and lc.next_deadline(life, FISCHER, 2) == (22_000, 0)


def test_folding_commit_by_commit_equals_folding_the_whole_stream() -> None:
    stream = Stream(3)
    stream.platform(500, ("clocks_started", {}))
    for i, seat in enumerate([0, 1, 2, 0, 1]):
        stream.move(1_000 * (i + 2), seat)
    whole = stream.folded()
    step = Folded(0, ENGINE.initial_state())
    for i in range(len(stream.envelopes)):
        step = fold_envelopes(ENGINE, step, stream.envelopes[i:i + 1])
    assert step == whole
    # as the command service does it: advance after its own commit
    before = fold_envelopes(ENGINE, Folded(0, ENGINE.initial_state()), stream.envelopes[:-1])
    last = stream.envelopes[-1]
    assert lc.advance(before.life, ENGINE, whole.state, last.ts_ms, last.seat, True) == whole.life


def test_resigned_seats_rank_last_in_leaving_order_and_an_abort_has_no_results() -> None:
    stream = Stream(3)
    stream.platform(1, ("player_resigned", {"seat": 1, "player_id": "b"}))
    stream.platform(2, ("player_resigned", {"seat": 0, "player_id": "a"}))
    folded = stream.folded()
    assert lc.final_scores(ENGINE, folded.state, folded.life, 3) is None  # still running
    while (prompt := ENGINE.prompt(stream.state)) is not None:
        stream.move(3, prompt.seats[0])
    folded = stream.folded()
    scores = lc.final_scores(ENGINE, folded.state, folded.life, 3)
    assert scores is not None
    assert [(r.seat, r.rank) for r in scores.results] == [(2, 1), (0, 2), (1, 3)]
    assert scores.details["left"] == {"1": "resigned", "0": "resigned"}
    stream.platform(4, ("game_aborted", {"reason": "test", "by": "op"}))
    aborted = stream.folded()
    assert lc.final_scores(ENGINE, aborted.state, aborted.life, 3) == lc.FinalScores((), {"aborted": "test"})


def test_too_few_seats_in_play_end_the_game() -> None:
    assert lc.ends_after_leaving(lc.Lifecycle(out=(0,)), 2)
    assert not lc.ends_after_leaving(lc.Lifecycle(out=(0,)), 3)
    assert lc.ends_after_leaving(lc.Lifecycle(out=(0, 2)), 3)
    assert lc.ends_after_leaving(lc.Lifecycle(out=(0,)), 1)


@pytest.mark.parametrize("options", [
    {"clock": {"mode": "sundial"}},
    {"clock": {"mode": "fischer", "initial_s": 0}},
    {"clock": {"mode": "fischer", "initial_s": 60, "per_move_s": 5}},
    {"clock": {"mode": "per_move", "per_move_s": 0}},
    {"clock": {"mode": "per_move", "per_move_s": 60, "extra": 1}},
    {"clock": "fast"},
    {"clock": {"mode": "per_move", "per_move_s": 60}, "on_expiry": "shrug"},
    {"on_expiry": "abort"},
])
def test_bad_clock_options_are_refused_with_the_rule(options: dict[str, Any]) -> None:
    with pytest.raises(lc.InvalidOption) as refused:
        lc.parse_options(options)
    assert refused.value.message.startswith(("clock", "on_expiry"))


def test_the_engine_never_sees_the_platform_options() -> None:
    options = {"clock": {"mode": "per_move", "per_move_s": 60}, "on_expiry": "abort", "content": "x"}
    assert lc.engine_options(options) == {"content": "x"}
    assert lc.parse_options(options).on_expiry == "abort"


def test_a_vacation_stops_the_seats_clock_until_it_ends() -> None:
    stream = Stream()
    stream.platform(1_000, ("clocks_started", {}))
    assert lc.next_deadline(stream.folded().life, FISCHER, 2) == (11_000, 0)
    stream.platform(4_000, ("vacation_started", {"seat": 0, "player_id": "ann", "until_ms": 100_000}))
    life = stream.folded().life
    # 3 s used before it; the other 7 s run from the vacation's end
    assert life.away == {0: 100_000} and lc.next_deadline(life, FISCHER, 2) == (107_000, 0)
    assert lc.summary(life, FISCHER, 2)["seats"][0]["vacation_until"] == 100_000
    view = lc.clock_view(life, FISCHER, 2)
    assert view is not None and view.seats[0].remaining_ms == 7_000
    stream.platform(50_000, ("vacation_ended", {"seat": 0, "player_id": "ann", "reason": "returned"}))
    life = stream.folded().life
    assert life.away == {} and lc.next_deadline(life, FISCHER, 2) == (57_000, 0)


def test_a_vacation_pauses_per_move_clocks_and_the_seats_move_ends_it() -> None:
    stream = Stream()
    stream.platform(0, ("clocks_started", {}))
    stream.platform(1_000, ("vacation_started", {"seat": 1, "player_id": "bob", "until_ms": 500_000}))
    stream.move(2_000, 0)  # seat 1 prompted while away: its clock starts when the vacation ends
    life = stream.folded().life
    assert lc.next_deadline(life, PER_MOVE, 2) == (530_000, 1)
    stream.move(3_000, 1)  # its own move: back in this game
    life = stream.folded().life
    assert life.away == {} and lc.next_deadline(life, PER_MOVE, 2) == (33_000, 0)


def test_a_game_whose_every_seat_is_away_has_no_deadline_before_they_return() -> None:
    stream = Stream()
    stream.platform(0, ("clocks_started", {}))
    stream.platform(1_000, ("vacation_started", {"seat": 0, "player_id": "ann", "until_ms": 900_000}),
                    ("vacation_started", {"seat": 1, "player_id": "bob", "until_ms": 800_000}))
    assert lc.next_deadline(stream.folded().life, PER_MOVE, 2) == (930_000, 0)  # seat 0's turn: after its return


def test_a_move_that_ends_the_game_still_ends_the_movers_vacation() -> None:
    """Nautilus: both seats end their first turn at once, a round with no activity ends the game (§8.1); the
    seat on vacation made that last move, so its vacation_ended (``moved``) is recorded, as the matchmaker learns
    of the move from it; any other ending of a vacation is not recorded in a finished game."""
    engine = get_engine("nautilus")
    state = engine.replay(engine.start(GameConfig(seats=2, seed=2, options={})))
    for seat in (1, 0):
        state = engine.fold(state, engine.decide(state, seat, engine.legal_commands(state, seat)[0]))
    assert engine.is_over(state)
    meta = GameMeta("g", "nautilus", 9, "finished", [SeatInfo("ann"), SeatInfo("bob")], {}, created_ms=1,
                    updated_ms=1)
    folded = Folded(9, state, lc.Lifecycle(away={0: 900_000}))
    moved = platform_commits.vacation_ended(engine, meta, folded, "ann", "moved")
    assert moved is not None and [e.type for e in moved.events] == [pe.VACATION_ENDED]
    assert platform_commits.vacation_ended(engine, meta, folded, "ann", "returned") is None
