"""§10.6 Rounds and end of game (N-43 … N-47), §10.7 final scoring (N-48 … N-52) with the worked examples
of §8.3 (82 points) and §8.4 (Atlantis distribution)."""

from __future__ import annotations

from typing import Any

import pytest
from msgspec.structs import replace

from benthic.rules.nautilus import commands as cmd
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.derived import research_points, research_value
from benthic.rules.nautilus.scoring import atlantis_awards
from tests.unit.nautilus.fixtures import ENGINE, ORANGE, RED, VIOLET, YELLOW, Game, first, names, of, one

Cash = cmd.CashAssignment


def _turns(events: list[Any]) -> list[tuple[int, int, int]]:
    return [(e.round, e.phase, e.seat) for e in of(events, ev.TurnStarted)]


def test_n43_turn_order_and_start_player() -> None:
    game = Game(3, options={"auto_pass": False})
    seen = _turns(game.events)
    while game.state.round < 4:
        seat = game.prompt.seats[0]
        if game.prompt.kind == "phase1_turn" and game.legal(seat) != [cmd.EndTurn()]:
            kind = next(k for k in C.research_types if game.state.stacks[k])
            game.do(seat, cmd.BuyStation(kind=kind))
        seen += _turns(game.do(seat, cmd.EndTurn()))
    expected = []
    for r, start in ((1, 0), (2, 1), (3, 2)):
        order = [(start + i) % 3 for i in range(3)]
        expected += [(r, phase, seat) for phase in (1, 2, 3) for seat in order]
    expected.append((4, 1, 0))
    assert seen == expected
    starts = [(e.round, e.start_seat) for e in of(game.events, ev.RoundStarted)]
    assert starts == [(1, 0), (2, 1), (3, 2), (4, 0)]


def _out(game: Game, number: int, finder: int | None = None) -> None:
    """Atlantis ``number`` leaves the board: covered (finder None) or recovered by ``finder``."""
    chip = C.atlantis_chip[number]
    cell = next(C.xy(C.find_space_cell[i]) for i, x in enumerate(game.state.finds) if x == chip)
    if finder is None:
        game.apply(ev.FindRemoved(cell=cell, chip=chip, kind="atlantis", atlantis_number=number),
                   ev.AtlantisToTracker(number=number, seat=None, cause="covered"))
    else:
        game.apply(ev.FindRecovered(seat=finder, sub=1, cell=cell, chip=chip, kind="atlantis", cost=1),
                   ev.AtlantisToTracker(number=number, seat=finder, cause="recovered"))


def _chip_cell(game: Game, chip: str) -> tuple[int, int]:
    return next(C.xy(C.find_space_cell[i]) for i, x in enumerate(game.state.finds) if x == chip)


def _finish_round(game: Game) -> list[Any]:
    """Every remaining turn of the game ends (phase-1 turns by end_turn, the rest by auto-pass)."""
    events: list[Any] = []
    while game.prompt is not None and game.prompt.kind != "cash_assignment":
        events += game.do(game.prompt.seats[0], cmd.EndTurn())
    return events


def test_n44_atlantis_13_14_15_gives_one_more_round() -> None:
    game = Game(4, chips={(10, 0): "G11"})  # G11 = Atlantis 15
    game.apply(ev.GorgeOpened(seat=YELLOW, cause="entry"))
    game.set_nemo(VIOLET, 30)
    g10 = _chip_cell(game, "G10")
    game.apply(ev.FindUnaffordable(seat=ORANGE, sub=1, cell=g10, chip="G10", kind="atlantis", cost=2),
               ev.AtlantisToTracker(number=13, seat=None, cause="unaffordable"))
    _out(game, 14, RED)
    game.sub(VIOLET, 1, (10, 1))
    game.round(7, 2)
    game.turn(VIOLET, 3)
    events = game.do(VIOLET, cmd.MoveSub(sub=1, to=(10, 0)))
    assert one(events, ev.FindRecovered).cost == 2
    trigger = one(events, ev.EndTriggered)
    assert (trigger.trigger, trigger.final_round) == ("atlantis_13_14_15", 8)
    after = names(events)[names(events).index("end_triggered"):]
    assert _turns(events) == [(7, 3, 3), (7, 3, 0), (7, 3, 1), (8, 1, 3)]
    started = one(events, ev.RoundStarted)
    assert (started.round, started.start_seat, started.final_round) == (8, 3, True)
    assert "final_scoring_started" not in after
    events = _finish_round(game)
    rest = [(8, p, s) for p in (2, 3) for s in (3, 0, 1, 2)]
    assert _turns(events) == [(8, 1, 0), (8, 1, 1), (8, 1, 2), *rest]
    assert names(events)[-1] == "game_ended" and "final_scoring_started" in names(events)
    assert not of(events, ev.RoundStarted)


