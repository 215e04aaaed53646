"""§10.5 Phase 3 (N-26 … N-42): launching, Echo, movement, the Gorge, recovery, Tempo, Trial, Atlantis,
taking submarines out of service."""

from __future__ import annotations

from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from tests.unit.nautilus.fixtures import (
    ENGINE,
    ORANGE,
    RED,
    VIOLET,
    YELLOW,
    first,
    gorge,
    names,
    of,
    one,
    ref,
    ref18,
)

Launch, Echo, MoveSub, Tempo = cmd.LaunchSub, cmd.Echo, cmd.MoveSub, cmd.TempoMove
# Where a scenario acts again after the seat's last real option, auto-pass would already have ended the
# turn: those scenes run with auto_pass off.
MANUAL = {"auto_pass": False}


def test_n26_launching() -> None:
    game = ref(phase=3, seat=RED)
    game.researchers(RED, "trial_1")
    assert game.in_station(RED, "trial_1") == 2 and game.state.seats[RED].supply == 13
    assert game.reject(RED, Launch(station="trial_1", cell=(11, 20))) == "exit_not_free"
    assert game.reject(RED, Launch(station="trial_1", cell=(9, 20))) == "not_a_blue_lock_exit"
    assert game.reject(RED, Launch(station="green_01", cell=(4, 15))) == "not_a_research_station"
    assert game.reject(RED, Launch(station="echo_1", cell=(4, 15))) == "not_a_research_station"  # not built
    assert game.reject(RED, Launch(station="kelp", cell=(4, 15))) == "invalid_argument"
    assert game.reject(RED, Launch(station="training_2", cell=(10, 20))) == "not_enough_researchers"
    launched = one(game.do(RED, Launch(station="trial_1", cell=(7, 20))), ev.SubLaunched)
    assert (launched.seat, launched.sub, launched.station, launched.cell) == (RED, 1, "trial_1", (7, 20))
    assert game.in_station(RED, "trial_1") == 1 and game.state.seats[RED].supply == 14
    assert game.reject(RED, Launch(station="trial_1", cell=(7, 20))) == "not_enough_researchers"

    full = ref(phase=3, seat=RED)
    full.researchers(RED, "trial_1")
    for sub, cell in ((1, (4, 4)), (2, (4, 5)), (3, (4, 6))):
        full.sub(RED, sub, cell)
    assert full.reject(RED, Launch(station="trial_1", cell=(7, 20))) == "no_sub_in_supply"

    violet = ref(phase=3, seat=VIOLET)
    violet.researchers(VIOLET, "training_1", 2)
    assert violet.reject(VIOLET, Launch(station="training_1", cell=(11, 17))) == "exit_not_free"
    assert Launch(station="training_1", cell=(7, 17)) in violet.legal(VIOLET)


def test_n27_launch_echo_move_order() -> None:
    game = ref(phase=3, seat=RED, **MANUAL)
    game.researchers(RED, "trial_1", 2)
    game.sub(RED, 1, (5, 20))
    game.do(RED, Echo(sub=1))
    assert game.nemo(RED) == 29
    assert game.reject(RED, Launch(station="trial_1", cell=(7, 20))) == "out_of_order"
    assert game.reject(RED, Echo(sub=1)) == "already_echoed"
    game.do(RED, MoveSub(sub=1, to=(5, 21)))
    assert game.reject(RED, Echo(sub=1)) == "out_of_order"
    assert game.reject(RED, Echo(sub=7)) == "invalid_argument"
    assert game.legal(RED) == [cmd.EndTurn()]


def _violet_scanning(echo_stations: int = 0):
    game = ref(phase=3, seat=VIOLET)
    for tile, anchor, rotation in [("echo_1", (14, 17), 0), ("echo_2", (14, 11), 180)][:echo_stations]:
        game.build(YELLOW, tile, anchor, rotation)
        game.researchers(VIOLET, tile)
    game.researchers(VIOLET, "training_2", 2)
    game.set_nemo(VIOLET, 30)
    game.turn(VIOLET, 3)
    game.do(VIOLET, Launch(station="training_2", cell=(10, 20)))
    assert game.sub_at(VIOLET, 1) == (10, 20)
    return game


