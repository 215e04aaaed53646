"""§10.3 Phase 1 (N-05 … N-16) and the seed's building examples (§6.2)."""

from __future__ import annotations

from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.derived import city
from tests.unit.nautilus.fixtures import ENGINE, ORANGE, RED, VIOLET, YELLOW, Game, names, of, one, ref

Build = cmd.BuildStation
Buy = cmd.BuyStation


# Several scenarios send `end_turn` (or another command) after the seat's last real option; with auto-pass
# on, the engine has already ended the turn by then.  Those steps run with auto_pass off, and the
# auto-pass variant is checked as well.
MANUAL = {"auto_pass": False}


def test_n05_buy_and_build_in_the_same_turn_covers_a_find() -> None:
    game = Game(chips={(8, 18): "S17"}, options=MANUAL)
    game.do(RED, Buy(kind="trial"))
    assert game.nemo(RED) == 44 and [h.tile for h in game.state.seats[RED].held] == ["trial_1"]
    events = game.do(RED, Build(tile="trial_1", anchor=(8, 17), rotation=0))
    built = one(events, ev.StationBuilt)
    assert (built.level, built.paid) == (2, 2) and game.nemo(RED) == 42
    assert game.state.stations[-1].owner == RED
    removed = one(events, ev.FindRemoved)
    assert (removed.cell, removed.chip, removed.kind, removed.cause) == ((8, 18), "S17", "snail", "covered")
    assert "S17" in game.state.box and not game.chip_at((8, 18))
    events = game.do(RED, cmd.EndTurn())
    assert not of(events, ev.StationsReturned)
    assert (game.prompt.kind, game.prompt.seats) == ("phase1_turn", (ORANGE,))

    auto = Game(chips={(8, 18): "S17"})
    auto.do(RED, Buy(kind="trial"))
    events = auto.do(RED, Build(tile="trial_1", anchor=(8, 17), rotation=0))
    assert names(events)[-2:] == ["turn_ended", "turn_started"] and one(events, ev.TurnEnded).auto
    assert not of(events, ev.StationsReturned) and auto.prompt.seats == (ORANGE,)


def test_n06_staffing_a_residential() -> None:
    game = Game()
    game.turn(ORANGE, 1)
    assert game.reject(ORANGE, Buy(kind="residential_blue", staff=5)) == "invalid_staff_count"
    assert game.reject(ORANGE, Buy(kind="residential_blue", staff=0)) == "invalid_staff_count"
    assert game.reject(ORANGE, Buy(kind="trial", staff=2)) == "invalid_staff_count"
    events = game.do(ORANGE, Buy(kind="residential_blue", staff=4))
    assert game.nemo(ORANGE) == 41 and game.state.seats[ORANGE].supply == 11
    held = game.state.seats[ORANGE].held
    assert [(h.tile, h.staff) for h in held] == [("blue_01", 4)]
    assert one(events, ev.NemoTransferred).reason == "staff_researchers"

    three = Game(3)
    three.turn(ORANGE, 1)
    assert three.reject(ORANGE, Buy(kind="residential_blue", staff=4)) == "invalid_staff_count"
    three.do(ORANGE, Buy(kind="residential_blue", staff=3))
    assert three.nemo(ORANGE) == 47

    short = Game()
    short.turn(ORANGE, 1)
    for _ in range(13):
        short.apply(ev.ResearcherPlaced(seat=ORANGE, station="base"))
    assert short.reject(ORANGE, Buy(kind="residential_blue", staff=3)) == "not_enough_researchers"
    poor = Game()
    poor.turn(ORANGE, 1)
    poor.set_nemo(ORANGE, 2)
    assert poor.reject(ORANGE, Buy(kind="residential_blue", staff=3)) == "insufficient_funds"


def test_n07_orange_example_build_cost_1() -> None:
    game = Game()
    game.build(ORANGE, "analysis_1", (11, 11), 270)
    game.hold(ORANGE, "blue_01", staff=4)
    game.set_nemo(ORANGE, 40)
    game.turn(ORANGE, 1)
    events = game.do(ORANGE, Build(tile="blue_01", anchor=(14, 14), rotation=0))
    built = one(events, ev.StationBuilt)
    assert (built.level, built.paid) == (1, 1) and game.nemo(ORANGE) == 39
    assert game.in_station(ORANGE, "blue_01") == 4 and game.state.stations[-1].owner is None

    bare = Game()
    bare.hold(ORANGE, "blue_01", staff=4)
    bare.turn(ORANGE, 1)
    assert bare.reject(ORANGE, Build(tile="blue_01", anchor=(14, 14), rotation=0)) == "no_matching_lock"