def _all_out_but(game: Game, *keep: int) -> None:
    for number in range(1, 16):
        if number not in keep:
            _out(game, number)


def test_n45_all_15_out_ends_the_current_round() -> None:
    game = Game(4)
    _all_out_but(game, 1)
    game.sub(ORANGE, 1, _next_to(game, "S01"))
    game.round(5, 0)
    game.turn(ORANGE, 3)
    events = game.do(ORANGE, cmd.MoveSub(sub=1, to=_chip_cell(game, "S01")))
    trigger = one(events, ev.EndTriggered)
    assert (trigger.trigger, trigger.final_round) == ("atlantis_all", 5)
    assert _turns(events) == [(5, 3, 2), (5, 3, 3)]
    assert "final_scoring_started" in names(events) and not of(events, ev.RoundStarted)
    assert names(events)[-1] == "game_ended" and one(events, ev.GameEnded).reason == "atlantis_all"


def test_n45_variant_extra_round_pending_and_last_chip_in_it() -> None:
    game = Game(4)
    _all_out_but(game, 1)
    game.apply(ev.EndTriggered(trigger="atlantis_13_14_15", final_round=5))
    game.sub(ORANGE, 1, _next_to(game, "S01"))
    game.round(5, 0, final=True)
    game.turn(ORANGE, 3)
    events = game.do(ORANGE, cmd.MoveSub(sub=1, to=_chip_cell(game, "S01")))
    assert one(events, ev.EndTriggered).final_round == 5 and names(events)[-1] == "game_ended"


def test_n45_variant_both_triggers_in_the_same_round() -> None:
    game = Game(4, chips={(10, 0): "G11"})
    game.apply(ev.GorgeOpened(seat=YELLOW, cause="entry"))
    _all_out_but(game, 1, 15)
    game.sub(ORANGE, 1, (10, 1))
    game.sub(VIOLET, 1, _next_to(game, "S01"))
    game.round(5, 0)
    game.turn(ORANGE, 3)
    events = game.do(ORANGE, cmd.MoveSub(sub=1, to=(10, 0)))
    assert one(events, ev.EndTriggered).trigger == "atlantis_13_14_15"
    assert one(events, ev.EndTriggered).final_round == 6
    events = game.do(VIOLET, cmd.MoveSub(sub=1, to=_chip_cell(game, "S01")))
    assert [(e.trigger, e.final_round) for e in of(events, ev.EndTriggered)] == [("atlantis_all", 5)]
    assert names(events)[-1] == "game_ended" and not of(events, ev.RoundStarted)


def _next_to(game: Game, chip: str) -> tuple[int, int]:
    x, y = _chip_cell(game, chip)
    for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
        cell = C.cell(x + dx, y + dy)
        if C.on_board(x + dx, y + dy) and cell not in C.find_space_at and not C.is_gorge[cell]:
            return x + dx, y + dy
    raise AssertionError(chip)


def _idle_round(**chips: str) -> Game:
    game = Game(3, chips={tuple(map(int, k.split("_")[1:])): v for k, v in chips.items()})
    game.round(9, 0)
    game.turn(RED, 1)
    return game


def test_n46_no_activity_ends_the_game() -> None:
    game = _idle_round(at_13_10="S07")
    game.set_nemo(RED, 0)
    game.sub(RED, 1, (14, 10))
    game.sub(ORANGE, 1, (4, 4))
    game.do(RED, cmd.EndTurn())
    game.do(ORANGE, cmd.EndTurn())
    events = game.do(VIOLET, cmd.EndTurn())
    assert _turns(events)[-1] == (9, 3, RED)
    events = game.do(RED, cmd.MoveSub(sub=1, to=(13, 10)))
    assert of(events, ev.FindUnaffordable)
    game.do(ORANGE, cmd.Echo(sub=1))
    events = game.do(ORANGE, cmd.MoveSub(sub=1, to=(4, 5)))
    ended = one(events, ev.RoundEnded)
    assert (ended.round, ended.bought, ended.built, ended.recovered) == (9, False, False, False)
    trigger = one(events, ev.EndTriggered)
    assert (trigger.trigger, trigger.final_round) == ("no_activity", 9)
    assert "final_scoring_started" in names(events) and names(events)[-1] == "game_ended"