def test_n28_echo_ranges_cost_and_privacy() -> None:
    game = _violet_scanning()
    events = game.do(VIOLET, Echo(sub=1))
    assert game.nemo(VIOLET) == 29
    used = one(events, ev.EchoUsed)
    assert (used.seat, used.sub, used.range, used.cells) == (VIOLET, 1, 4, ((6, 20), (9, 22), (11, 20)))
    peeked = one(events, ev.FindsPeeked)
    assert [(c.cell, c.chip) for c in peeked.chips] == [(c, game.chip_at(c)) for c in used.cells]
    for viewer in (RED, ORANGE, YELLOW, None):
        assert game.events and ENGINE.redact(peeked, viewer) == {
            "type": "finds_peeked", "seat": VIOLET, "source": "echo", "cells": [[6, 20], [9, 22], [11, 20]]
        }
    assert ENGINE.redact(peeked, VIOLET)["chips"][0]["chip"] == game.chip_at((6, 20))
    assert game.reject(VIOLET, Echo(sub=1)) == "already_echoed"
    assert game.reject(VIOLET, Echo(sub=2)) == "sub_not_deployed"

    one_station = _violet_scanning(1)
    used = one(one_station.do(VIOLET, Echo(sub=1)), ev.EchoUsed)
    assert used.range == 5 and used.cells == ((6, 20), (9, 22), (11, 20), (12, 23))
    two = _violet_scanning(2)
    used = one(two.do(VIOLET, Echo(sub=1)), ev.EchoUsed)
    assert used.range == 6
    assert used.cells == ((4, 20), (6, 20), (7, 23), (9, 22), (11, 20), (12, 23), (14, 22))

    broke = _violet_scanning()
    broke.set_nemo(VIOLET, 0)
    assert broke.reject(VIOLET, Echo(sub=1)) == "insufficient_funds"


def test_n29_echo_and_the_gorge() -> None:
    game = ref(phase=3, seat=YELLOW)
    game.sub(YELLOW, 1, (9, 3))
    assert one(game.do(YELLOW, Echo(sub=1)), ev.EchoUsed).cells == ((8, 4), (9, 7))
    deep = ref(phase=3, seat=YELLOW)
    deep.sub(YELLOW, 1, (9, 2))
    assert one(deep.do(YELLOW, Echo(sub=1)), ev.EchoUsed).cells == ((8, 2), (8, 4), (10, 0), (12, 2))


def _with_technology(game, seat: int) -> None:
    game.build(YELLOW, "technology_1", (8, 11), 180)
    game.researchers(seat, "technology_1")


def test_n30_finds_block_paths_technology_range() -> None:
    game = ref(chips={(4, 20): "D04"}, phase=3, seat=RED, **MANUAL)
    game.sub(RED, 1, (7, 20))
    assert game.reject(RED, MoveSub(sub=1, to=(4, 20))) == "unreachable"
    moved = one(game.do(RED, MoveSub(sub=1, to=(5, 20))), ev.SubMoved)
    assert moved.steps == 4 and moved.mode == "normal" and len(moved.path) == 5
    assert all(not game.chip_at(c) for c in moved.path[:-1] if C.cell(*c) in C.find_space_at)
    assert game.reject(RED, MoveSub(sub=1, to=(5, 21))) == "sub_already_moved"
    assert game.reject(RED, MoveSub(sub=3, to=(5, 21))) == "sub_not_deployed"
    assert game.reject(RED, MoveSub(sub=1, to=(25, 21))) == "invalid_argument"

    tech = ref(chips={(4, 20): "D04"}, phase=3, seat=RED)
    _with_technology(tech, RED)
    tech.sub(RED, 1, (7, 20))
    tech.turn(RED, 3)
    events = tech.do(RED, MoveSub(sub=1, to=(4, 20)))
    assert one(events, ev.SubMoved).steps == 5
    recovered = one(events, ev.FindRecovered)
    assert (recovered.chip, recovered.cost) == ("D04", 1) and "D04" in tech.state.seats[RED].tableau


