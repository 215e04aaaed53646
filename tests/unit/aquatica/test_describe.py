"""Labels of Aquatica commands (``ENGINE.describe``) in scenario positions, including King 5's fully_rise that
random playouts seldom reach, each checked by the generic contract checker too."""

from __future__ import annotations

import pytest

from tests.unit.aquatica.helpers import ENGINE, Table, cmd, new_game, with_cards, with_locations, with_mantas
from tests.unit.test_engine_presentation import Checker


@pytest.fixture(scope="module")
def checker() -> Checker:
    return Checker(ENGINE)


def scene() -> Table:
    state = with_locations(new_game(2), boards={0: {0: "SB13@0", 1: "SB08@1", 2: "SB01"}}, top=["SS02", "OV02"],
                           bottom=["SB02"])
    state = with_mantas(state, 0, wild=("W_RAISE1", "W_RAISE1"))
    return Table(with_cards(state, 0, hand=["MATRONA", "K5", "PATRICIAN", "LEGIONARY"]))


def test_playing_a_character_says_what_it_does(checker: Checker) -> None:
    t = scene()
    checker.labels(t.state, 0, t.legal(0))
    assert ENGINE.describe(t.state, cmd("play_character", card_id="S0-PATRICIAN")).label == \
        "Play Patrician: gain 1 coin, then buy 1 Location with coins"
    assert ENGINE.describe(t.state, cmd("play_character", card_id="K5")).highlights == ["K5"]


def test_two_wild_mantas_of_one_kind_are_the_same_move(checker: Checker) -> None:
    t = scene()
    first, second = (ENGINE.describe(t.state, cmd("flip_manta", manta_id=m)) for m in ("W_RAISE1#1", "W_RAISE1#2"))
    assert first.label == second.label == "Flip your Wild Manta (raise a Location)"
    assert first.highlights != second.highlights
    checker.labels(t.state, 0, t.legal(0))  # the duplicate label is accepted: interchangeable components


def test_king_5_fully_raises_a_named_location(checker: Checker) -> None:
    t = scene()
    t.do(0, "play_character", card_id="K5")
    assert t.prompt.kind == "choose_fully_rise"
    checker.labels(t.state, 0, t.legal(0))
    described = ENGINE.describe(t.state, cmd("fully_rise", slot=1))
    assert described.label == "Raise Great White Hollow until it is fully risen"
    assert described.highlights == ["SB08"]


def test_conquering_from_the_top_row_shows_the_discounted_price(checker: Checker) -> None:
    t = scene()
    t.do(0, "play_character", card_id="S0-LEGIONARY")
    assert t.prompt.kind == "choose_acquisition"
    checker.labels(t.state, 0, t.legal(0))
    top = ENGINE.describe(t.state, cmd("acquire", location_id="SS02", slot=3, mode="conquer"))
    assert top.label == "Conquer Coin Wreck (top row) for 3 power into board slot 4"
    assert top.highlights == ["SS02", "slot:3"]
    bottom = ENGINE.describe(t.state, cmd("acquire", location_id="SB02", slot=3, mode="conquer"))
    assert bottom.label == "Conquer Fin Shallows (bottom row) for 3 power into board slot 4"