def test_n46_variants_tempo_recovery_and_purchase_keep_the_game_going() -> None:
    tempo = _idle_round(at_13_10="S25")
    tempo.set_nemo(RED, 0)
    tempo.sub(RED, 1, (14, 10))
    for seat in (RED, ORANGE, VIOLET):
        tempo.do(seat, cmd.EndTurn())
    events = tempo.do(RED, cmd.MoveSub(sub=1, to=(13, 10)))
    events += tempo.do(RED, cmd.SkipTempo())
    ended = one(events, ev.RoundEnded)
    assert ended.recovered and not of(events, ev.EndTriggered) and one(events, ev.RoundStarted).round == 10

    bought = _idle_round()
    bought.do(RED, cmd.EndTurn())
    bought.do(ORANGE, cmd.BuyStation(kind="echo"))
    bought.do(ORANGE, cmd.EndTurn())
    events = bought.do(VIOLET, cmd.EndTurn())
    assert one(events, ev.RoundEnded).bought and not of(events, ev.EndTriggered)
    # Orange neither buys nor builds next round: the station goes back; the flag of round 9 stood
    bought.do(ORANGE, cmd.EndTurn())


def test_n47_covered_atlantis_chips_count_for_the_triggers() -> None:
    from tests.unit.nautilus.fixtures import gorge

    game = gorge(chips={(12, 2): "G10", (10, 0): "G11"}, phase=3, seat=RED)
    assert game.state.atlantis_out[12] and game.state.atlantis_finder[12] is None
    game.apply(ev.GorgeOpened(seat=RED, cause="launch"))
    red_cell = _next_to(game, "D16")
    game.sub(RED, 1, red_cell)
    game.sub(YELLOW, 1, (10, 1))
    events = game.do(RED, cmd.MoveSub(sub=1, to=_chip_cell(game, "D16")))
    assert not of(events, ev.EndTriggered)
    game.turn(YELLOW, 3)
    events = game.do(YELLOW, cmd.MoveSub(sub=1, to=(10, 0)))
    assert one(events, ev.EndTriggered).trigger == "atlantis_13_14_15"
    awards = {a.seat: a for a in atlantis_awards(game.state)}
    assert awards[RED].finds == 1 and awards[YELLOW].finds == 1 and awards[YELLOW].highest == 15
    assert all(13 not in _holdings(game, s) for s in range(4))


def _holdings(game: Game, seat: int) -> list[int]:
    return [n + 1 for n, f in enumerate(game.state.atlantis_finder) if f == seat]


# --- final scoring -------------------------------------------------------------------------------------

TYPES = C.research_types


def _seat(game: Game, seat: int, **changes: Any) -> None:
    seats = list(game.state.seats)
    seats[seat] = replace(seats[seat], **changes)
    game.patch(seats=tuple(seats))


def scoring_scene(seats: int = 4, options: dict[str, Any] | None = None, *, atlantis: dict[int, list[int]],
                  players: dict[int, dict[str, Any]], chips: dict[str, int] | None = None) -> Game:
    """A finished round ready for final scoring: per seat counts/tableau/nemo, 3-chip holders, Atlantis."""
    game = Game(seats, options=options, cards=["A1", "A2", "A3", "A4"])
    finder = [None] * 15
    for seat, numbers in atlantis.items():
        for n in numbers:
            finder[n - 1] = seat
    game.patch(atlantis_finder=tuple(finder), atlantis_out=tuple(f is not None for f in finder))
    for seat in range(seats):
        _seat(game, seat, **{"nemo": 0, **players.get(seat, {})})
    holders = [None] * 5
    for kind, seat in (chips or {}).items():
        holders[TYPES.index(kind)] = seat
    game.patch(three_chips=tuple(holders), round_built=False)
    return game


def counts(**c: int) -> tuple[int, ...]:
    return tuple(c.get(t, 0) for t in TYPES)


RED_82 = {
    "counts": counts(training=2, technology=3, echo=2, trial=2, analysis=1),
    "tableau": ("G01", "S13", "S14", "S15", "S10", "S17", "S18"),
    "nemo": 5,
}