def test_n31_passing_over_stations_and_subs_destinations() -> None:
    game = ref(phase=3, seat=ORANGE)
    game.sub(ORANGE, 1, (10, 12))
    moved = one(game.do(ORANGE, MoveSub(sub=1, to=(14, 12))), ev.SubMoved)
    assert moved.steps == 4 and moved.path == ((10, 12), (11, 12), (12, 12), (13, 12), (14, 12))

    over = ref(phase=3, seat=YELLOW)
    over.sub(YELLOW, 1, (14, 10))
    over.sub(ORANGE, 1, (15, 10))
    assert over.reject(YELLOW, MoveSub(sub=1, to=(15, 10))) == "invalid_destination"
    assert over.reject(YELLOW, MoveSub(sub=1, to=(12, 12))) == "invalid_destination"
    assert over.reject(YELLOW, MoveSub(sub=1, to=(14, 10))) == "invalid_destination"
    assert one(over.do(YELLOW, MoveSub(sub=1, to=(17, 10))), ev.SubMoved).steps == 3


def test_n32_recovery_prices_and_chests() -> None:
    crab = ref(chips={(13, 10): "S07"}, phase=3, seat=YELLOW)
    crab.sub(YELLOW, 1, (14, 10))
    events = crab.do(YELLOW, MoveSub(sub=1, to=(13, 10)))
    assert names(events)[:3] == ["sub_moved", "find_revealed", "find_recovered"]
    assert one(events, ev.FindRecovered).cost == 1 and crab.nemo(YELLOW) == 29
    assert crab.state.seats[YELLOW].tableau == ("S07",) and not crab.chip_at((13, 10))

    gold = ref(chips={(8, 2): "G01"}, phase=3, seat=YELLOW)
    gold.patch(gorge_open=True)
    gold.sub(YELLOW, 1, (9, 2))
    assert one(gold.do(YELLOW, MoveSub(sub=1, to=(8, 2))), ev.FindRecovered).cost == 2
    assert gold.nemo(YELLOW) == 28

    for analysis, paid in ((0, 2), (1, 3), (3, 4)):
        for nemo in (30, 0):
            chest = ref(chips={(6, 20): "S21"}, phase=3, seat=RED)
            sites = [("analysis_2", (14, 17), 0), ("analysis_3", (14, 11), 180), ("analysis_4", (8, 11), 180)]
            for tile, anchor, rotation in sites[:analysis]:
                chest.build(YELLOW, tile, anchor, rotation)
                chest.researchers(RED, tile)
            chest.set_nemo(RED, nemo)
            chest.sub(RED, 1, (7, 20))
            chest.turn(RED, 3)
            events = chest.do(RED, MoveSub(sub=1, to=(6, 20)))
            assert one(events, ev.FindRecovered).cost == 0
            income = one(events, ev.NemoTransferred)
            assert (income.from_, income.to, income.amount) == ("bank", RED, paid)
            assert income.reason == "treasure_chest"
            assert chest.nemo(RED) == nemo + paid and "S21" in chest.state.box


