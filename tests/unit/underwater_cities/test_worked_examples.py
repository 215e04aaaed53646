"""Worked examples of the rulebook / spec §8.2 not already covered by an acceptance scenario (8.2.1 is AS-44,
8.2.2 AS-45, 8.2.3 AS-38, 8.2.4 AS-39, 8.2.5 AS-40, 8.2.6 AS-33, 8.2.7 AS-35, 8.2.8 AS-23, 8.2.9 AS-22,
8.2.10 AS-19, 8.2.11 AS-17)."""

from __future__ import annotations

from benthic.rules import GameConfig
from benthic.rules.underwater_cities import ENGINE
from benthic.rules.underwater_cities.board import base_build_cost
from benthic.rules.underwater_cities.content import content
from benthic.rules.underwater_cities.effects import Res
from benthic.rules.underwater_cities.production import production_of
from benthic.rules.underwater_cities.scoring import end_scoring_points

from .fixtures import A, card, cmd, fixture, of_type, play, res, resources


def test_8_2_11_biomatter_replaces_kelp_or_steelplast_of_a_city() -> None:
    from benthic.rules.underwater_cities.board import bio_payment

    cost = content().info.usual_costs.city_nonsym
    assert cost == Res(steelplast=2, kelp=1, credit=1)
    assert bio_payment(cost, Res(steelplast=1, biomatter=2, credit=1), None, None) == Res(
        steelplast=1, biomatter=2, credit=1)


def test_8_2_12_discount_never_spills_over() -> None:
    state = fixture(2)
    player = state.players[A]
    assert base_build_cost(player, "tunnel", "usual", Res(credit=2)) == Res(steelplast=1)
    assert base_build_cost(player, "tunnel", "free", Res(credit=2)) == Res()


def test_8_2_13_setup_example_four_players() -> None:
    purple, orange, blue, black = 0, 1, 2, 3
    for seed in range(500):
        state = ENGINE.replay(ENGINE.start(GameConfig(seats=4, seed=seed)))
        if state.play_order == (purple, orange, blue, black):
            break
    assert [state.players[s].fed_space for s in (purple, orange, blue, black)] == [0, 4, 3, 2]
    assert resources(state, purple) == resources(state, orange) == {"credit": 2, "kelp": 1, "steelplast": 1,
                                                                    "science": 1}
    assert resources(state, blue) == {"credit": 3, "kelp": 1, "steelplast": 1, "science": 1}
    assert resources(state, black) == {"credit": 3, "kelp": 1, "steelplast": 2, "science": 1}


def _farms(n: int, upgraded: bool = False) -> dict[str, object]:
    """n farms on connected cities of board #1 (C34 and C24, C33 joined by tunnels)."""
    sites = ["B:C34:1", "B:C34:2", "B:C34:3", "B:C34:X", "B:C24:1", "B:C24:2", "B:C24:3", "B:C33:1", "B:C33:2"]
    pieces: dict[str, object] = {"C24": "city_nonsym", "C33": "city_nonsym", "T:C24-C34": "tunnel",
                                 "T:C33-C34": "tunnel"}
    pieces.update({s: ("farm", upgraded) for s in sites[:n]})
    return pieces


def test_8_2_14_glossary_examples() -> None:
    cards = content().cards
    seven = fixture(2, pieces={A: _farms(7)}).players[A]
    assert end_scoring_points(seven, cards[card(5)].end_scoring) == 2  # 1 point per 3 connected farms
    labs = {"C24": "city_nonsym", "T:C24-C34": "tunnel", "B:C34:1": "lab", "B:C34:2": "lab", "B:C34:3": "lab",
            "B:C24:1": "lab", "B:C24:2": "lab"}
    state = fixture(2, tableau={A: [card(9)]}, pieces={A: labs})
    breakdown, _ = production_of(state, A, ())
    assert breakdown[f"card:{card(9)}"].kelp == 1  # +1 kelp per 3 connected labs: 5 labs → 1
    seven_up = fixture(2, pieces={A: _farms(7, upgraded=True)}).players[A]
    assert end_scoring_points(seven_up, cards[card(184)].end_scoring) == 9  # 3 points per 2 upgraded farms
    assert cards[card(185)].end_scoring.cost == Res(credit=15) and cards[card(185)].end_scoring.points == 13
    # "Upgrade 1 or 2 farms paying 1 credit or 1 science each": 2 credits, 2 science, or 1 + 1.
    pieces = {"B:C34:1": "farm", "B:C34:2": "farm"}
    for pays in (("credit", "credit"), ("science", "science"), ("credit", "science")):
        state = fixture(2, hands={A: [card(30)]}, resources={A: res(credit=2, science=2)}, pieces={A: pieces})
        state, _ = play(state, A, cmd.PlayCard(card(30), "R2"), cmd.ChooseOrder("card"))
        state, events = play(state, A, cmd.Upgrade("B:C34:1", pays[0]), cmd.Upgrade("B:C34:2", pays[1]))
        assert [e.paid for e in of_type(events, "upgraded")] == [Res(**{pays[0]: 1}), Res(**{pays[1]: 1})]
    # "Whenever an action slot gives you steelplast": A13 never triggers it (AS-34 covers the rest).
    state = fixture(hands={A: [card(1)]}, tableau={A: [card(16)]}, fed={A: 3})
    state, events = play(state, A, cmd.PlayCard(card(1), "R2"))
    assert state.players[A].res.steelplast == 1 and not of_type(events, "card_triggered")