def _82(**options: Any) -> Game:
    game = scoring_scene(
        4, options,
        atlantis={RED: [3, 8], YELLOW: [1, 2, 9], ORANGE: [5]},
        players={RED: RED_82, ORANGE: {"counts": counts(training=3, echo=3)}},
        chips={"technology": RED, "trial": RED, "training": ORANGE, "echo": ORANGE},
    )
    game.apply(ev.FinalScoringStarted())
    return game


def test_n48_the_rulebooks_82_points() -> None:
    game = _82()
    assert game.prompt.kind == "cash_assignment" and game.prompt.seats == (0, 1, 2, 3)
    events = game.do(RED, Cash(upgrades={"shell": 3}))
    cashed = first(events, ev.AssignmentCashed)
    assert (cashed.seat, cashed.card, cashed.upgrades, cashed.cost) == (RED, "A1", {"shell": 3}, 3)
    assert game.nemo(RED) == 2 and names(events)[-1] == "game_ended"
    scores = ENGINE.final_scores(game.state)
    red = next(r for r in scores.results if r.seat == RED)
    b = red.breakdown
    assert (b["research_points"], b["atlantis"]["rank"], b["atlantis"]["points"]) == (8, 2, 4)
    assert (b["sea_points"], b["product"], red.score) == (10, 80, 82)
    assert [b["research"][t]["value"] for t in TYPES] == [1, 3, 1, 3, 0]
    points = {r.seat: r.breakdown["atlantis"]["points"] for r in scores.results}
    assert points == {RED: 4, YELLOW: 5, ORANGE: 2, VIOLET: 0}

    plain = _82()
    plain.do(RED, Cash())
    red = next(r for r in ENGINE.final_scores(plain.state).results if r.seat == RED)
    assert (red.breakdown["sea_points"], red.score) == (7, 61)


ATLANTIS_CASES = [
    (4, {RED: [2, 9, 13], ORANGE: [5, 14], VIOLET: [1, 15]}, {RED: 5, VIOLET: 4, ORANGE: 2, YELLOW: 0}),
    (4, {RED: [1], ORANGE: [2], VIOLET: [3], YELLOW: [4]}, {YELLOW: 5, VIOLET: 4, ORANGE: 2, RED: 1}),
    (3, {RED: [4], ORANGE: [3, 11]}, {ORANGE: 5, RED: 3, VIOLET: 0}),
    (2, {ORANGE: [6]}, {ORANGE: 4, RED: 0}),
]


@pytest.mark.parametrize(("seats", "holdings", "awards"), ATLANTIS_CASES)
def test_n49_atlantis_point_distribution(seats: int, holdings: dict, awards: dict) -> None:
    game = scoring_scene(seats, atlantis=holdings, players={})
    got = {a.seat: a.points for a in atlantis_awards(game.state)}
    assert got == awards


def test_n50_research_values() -> None:
    game = scoring_scene(
        4, atlantis={},
        players={
            RED: {"counts": counts(technology=1, echo=2, trial=4, analysis=3)},
            ORANGE: {"counts": counts(echo=2, analysis=3)},
            VIOLET: {"counts": counts(training=1, technology=1, echo=1, trial=1, analysis=1),
                     "tableau": ("G01", "G02", "G03", "D01", "S07", "S08", "S09", "D02"), "nemo": 7},
        },
        chips={"trial": RED, "analysis": ORANGE, "echo": ORANGE},
    )
    assert [research_value(game.state, RED, t) for t in range(5)] == [0, 0, 1, 3, 1]
    assert research_points(game.state, RED) == 5
    assert research_points(game.state, VIOLET) == 0
    game.apply(ev.FinalScoringStarted())
    game.do(VIOLET, Cash())
    for seat in game.prompt.seats if game.prompt else ():
        game.do(seat, Cash())
    violet = next(r for r in ENGINE.final_scores(game.state).results if r.seat == VIOLET)
    assert violet.breakdown["sea_points"] == 12 and violet.score == 7