def test_n33_tempo() -> None:
    def scene():
        game = ref(chips={(7, 23): "D20", (9, 22): "S08"}, phase=3, seat=RED)
        game.sub(RED, 1, (7, 20))
        game.sub(RED, 2, (10, 20))
        return game

    game = scene()
    events = game.do(RED, MoveSub(sub=1, to=(7, 23)))
    assert one(events, ev.SubMoved).steps == 3 and one(events, ev.FindRecovered).cost == 0
    assert game.prompt.kind == "tempo_move" and game.prompt.details == {"sub": 1}
    assert game.reject(RED, Tempo(sub=1, to=(4, 20))) == "unreachable"
    assert game.reject(RED, cmd.EndTurn()) == "wrong_prompt"
    events = game.do(RED, Tempo(sub=1, to=(9, 22)))
    moved = one(events, ev.SubMoved)
    assert (moved.steps, moved.mode) == (3, "tempo")
    assert one(events, ev.FindRecovered).chip == "S08" and game.nemo(RED) == 29
    assert game.prompt.kind == "phase3_turn"

    other = scene()
    other.do(RED, MoveSub(sub=1, to=(7, 23)))
    assert one(other.do(RED, Tempo(sub=2, to=(10, 21))), ev.SubMoved).steps == 1
    assert other.prompt.kind == "phase3_turn" and other.prompt.details["moved"] == [1]
    assert any(isinstance(c, MoveSub) and c.sub == 2 for c in other.legal(RED))
    other.do(RED, MoveSub(sub=2, to=(10, 22)))

    skipped = scene()
    skipped.do(RED, MoveSub(sub=1, to=(7, 23)))
    declined = one(skipped.do(RED, cmd.SkipTempo()), ev.OptionDeclined)
    assert (declined.option, declined.auto) == ("tempo", False)


def test_recovery_ends_the_subs_movement_even_after_a_tempo_move() -> None:
    """Rulebook ("That submarine's movement is thereby ended for this phase", spec §6.8):
    a Tempo move that ends on a find uses up that sub's normal move; R-14 still holds for a Tempo move that
    ends on no find (the N-33 variant above)."""

    def scene():
        game = ref(chips={(7, 23): "D20", (9, 22): "S08"}, phase=3, seat=RED, **MANUAL)
        game.sub(RED, 1, (7, 20))
        game.sub(RED, 2, (10, 20))
        return game

    game = scene()
    game.do(RED, MoveSub(sub=1, to=(7, 23)))  # recovers the Tempo chip
    assert one(game.do(RED, Tempo(sub=2, to=(9, 22))), ev.FindRecovered).chip == "S08"
    assert game.prompt.kind == "phase3_turn" and game.prompt.details["moved"] == [1, 2]
    assert game.reject(RED, MoveSub(sub=2, to=(9, 21))) == "sub_already_moved"
    assert not any(isinstance(c, (MoveSub, cmd.WithdrawSub)) and c.sub == 2 for c in game.legal(RED))

    broke = scene()  # an unaffordable find ends the move on it just the same (§6.8 step 3, R-13)
    broke.do(RED, MoveSub(sub=1, to=(7, 23)))
    broke.set_nemo(RED, 0)
    assert one(broke.do(RED, Tempo(sub=2, to=(9, 22))), ev.FindUnaffordable).chip == "S08"
    assert broke.reject(RED, MoveSub(sub=2, to=(9, 21))) == "sub_already_moved"

    with_auto_pass = ref(chips={(7, 23): "D20", (9, 22): "S08"}, phase=3, seat=RED)
    with_auto_pass.sub(RED, 1, (7, 20))
    with_auto_pass.sub(RED, 2, (10, 20))
    with_auto_pass.do(RED, MoveSub(sub=1, to=(7, 23)))
    events = with_auto_pass.do(RED, Tempo(sub=2, to=(9, 22)))
    assert not any(isinstance(c, MoveSub) for c in with_auto_pass.legal(RED))
    assert one(events, ev.FindRecovered).chip == "S08"


def _trial_scene(trial_stations: int = 2, nemo: int = 30):
    game = ref(chips={(6, 20): "S13"}, phase=3, seat=RED, **MANUAL)
    if trial_stations == 0:
        rows = game.state.occupancy
        game.patch(occupancy=tuple(tuple(0 if s == RED else n for s, n in enumerate(row)) for row in rows))
        game.apply(ev.ResearchTrackChanged(seat=RED, research_type="trial", count=0, value=0))
    if trial_stations == 2:
        game.build(YELLOW, "trial_2", (14, 17), 0)
        game.researchers(RED, "trial_2")
    game.set_nemo(RED, nemo)
    game.sub(RED, 1, (7, 20))
    game.turn(RED, 3)
    assert game.count(RED, "trial") == trial_stations
    return game


