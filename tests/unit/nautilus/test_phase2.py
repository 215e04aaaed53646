"""§10.4 Phase 2 (N-17 … N-25) and the seed's Phase-2 examples (§6.3, §6.4)."""

from __future__ import annotations

from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.derived import TECHNOLOGY, research_value
from tests.unit.nautilus.fixtures import ORANGE, RED, VIOLET, YELLOW, Game, first, names, of, one, ref, ref18

Move = cmd.MoveResearcher


def test_n17_passing_through_stations() -> None:
    game = ref(phase=2, seat=VIOLET)
    events = game.do(VIOLET, Move(from_="green_01", to="blue_01"))
    moved = one(events, ev.ResearcherMoved)
    assert moved.steps == 3 and moved.path == ("green_01", "training_1", "analysis_1", "blue_01")
    assert moved.source == "phase2"
    assert not of(events, ev.StationActivated) and not of(events, ev.NemoTransferred)
    assert game.nemo(VIOLET) == 30 and game.state.seats[VIOLET].counts == (0,) * 5
    assert game.in_station(VIOLET, "blue_01") == 1


def test_n18_violet_first_example_budget_rises_steps_forfeited() -> None:
    game = ref(phase=2, seat=VIOLET)
    events = game.do(VIOLET, Move(from_="green_01", to="training_1"))
    assert one(events, ev.ResearcherMoved).steps == 1
    activated = one(events, ev.StationActivated)
    assert (activated.station, activated.fee, activated.owner) == ("training_1", 0, VIOLET)
    track = one(events, ev.ResearchTrackChanged)
    assert (track.research_type, track.count, track.value) == ("training", 1, 0)
    assert game.prompt.details == {"budget": 4, "steps_used": 1, "researchers_moved": 1}

    events = game.do(VIOLET, Move(from_="green_01", to="training_2"))
    moved = one(events, ev.ResearcherMoved)
    assert moved.steps == 2 and moved.path == ("green_01", "training_1", "training_2")
    chip = one(events, ev.ThreeChipMoved)
    assert (chip.research_type, chip.from_seat, chip.to_seat) == ("training", None, VIOLET)
    track = one(events, ev.ResearchTrackChanged)
    assert (track.count, track.value) == (2, 3)
    ended = first(events, ev.TurnEnded)
    assert (ended.seat, ended.phase, ended.auto) == (VIOLET, 2, True)
    assert names(events)[:5] == [
        "researcher_moved", "station_activated", "three_chip_moved", "research_track_changed", "turn_ended"
    ]
    nxt = first(events, ev.TurnStarted)
    assert (nxt.round, nxt.phase, nxt.seat) == (5, 2, YELLOW)
    assert game.nemo(VIOLET) == 30


def test_n19_violet_second_example_immediate_bonus_step_detour_fee() -> None:
    game = ref(phase=2, seat=VIOLET)
    game.do(VIOLET, Move(from_="green_01", to="training_1"))
    events = game.do(VIOLET, Move(from_="green_01", to="trial_1"))
    moved = one(events, ev.ResearcherMoved)
    assert moved.steps == 3 and moved.path == ("green_01", "training_1", "base", "trial_1")
    fee = one(events, ev.NemoTransferred)
    assert (fee.from_, fee.to, fee.amount, fee.reason) == (VIOLET, RED, 1, "activation_fee")
    assert game.nemo(VIOLET) == 29 and game.nemo(RED) == 31
    assert game.count(VIOLET, "trial") == 1 and not of(events, ev.ThreeChipMoved)
    assert one(events, ev.ResearchTrackChanged).value == 0
    assert first(events, ev.TurnEnded).auto


def test_n20_without_the_training_bonus_the_detour_is_impossible() -> None:
    game = ref(phase=2, seat=VIOLET)
    game.do(VIOLET, Move(from_="green_01", to="analysis_1"))
    assert game.nemo(VIOLET) == 29 and game.nemo(ORANGE) == 31 and game.count(VIOLET, "analysis") == 1
    assert game.prompt.details == {"budget": 3, "steps_used": 2, "researchers_moved": 1}
    assert game.reject(VIOLET, Move(from_="green_01", to="trial_1")) == "not_enough_steps"
    assert one(game.do(VIOLET, Move(from_="green_01", to="training_1")), ev.ResearcherMoved).steps == 1


def test_n21_locked_researcher_and_parking() -> None:
    game = ref18(phase=2, seat=VIOLET)
    assert game.prompt.details["budget"] == 5
    assert game.reject(VIOLET, Move(from_="training_1", to="base")) == "researcher_locked"
    events = game.do(VIOLET, Move(from_="green_01", to="training_1"))
    assert not of(events, ev.StationActivated) and not of(events, ev.NemoTransferred)
    assert game.count(VIOLET, "training") == 2 and game.in_station(VIOLET, "training_1") == 2
    events = game.do(VIOLET, Move(from_="training_1", to="base"))
    assert one(events, ev.ResearcherMoved).steps == 1 and first(events, ev.TurnEnded).auto
    assert game.count(VIOLET, "training") == 2 and game.in_station(VIOLET, "training_1") == 1