def _tie(tiebreak: str) -> Any:
    red = dict(RED_82)
    orange = {"counts": counts(training=2, echo=2), "tableau": ("G02", "G03", "D01", "S07", "S08"),
              "nemo": 9}
    game = scoring_scene(
        4, {"tiebreak": tiebreak},
        atlantis={ORANGE: [1, 2, 9], RED: [3, 8], YELLOW: [5]},
        players={RED: red, ORANGE: orange},
        chips={"technology": RED, "trial": RED, "training": ORANGE},
    )
    game.apply(ev.FinalScoringStarted())
    game.do(RED, Cash())
    if game.prompt is not None:
        game.do(ORANGE, Cash())
    return ENGINE.final_scores(game.state)


def test_n51_final_tie() -> None:
    shared = _tie("shared")
    by_seat = {r.seat: r for r in shared.results}
    assert by_seat[RED].score == by_seat[ORANGE].score == 61
    assert by_seat[RED].rank == by_seat[ORANGE].rank == 1 and shared.details["tiebreak"] == "shared"
    assert [r.seat for r in shared.results][:2] == [RED, ORANGE]
    nemo = {r.seat: r for r in _tie("most_nemo").results}
    assert (nemo[ORANGE].rank, nemo[RED].rank) == (1, 2)
    assert [r.seat for r in _tie("most_nemo").results][:2] == [ORANGE, RED]


def test_n51_equal_nemo_stays_shared() -> None:
    orange = {"counts": RED_82["counts"], "tableau": RED_82["tableau"], "nemo": 5}
    game = scoring_scene(4, {"tiebreak": "most_nemo"}, atlantis={}, players={RED: RED_82, ORANGE: orange})
    game.apply(ev.FinalScoringStarted())
    game.do(RED, Cash())
    game.do(ORANGE, Cash())
    by_seat = {r.seat: r for r in ENGINE.final_scores(game.state).results}
    assert by_seat[RED].score == by_seat[ORANGE].score and by_seat[RED].rank == by_seat[ORANGE].rank == 1


def test_n52_cashing_the_special_assignment() -> None:
    game = _82()
    assert game.reject(RED, Cash(upgrades={"luminous_crab": 1})) == "invalid_upgrade"
    assert game.reject(RED, Cash(upgrades={"shell": 4})) == "invalid_upgrade"
    assert game.reject(RED, Cash(upgrades={"shell": -1})) == "invalid_upgrade"
    assert game.reject(RED, Cash(upgrades={"snail": 1})) == "invalid_upgrade"
    assert game.reject(RED, Cash(upgrades={"pearl": 1})) == "invalid_argument"
    assert game.reject(RED, cmd.EndTurn()) == "wrong_prompt"
    poor = _82()
    _seat(poor, RED, nemo=2)
    assert poor.reject(RED, Cash(upgrades={"shell": 3})) == "insufficient_funds"
    assert Cash(upgrades={"shell": 2}) in poor.legal(RED)
    assert Cash(upgrades={"shell": 3}) not in poor.legal(RED)

    # Orange (A2: shell, urchin) holds neither: submitted automatically once anything is decided
    events = game.do(YELLOW, Cash())
    submitted = [(e.seat, e.auto) for e in of(events, ev.AssignmentCashed)]
    assert submitted == [(YELLOW, False), (ORANGE, True), (VIOLET, True)]
    assert game.prompt.seats == (RED,)
    game.do(RED, Cash(upgrades={"shell": 1}))
    assert game.prompt is None and game.reject(RED, Cash()) == "game_over"

    once = _82(auto_pass=False)
    once.do(RED, Cash())
    assert once.reject(RED, Cash()) == "not_your_turn"


def test_n52_auto_optimal_cashing() -> None:
    game = scoring_scene(
        4, {"assignment_cashing": "auto_optimal"},
        atlantis={RED: [3, 8]},
        players={RED: RED_82, ORANGE: {"counts": counts(echo=2), "tableau": ("S16", "S11"), "nemo": 9}},
        chips={"technology": RED, "trial": RED},
    )
    game.apply(ev.EndTriggered(trigger="atlantis_13_14_15", final_round=3))
    game.round(3, 0, final=True)
    game.turn(YELLOW, 3)  # the last turn of the final round
    events = game.do(YELLOW, cmd.EndTurn())
    cashed = {e.seat: e for e in of(events, ev.AssignmentCashed)}
    assert cashed[RED].upgrades == {"shell": 3} and cashed[RED].auto and game.nemo(RED) == 2
    assert research_points(game.state, ORANGE) == 1 and cashed[ORANGE].upgrades == {}
    assert names(events)[-1] == "game_ended"