def test_n34_trial_peeks_at_different_depths() -> None:
    game = _trial_scene()
    events = game.do(RED, MoveSub(sub=1, to=(6, 20)))
    assert one(events, ev.FindRecovered).cost == 1 and game.state.seats[RED].tableau == ("S13",)
    assert game.prompt.kind == "trial_peek" and game.prompt.details == {"peeks_left": 2}
    assert game.reject(RED, cmd.Peek(cell=(6, 20))) == "not_face_down_find"
    assert game.reject(RED, cmd.Peek(cell=(6, 21))) == "not_face_down_find"
    peeked = one(game.do(RED, cmd.Peek(cell=(9, 22))), ev.FindsPeeked)
    assert peeked.source == "trial" and [c.cell for c in peeked.chips] == [(9, 22)]
    public = {"type": "finds_peeked", "seat": RED, "source": "trial", "count": 1}
    assert ENGINE.redact(peeked, ORANGE) == public
    assert game.reject(RED, cmd.Peek(cell=(9, 22))) == "duplicate_peek"
    assert game.reject(RED, cmd.Peek(cell=(5, 18))) == "same_depth_not_allowed"
    assert all(C.zone[C.cell(*c.cell)] != "slope" for c in game.legal(RED) if isinstance(c, cmd.Peek))
    game.do(RED, cmd.Peek(cell=(10, 0)))
    assert game.prompt.kind == "phase3_turn"
    known = {tuple(k["cell"]) for k in ENGINE.view(game.state, RED)["known_finds"]}
    assert known == {(9, 22), (10, 0)} and not ENGINE.view(game.state, ORANGE)["known_finds"]


def test_n34_variants() -> None:
    slope_only = _trial_scene()
    finds = tuple(
        chip if C.find_space_depth[i] == "slope" else "" for i, chip in enumerate(slope_only.state.finds)
    )
    slope_only.patch(finds=finds)
    slope_only.do(RED, MoveSub(sub=1, to=(6, 20)))
    slope_only.do(RED, cmd.Peek(cell=(9, 22)))
    slope_only.do(RED, cmd.Peek(cell=(5, 18)))
    assert slope_only.prompt.kind == "phase3_turn"

    single = _trial_scene(1)
    single.do(RED, MoveSub(sub=1, to=(6, 20)))
    assert single.prompt.details == {"peeks_left": 1}
    single.do(RED, cmd.Peek(cell=(9, 22)))
    assert single.prompt.kind == "phase3_turn"

    declined = _trial_scene(1)
    declined.do(RED, MoveSub(sub=1, to=(6, 20)))
    assert one(declined.do(RED, cmd.EndPeeks()), ev.OptionDeclined).option == "trial"

    for trials, nemo in ((0, 30), (2, 0)):
        none = _trial_scene(trials, nemo)
        events = none.do(RED, MoveSub(sub=1, to=(6, 20)))
        assert none.prompt.kind == "phase3_turn"
        assert bool(of(events, ev.FindUnaffordable)) == (nemo == 0)


def test_n35_atlantis_find_and_bonus_move() -> None:
    game = ref18(chips={(11, 20): "S04"}, phase=3, seat=VIOLET)
    game.sub(VIOLET, 1, (10, 20))
    events = game.do(VIOLET, MoveSub(sub=1, to=(11, 20)))
    assert game.nemo(VIOLET) == 29
    tracker = one(events, ev.AtlantisToTracker)
    assert (tracker.number, tracker.seat, tracker.cause) == (4, VIOLET, "recovered")
    assert game.prompt.kind == "atlantis_bonus" and game.prompt.details == {"atlantis_number": 4}
    Bonus = cmd.BonusMoveResearcher
    assert game.reject(VIOLET, Bonus(from_="green_01", to="blue_01")) == "not_enough_steps"
    assert game.reject(VIOLET, Bonus(from_="training_1", to="base")) == "researcher_locked"
    assert game.reject(VIOLET, Bonus(from_="green_01", to="green_01")) == "same_station"
    assert game.reject(VIOLET, Bonus(from_="base", to="training_1")) == "no_researcher_there"
    events = game.do(VIOLET, Bonus(from_="green_01", to="analysis_1"))
    moved = one(events, ev.ResearcherMoved)
    assert (moved.steps, moved.source) == (2, "atlantis_bonus")
    assert game.nemo(VIOLET) == 28 and game.nemo(ORANGE) == 31 and game.count(VIOLET, "analysis") == 1
    assert game.state.atlantis_finder[3] == VIOLET