def _violet_with_two_trainings(**options: object) -> Game:
    game = Game(chips={(6, 16): "S10", (7, 14): "S02"}, options=options)
    game.hold(VIOLET, "training_1")
    game.hold(VIOLET, "training_2")
    game.set_nemo(VIOLET, 43)
    game.turn(VIOLET, 1)
    game.do(VIOLET, Buy(kind="residential_green", staff=4))
    assert game.nemo(VIOLET) == 39 and game.state.seats[VIOLET].held[-1].tile == "green_01"
    return game


def test_n08_violet_example_build_cost_2_paid_once() -> None:
    game = _violet_with_two_trainings(**MANUAL)
    events = game.do(VIOLET, Build(tile="training_1", anchor=(8, 14), rotation=0))
    assert one(events, ev.StationBuilt).paid == 1 and game.nemo(VIOLET) == 38
    events = game.do(VIOLET, Build(tile="green_01", anchor=(5, 14), rotation=0))
    assert one(events, ev.StationBuilt).paid == 1 and game.nemo(VIOLET) == 37
    assert [(e.cell, e.chip) for e in of(events, ev.FindRemoved)] == [((6, 16), "S10"), ((7, 14), "S02")]
    tracker = one(events, ev.AtlantisToTracker)
    assert (tracker.number, tracker.seat, tracker.cause) == (2, None, "covered")
    events = game.do(VIOLET, Build(tile="training_2", anchor=(11, 17), rotation=90))
    assert one(events, ev.StationBuilt).paid == 0 and game.nemo(VIOLET) == 37
    game.do(VIOLET, cmd.EndTurn())
    owners = {s.tile: s.owner for s in game.state.stations}
    assert owners["training_1"] == owners["training_2"] == VIOLET
    assert game.in_station(VIOLET, "green_01") == 4
    assert game.state.atlantis_out[1] and game.state.atlantis_finder[1] is None
    assert "S10" in game.state.box


def test_n08_with_auto_pass_the_turn_ends_after_the_last_build() -> None:
    game = _violet_with_two_trainings()
    game.do(VIOLET, Build(tile="training_1", anchor=(8, 14), rotation=0))
    game.do(VIOLET, Build(tile="green_01", anchor=(5, 14), rotation=0))
    events = game.do(VIOLET, Build(tile="training_2", anchor=(11, 17), rotation=90))
    assert one(events, ev.TurnEnded).auto and game.prompt.seats == (YELLOW,) and game.nemo(VIOLET) == 37


def test_n08_variant_first_training_and_residential_also_cost_2() -> None:
    game = _violet_with_two_trainings()
    game.do(VIOLET, Build(tile="training_1", anchor=(8, 14), rotation=0))
    game.do(VIOLET, Build(tile="green_01", anchor=(5, 14), rotation=0))
    assert game.nemo(VIOLET) == 37  # 39 - 2


def test_n09_build_order_matters() -> None:
    game = _violet_with_two_trainings()
    assert game.reject(VIOLET, Build(tile="green_01", anchor=(5, 14), rotation=0)) == "no_matching_lock"
    game.do(VIOLET, Build(tile="training_2", anchor=(11, 17), rotation=90))
    game.do(VIOLET, Build(tile="training_1", anchor=(8, 14), rotation=0))
    game.do(VIOLET, Build(tile="green_01", anchor=(5, 14), rotation=0))
    assert game.nemo(VIOLET) == 37


def test_n10_contiguity() -> None:
    game = Game()
    game.hold(VIOLET, "training_1")
    game.hold(VIOLET, "green_01", staff=4)
    game.turn(VIOLET, 1)
    nemo = game.nemo(VIOLET)
    events = game.do(VIOLET, Build(tile="training_1", anchor=(8, 14), rotation=0))
    assert one(events, ev.StationBuilt).paid == 1
    assert game.reject(VIOLET, Build(tile="green_01", anchor=(11, 17), rotation=0)) == "not_contiguous"
    supply = game.state.seats[VIOLET].supply
    returned = one(game.do(VIOLET, cmd.EndTurn()), ev.StationsReturned)
    assert (returned.tiles, returned.researchers_returned) == (("green_01",), 4)
    assert returned.reason == "partial_build"
    assert game.state.stacks["residential_green"][-1] == "green_01"
    assert game.state.seats[VIOLET].supply == supply + 4 and game.nemo(VIOLET) == nemo - 1