def test_n22_other_movement_errors() -> None:
    for auto_pass in (True, False):
        game = ref(phase=2, seat=VIOLET, auto_pass=auto_pass)
        assert game.reject(VIOLET, Move(from_="green_01", to="green_01")) == "same_station"
        assert game.reject(VIOLET, Move(from_="base", to="training_1")) == "no_researcher_there"
        assert game.reject(VIOLET, Move(from_="nope", to="training_1")) == "invalid_argument"
        # trial_4 is not on the board
        assert game.reject(VIOLET, Move(from_="green_01", to="trial_4")) == "invalid_argument"
        assert one(game.do(VIOLET, Move(from_="green_01", to="base")), ev.ResearcherMoved).steps == 2
        assert game.reject(VIOLET, Move(from_="base", to="training_2")) == "researcher_already_moved"
        game.do(VIOLET, Move(from_="green_01", to="training_1"))
        if auto_pass:
            assert game.reject(VIOLET, Move(from_="green_01", to="training_1")) == "not_your_turn"
        else:
            assert game.prompt.details == {"budget": 4, "steps_used": 3, "researchers_moved": 2}
            assert game.reject(VIOLET, Move(from_="green_01", to="training_1")) == "move_limit_reached"
            assert game.legal(VIOLET) == [cmd.EndTurn()]


def test_n23_activation_fees() -> None:
    game = ref(phase=2, seat=VIOLET)
    game.set_nemo(VIOLET, 0)
    assert game.reject(VIOLET, Move(from_="green_01", to="analysis_1")) == "insufficient_funds"
    assert Move(from_="green_01", to="analysis_1") not in game.legal(VIOLET)
    game.do(VIOLET, Move(from_="green_01", to="training_1"))

    later = ref(phase=2, seat=VIOLET)
    later.do(VIOLET, Move(from_="green_01", to="training_1"))
    later.do(VIOLET, Move(from_="green_01", to="trial_1"))
    assert later.nemo(VIOLET) == 29
    later.round(6, 1)
    later.turn(VIOLET, 2)
    events = later.do(VIOLET, Move(from_="green_01", to="trial_1"))
    assert not of(events, ev.NemoTransferred) and not of(events, ev.StationActivated)
    assert later.nemo(VIOLET) == 29 and later.count(VIOLET, "trial") == 1
    assert later.in_station(VIOLET, "trial_1") == 2


def test_n24_the_3_chip_majority_ties_and_locked_at_4() -> None:
    game = Game()
    sites = [("technology_1", (14, 14), 0), ("technology_2", (8, 14), 0), ("technology_3", (11, 11), 270),
             ("technology_4", (11, 17), 90)]
    for tile, anchor, rotation in sites:
        game.build(YELLOW, tile, anchor, rotation)
    steps = [
        (RED, ["technology_1"], None, (0, 0)),
        (RED, ["technology_2"], RED, (3, 0)),
        (ORANGE, ["technology_1", "technology_2"], RED, (3, 1)),
        (ORANGE, ["technology_3"], ORANGE, (1, 3)),
        (RED, ["technology_3"], ORANGE, (1, 3)),
        (RED, ["technology_4"], RED, (3, 1)),
        (ORANGE, ["technology_4"], RED, (3, 1)),
    ]
    moves_at = []
    for step, (seat, stations, holder, values) in enumerate(steps):
        for station in stations:
            events = game.researchers(seat, station)
            if of(events, ev.ThreeChipMoved):
                moves_at.append(step)
        t = TECHNOLOGY
        assert game.state.three_chips[t] == holder, step
        assert (research_value(game.state, RED, t), research_value(game.state, ORANGE, t)) == values, step
    assert moves_at == [1, 3, 5]
    assert game.count(RED, "technology") == game.count(ORANGE, "technology") == 4


def test_n25_training_cap() -> None:
    game = ref18(phase=2, seat=VIOLET)
    game.build(YELLOW, "training_3", (14, 17), 0)
    game.researchers(VIOLET, "training_3")
    game.turn(VIOLET, 2)
    assert game.count(VIOLET, "training") == 3 and game.prompt.details["budget"] == 5
    assert one(game.do(VIOLET, Move(from_="green_01", to="blue_01")), ev.ResearcherMoved).steps == 3
    assert game.reject(VIOLET, Move(from_="green_01", to="blue_01")) == "not_enough_steps"
    assert one(game.do(VIOLET, Move(from_="green_01", to="base")), ev.ResearcherMoved).steps == 2