def test_n36_the_bonus_raises_submarine_range_at_once() -> None:
    def scene():
        game = ref(chips={(11, 20): "S04"}, phase=3, seat=VIOLET)
        game.build(YELLOW, "technology_1", (8, 11), 180)
        game.researchers(YELLOW, "technology_1")
        game.researchers(VIOLET, "base")
        game.set_nemo(YELLOW, 30)
        game.sub(VIOLET, 1, (10, 20))
        game.sub(VIOLET, 2, (14, 10))
        game.turn(VIOLET, 3)
        game.do(VIOLET, MoveSub(sub=1, to=(11, 20)))
        return game

    game = scene()
    events = game.do(VIOLET, cmd.BonusMoveResearcher(from_="base", to="technology_1"))
    assert one(events, ev.ResearcherMoved).steps == 1
    assert one(events, ev.NemoTransferred).to == YELLOW and game.nemo(YELLOW) == 31
    assert game.count(VIOLET, "technology") == 1
    assert one(game.do(VIOLET, MoveSub(sub=2, to=(14, 5))), ev.SubMoved).steps == 5

    skipped = scene()
    skipped.do(VIOLET, cmd.SkipBonus())
    assert skipped.reject(VIOLET, MoveSub(sub=2, to=(14, 5))) == "unreachable"


def _all_five(game, seat: int) -> None:
    game.build(ORANGE, "technology_1", (8, 11), 180)
    game.build(ORANGE, "echo_1", (14, 17), 0)
    for tile in ("training_1", "technology_1", "echo_1", "trial_1", "analysis_1"):
        game.researchers(seat, tile)


def test_n37_the_gorge_gate() -> None:
    game = ref(phase=3, seat=RED)
    _all_five(game, YELLOW)
    game.sub(RED, 1, (9, 4))
    game.sub(YELLOW, 1, (9, 3))
    game.turn(RED, 3)
    assert game.reject(RED, MoveSub(sub=1, to=(10, 2))) == "gorge_locked"
    assert all(not C.is_gorge[C.cell(*c.to)] for c in game.legal(RED) if isinstance(c, MoveSub))
    game.turn(YELLOW, 3)
    events = game.do(YELLOW, MoveSub(sub=1, to=(11, 3)))
    assert not of(events, ev.GorgeOpened) and not game.state.gorge_open
    game.turn(YELLOW, 3)
    events = game.do(YELLOW, MoveSub(sub=1, to=(9, 2)))
    opened = one(events, ev.GorgeOpened)
    assert (opened.seat, opened.cause) == (YELLOW, "entry") and game.state.gorge_open
    game.turn(RED, 3)
    assert one(game.do(RED, MoveSub(sub=1, to=(10, 2))), ev.SubMoved).steps == 3


def test_r11_a_gorge_free_path_is_preferred() -> None:
    game = ref(phase=3, seat=YELLOW)
    game.patch(gorge_open=True)
    game.sub(YELLOW, 1, (14, 2))
    # BFS over all cells would reach [16,3] through [15,2], [16,2] first; R-11 keeps out of the Gorge
    moved = one(game.do(YELLOW, MoveSub(sub=1, to=(16, 3))), ev.SubMoved)
    assert moved.path == ((14, 2), (14, 3), (15, 3), (16, 3))