def test_n11_red_example_a_wall_does_not_matter() -> None:
    game = Game()
    game.build(VIOLET, "training_1", (8, 14), 0)
    game.build(VIOLET, "green_01", (5, 14), 0, staff=4)
    game.build(VIOLET, "training_2", (11, 17), 90)
    game.hold(RED, "trial_1")
    game.turn(RED, 1)
    nemo = game.nemo(RED)
    built = one(game.do(RED, Build(tile="trial_1", anchor=(8, 17), rotation=0)), ev.StationBuilt)
    assert (built.level, built.paid) == (2, 2) and game.nemo(RED) == nemo - 2
    town = city(game.state)
    assert town.distance(town.index["training_1"], town.index["trial_1"]) == 2


def test_n12_build_errors() -> None:
    game = Game()
    game.hold(RED, "trial_1")
    game.hold(RED, "blue_01", staff=1)
    game.turn(RED, 1)
    assert game.reject(RED, Build(tile="green_05", anchor=(8, 14), rotation=0)) == "tile_not_held"
    assert game.reject(RED, Build(tile="trial_1", anchor=(23, 14), rotation=0)) == "off_board"
    assert game.reject(RED, Build(tile="trial_1", anchor=(-1, 14), rotation=0)) == "off_board"
    assert game.reject(RED, Build(tile="trial_1", anchor=(12, 15), rotation=0)) == "overlaps_station"
    assert game.reject(RED, Build(tile="trial_1", anchor=(17, 14), rotation=0)) == "no_matching_lock"
    assert game.reject(RED, Build(tile="trial_1", anchor=(8, 17), rotation=45)) == "invalid_argument"
    assert game.reject(RED, Build(tile="nope", anchor=(8, 17), rotation=0)) == "invalid_argument"
    assert game.reject(RED, Build(tile="base", anchor=(8, 17), rotation=0)) == "tile_not_held"
    assert game.reject(RED, Build(tile="blue_01", anchor=(14, 14), rotation=0)) == "no_matching_lock"


def test_n13_submarine_in_the_way() -> None:
    game = ref(seat=YELLOW)
    game.hold(YELLOW, "blue_02", staff=1)
    game.sub(RED, 1, (7, 20))
    game.turn(YELLOW, 1)
    assert game.reject(YELLOW, Build(tile="blue_02", anchor=(5, 20), rotation=0)) == "submarine_in_the_way"

    clear = ref(seat=YELLOW)
    clear.hold(YELLOW, "blue_02", staff=1)
    clear.turn(YELLOW, 1)
    chip = clear.chip_at((6, 20))
    events = clear.do(YELLOW, Build(tile="blue_02", anchor=(5, 20), rotation=0))
    built = one(events, ev.StationBuilt)
    assert (built.level, built.paid) == (3, 3) and clear.nemo(YELLOW) == 27
    assert one(events, ev.FindRemoved).cell == (6, 20) and one(events, ev.FindRemoved).chip == chip
    town = city(clear.state)
    assert town.index["trial_1"] in town.adjacency[town.index["blue_02"]]


def test_n14_purchase_errors() -> None:
    game = Game()
    game.do(RED, Buy(kind="trial"))
    assert game.reject(RED, Buy(kind="echo")) == "already_bought"
    assert game.reject(RED, Buy(kind="kraken")) == "invalid_argument"

    earlier = Game(options=MANUAL)
    earlier.hold(RED, "training_1")
    earlier.turn(RED, 1)
    earlier.do(RED, Build(tile="training_1", anchor=(8, 14), rotation=0))
    assert earlier.reject(RED, Buy(kind="echo")) == "buy_after_build"
    assert earlier.legal(RED) == [cmd.EndTurn()]

    full = Game()
    for tile in ("trial_1", "trial_2", "training_1", "analysis_1"):
        full.hold(RED, tile)
    full.turn(RED, 1)
    assert full.reject(RED, Buy(kind="echo")) == "hand_full"

    empty = Game()
    for tile in ("echo_1", "echo_2", "echo_3", "echo_4"):
        empty.hold(YELLOW, tile)
    empty.turn(RED, 1)
    assert empty.reject(RED, Buy(kind="echo")) == "stack_empty"
    assert all(c.kind != "echo" for c in empty.legal(RED) if isinstance(c, Buy))