def test_n38_launching_into_the_gorge_opens_it() -> None:
    game = gorge(phase=3, seat=RED)
    game.researchers(RED, "trial_2", 2)
    game.turn(RED, 3)
    events = game.do(RED, Launch(station="trial_2", cell=(10, 1)))
    assert one(events, ev.SubLaunched).cell == (10, 1)
    opened = one(events, ev.GorgeOpened)
    assert (opened.seat, opened.cause) == (RED, "launch") and game.state.gorge_open


def test_n39_unaffordable_find() -> None:
    game = ref(chips={(13, 10): "S07"}, phase=3, seat=ORANGE, **MANUAL)
    game.set_nemo(ORANGE, 0)
    game.sub(ORANGE, 1, (14, 10))
    game.sub(YELLOW, 1, (12, 9))
    flags = (game.state.round_recovered,)
    events = game.do(ORANGE, MoveSub(sub=1, to=(13, 10)))
    assert names(events)[:3] == ["sub_moved", "find_revealed", "find_unaffordable"]
    assert game.chip_at((13, 10)) == "S07" and game.state.face_up[C.find_space_at[C.cell(13, 10)]]
    assert game.sub_at(ORANGE, 1) == (13, 10) and not game.state.seats[ORANGE].tableau
    assert (game.state.round_recovered,) == flags and game.prompt.kind == "phase3_turn"
    game.turn(YELLOW, 3)
    events = game.do(YELLOW, MoveSub(sub=1, to=(13, 10)))
    assert one(events, ev.SubMoved).steps == 2 and not of(events, ev.FindRevealed)
    assert one(events, ev.FindRecovered).cost == 1 and game.state.seats[YELLOW].tableau == ("S07",)

    atlantis = ref(chips={(13, 10): "S05"}, phase=3, seat=ORANGE, **MANUAL)
    atlantis.set_nemo(ORANGE, 0)
    atlantis.sub(ORANGE, 1, (14, 10))
    events = atlantis.do(ORANGE, MoveSub(sub=1, to=(13, 10)))
    tracker = one(events, ev.AtlantisToTracker)
    assert (tracker.number, tracker.seat, tracker.cause) == (5, None, "unaffordable")
    assert atlantis.prompt.kind == "phase3_turn" and not atlantis.chip_at((13, 10))
    assert atlantis.sub_at(ORANGE, 1) == (13, 10) and atlantis.state.atlantis_out[4]


def test_n40_taking_a_submarine_out_of_service() -> None:
    def scene(**options):
        game = ref18(phase=3, seat=RED, **options)
        game.sub(RED, 1, (7, 20))
        game.set_nemo(RED, 30)
        return game

    game = scene()
    assert game.state.seats[RED].supply == 14
    assert game.reject(RED, MoveSub(sub=1, to=(7, 17), withdraw_into="trial_1")) == "cannot_withdraw_here"
    assert game.reject(RED, MoveSub(sub=1, to=(11, 20), withdraw_into="trial_1")) == "cannot_withdraw_here"
    assert game.reject(RED, MoveSub(sub=1, to=(7, 17), withdraw_into="nope")) == "invalid_argument"
    events = game.do(RED, MoveSub(sub=1, to=(7, 17), withdraw_into="training_1"))
    assert one(events, ev.SubMoved).steps == 3
    withdrawn = one(events, ev.SubWithdrawn)
    assert (withdrawn.seat, withdrawn.sub, withdrawn.cell) == (RED, 1, (7, 17))
    assert (withdrawn.station, withdrawn.researcher_placed) == ("training_1", True)
    assert names(events)[1:4] == ["sub_withdrawn", "researcher_placed", "station_activated"]
    activated = one(events, ev.StationActivated)
    assert (activated.fee, activated.owner) == (1, VIOLET)
    assert game.nemo(RED) == 29 and game.nemo(VIOLET) == 31 and game.count(RED, "training") == 1
    assert game.sub_at(RED, 1) is None

    empty = scene()
    empty.empty_supply(RED)
    events = empty.do(RED, MoveSub(sub=1, to=(7, 17), withdraw_into="training_1"))
    assert not one(events, ev.SubWithdrawn).researcher_placed and not of(events, ev.StationActivated)
    assert empty.nemo(RED) == 30 and empty.sub_at(RED, 1) is None

    broke = scene()
    broke.set_nemo(RED, 0)
    assert broke.reject(RED, MoveSub(sub=1, to=(7, 17), withdraw_into="training_1")) == "insufficient_funds"

    nobody = ref(phase=3, seat=ORANGE)
    nobody.sub(ORANGE, 1, (14, 11))
    into_empty = MoveSub(sub=1, to=(14, 10), withdraw_into="analysis_1")
    assert nobody.reject(ORANGE, into_empty) == "cannot_withdraw_here"


def test_n41_withdrawal_in_place() -> None:
    game = ref(phase=3, seat=RED, **MANUAL)
    game.sub(RED, 1, (7, 20))
    events = game.do(RED, cmd.WithdrawSub(sub=1, station="trial_1"))
    assert names(events)[:2] == ["sub_withdrawn", "researcher_placed"]
    assert not of(events, ev.StationActivated) and not of(events, ev.NemoTransferred)
    assert game.in_station(RED, "trial_1") == 2 and game.sub_at(RED, 1) is None
    assert game.prompt.details["launch_open"] is False
    assert game.reject(RED, Launch(station="trial_1", cell=(7, 20))) == "out_of_order"

    off = ref(phase=3, seat=RED, allow_withdraw_in_place=False)
    off.sub(RED, 1, (7, 20))
    assert off.reject(RED, cmd.WithdrawSub(sub=1, station="trial_1")) == "withdraw_in_place_disabled"

    moved = ref(phase=3, seat=RED, **MANUAL)
    moved.sub(RED, 1, (7, 21))
    moved.do(RED, MoveSub(sub=1, to=(7, 20)))
    assert moved.reject(RED, cmd.WithdrawSub(sub=1, station="trial_1")) == "sub_already_moved"


def test_n42_a_withdrawal_can_take_the_3_chip() -> None:
    game = ref(phase=3, seat=RED)
    game.build(YELLOW, "analysis_2", (14, 17), 0)
    game.researchers(RED, "analysis_2")
    game.researchers(ORANGE, "analysis_1")
    game.set_nemo(YELLOW, 30)
    game.sub(RED, 1, (14, 11))
    game.turn(RED, 3)
    events = game.do(RED, MoveSub(sub=1, to=(14, 10), withdraw_into="analysis_1"))
    assert game.nemo(RED) == 29 and game.nemo(ORANGE) == 31
    chip = one(events, ev.ThreeChipMoved)
    assert (chip.research_type, chip.from_seat, chip.to_seat) == ("analysis", None, RED)
    assert first(events, ev.ResearchTrackChanged).value == 3 and game.count(RED, "analysis") == 2


def test_r9_sub_prompts_without_a_choice_are_skipped_automatically() -> None:
    # Yellow has no researcher in the city: the Atlantis bonus has no legal move
    game = ref(chips={(11, 20): "S04"}, phase=3, seat=YELLOW)
    game.sub(YELLOW, 1, (10, 20))
    events = game.do(YELLOW, MoveSub(sub=1, to=(11, 20)))
    declined = one(events, ev.OptionDeclined)
    assert (declined.seat, declined.option, declined.auto) == (YELLOW, "atlantis_bonus", True)
    assert names(events).index("option_declined") > names(events).index("atlantis_to_tracker")

    manual = ref(chips={(11, 20): "S04"}, phase=3, seat=YELLOW, **MANUAL)
    manual.sub(YELLOW, 1, (10, 20))
    manual.do(YELLOW, MoveSub(sub=1, to=(11, 20)))
    assert manual.prompt.kind == "atlantis_bonus" and manual.legal(YELLOW) == [cmd.SkipBonus()]