def test_n15_returning_held_stations() -> None:
    partial = Game()
    partial.hold(ORANGE, "analysis_2")
    partial.turn(ORANGE, 1)
    partial.do(ORANGE, Buy(kind="technology"))
    nemo = partial.nemo(ORANGE)
    partial.do(ORANGE, Build(tile="analysis_2", anchor=(11, 11), rotation=270))
    returned = one(partial.do(ORANGE, cmd.EndTurn()), ev.StationsReturned)
    assert (returned.tiles, returned.reason) == (("technology_1",), "partial_build")
    assert partial.state.stacks["technology"][-1] == "technology_1" and partial.nemo(ORANGE) == nemo - 1

    idle = Game()
    idle.hold(ORANGE, "blue_01", staff=4)
    idle.turn(ORANGE, 1)
    supply = idle.state.seats[ORANGE].supply
    returned = one(idle.do(ORANGE, cmd.EndTurn()), ev.StationsReturned)
    assert (returned.tiles, returned.researchers_returned) == (("blue_01",), 4)
    assert returned.reason == "no_buy_no_build"
    assert idle.state.seats[ORANGE].supply == supply + 4 and not idle.state.seats[ORANGE].held

    keep = Game()
    keep.hold(ORANGE, "analysis_2")
    keep.turn(ORANGE, 1)
    keep.do(ORANGE, Buy(kind="echo"))
    assert not of(keep.do(ORANGE, cmd.EndTurn()), ev.StationsReturned)
    assert [h.tile for h in keep.state.seats[ORANGE].held] == ["analysis_2", "echo_1"]


def test_n16_build_cost_paid_incrementally() -> None:
    game = Game(options=MANUAL)
    game.hold(VIOLET, "training_1")
    game.hold(VIOLET, "green_01", staff=4)
    game.hold(VIOLET, "training_2")
    game.set_nemo(VIOLET, 1)
    game.turn(VIOLET, 1)
    game.do(VIOLET, Build(tile="training_1", anchor=(8, 14), rotation=0))
    assert game.nemo(VIOLET) == 0
    assert game.reject(VIOLET, Build(tile="green_01", anchor=(5, 14), rotation=0)) == "insufficient_funds"
    events = game.do(VIOLET, Build(tile="training_2", anchor=(11, 17), rotation=90))
    assert one(events, ev.StationBuilt).paid == 0
    returned = one(game.do(VIOLET, cmd.EndTurn()), ev.StationsReturned)
    assert (returned.tiles, returned.researchers_returned) == (("green_01",), 4)


def test_n16_with_auto_pass_the_unaffordable_tile_goes_back_at_once() -> None:
    game = Game()
    game.hold(VIOLET, "training_1")
    game.hold(VIOLET, "green_01", staff=4)
    game.hold(VIOLET, "training_2")
    game.set_nemo(VIOLET, 1)
    game.turn(VIOLET, 1)
    game.do(VIOLET, Build(tile="training_1", anchor=(8, 14), rotation=0))
    events = game.do(VIOLET, Build(tile="training_2", anchor=(11, 17), rotation=90))
    assert one(events, ev.StationsReturned).tiles == ("green_01",) and one(events, ev.TurnEnded).auto


def test_legal_builds_list_each_distinct_layout_once_and_decide_accepts_all_rotations() -> None:
    game = Game()
    game.hold(RED, "trial_1")
    game.hold(RED, "green_01", staff=1)
    game.turn(RED, 1)
    builds = [c for c in game.legal(RED) if isinstance(c, Build)]
    assert len(builds) == len({(c.tile, c.anchor, c.rotation) for c in builds})
    assert {c.rotation for c in builds if c.tile == "green_01"} == {0}
    # a residential looks the same at every rotation: decide accepts any of the four
    for rotation in (90, 180, 270):
        events = ENGINE.decide(game.state, RED, Build(tile="green_01", anchor=(11, 11), rotation=rotation))
        assert "station_built" in names(events)
