"""Scouting (spec §6.10; scenarios 17-20, worked example 1) and exploiting Depths (§6.15; scenarios 21-27)."""

from __future__ import annotations

from tests.unit.aquatica.helpers import (
    Table,
    new_game,
    of_type,
    one,
    with_cards,
    with_locations,
    with_mantas,
)

EXPENSIVE = ["SS08", "OV11", "DC06", "SB13", "SS12"]
EXPENSIVE_NOT_OV11 = ["SS08", "DC06", "SB14", "SS12"]


def test_n17_first_printing_scout_not_allowed() -> None:
    t = Table(with_locations(new_game(2), bottom=["SB02", "OV02", *EXPENSIVE[:4]]))
    events = t.do(0, "play_character", card_id="S0-SEAHORSE")
    skipped = one(events, "effect_skipped")
    assert (skipped.effect.__struct_config__.tag, skipped.reason) == ("scout", "scout_not_allowed")
    assert t.state.pool_power == 1 and t.prompt.kind == "choose_acquisition"


def _example1(bottom: list[str]) -> Table:
    state = with_locations(new_game(2), top=["SB04", "OV05"], bottom=bottom, boards={0: {0: "SB13@0"}},
                           deck_size=30)
    return Table(state)


def test_n18_example1_sea_horse_main_action() -> None:
    t = _example1(["SS07", "OV11", "DC02", "SB06"])
    discard_before = t.state.location_discard
    deck_top6 = t.state.location_deck[:6]
    events = t.do(0, "play_character", card_id="S0-SEAHORSE")
    assert t.state.location_discard == discard_before + ("SB04", "OV05")
    assert t.state.top_row == ("SS07", "OV11", "DC02", "SB06")
    assert t.state.bottom_row == deck_top6 and len(t.state.location_deck) == 24
    scouted = one(events, "scout_performed")
    assert (scouted.discarded_top, scouted.moved_up, scouted.dealt) == (
        ("SB04", "OV05"), ("SS07", "OV11", "DC02", "SB06"), deck_top6)
    assert t.state.pool_power == 1 and t.prompt.kind == "choose_acquisition"
    events = t.do(0, "acquire", location_id="OV11", slot=1, mode="conquer")
    assert one(events, "acquisition_started").cost == 7 and t.prompt.details["due"] == 6
    t.do(0, "exploit_depth", slot=0)
    assert t.board()[0] == "SB13@1" and t.prompt.details["due"] == 3
    t.do(0, "flip_manta", manta_id="T0-P2")
    assert t.prompt.details["due"] == 1
    events = t.do(0, "flip_manta", manta_id="T0-P1")
    paid = one(events, "payment_completed")
    assert (paid.cost, paid.from_pool, paid.from_sources, paid.overflow) == (7, 1, 6, 0)
    assert t.board() == {0: "SB13@1", 1: "OV11@0"}
    assert t.player().discard[-1] == "S0-SEAHORSE" and t.prompt.kind == "turn"


def test_n18_example1_check_with_five_in_the_bottom_row() -> None:
    t = _example1(["SS07", "OV11", "DC02", "SB06", "SS12"])
    events = t.do(0, "play_character", card_id="S0-SEAHORSE")
    assert one(events, "effect_skipped").reason == "scout_not_allowed"
    assert "OV11" in t.state.bottom_row and t.prompt.kind == "choose_acquisition"
    t.reject(0, "acquire", "cannot_afford", location_id="OV11", slot=1, mode="conquer")  # 8 > 7


def _updated_scout() -> Table:
    state = with_locations(new_game(2, printing="updated"), top=["SB04", "OV05", "DC02"],
                           bottom=["SS02", "SS03", "SS04", "OV02", "OV04", "DC04"], deck_size=30)
    t = Table(state)
    t.do(0, "play_character", card_id="S0-SEAHORSE")
    return t


def test_n19_updated_optional_scout() -> None:
    t = _updated_scout()
    assert t.prompt.kind == "scout_decide"
    deck_top6 = t.state.location_deck[:6]
    t.do(0, "scout", do=True)
    assert t.state.top_row == () and t.state.location_discard[-3:] == ("SB04", "OV05", "DC02")
    assert (t.prompt.kind, t.prompt.details["excess"]) == ("scout_discard", 2)
    t.reject(0, "scout_discard", "location_not_in_bottom_row", location_id="SB04")
    t.do(0, "scout_discard", location_id="SS02")
    assert t.prompt.kind == "scout_discard"
    events = t.do(0, "scout_discard", location_id="OV02")
    assert t.state.top_row == ("SS03", "SS04", "OV04", "DC04")
    assert t.state.bottom_row == deck_top6 and len(t.state.location_deck) == 24
    scouted = one(events, "scout_performed")
    assert (scouted.discarded_top, scouted.discarded_bottom) == (("SB04", "OV05", "DC02"), ("SS02", "OV02"))
    assert t.state.pool_power == 1 and t.prompt.kind == "choose_acquisition"

    t = _updated_scout()
    rows = (t.state.top_row, t.state.bottom_row, t.state.location_deck)
    events = t.do(0, "scout", do=False)
    assert of_type(events, "scout_declined")
    assert (t.state.top_row, t.state.bottom_row, t.state.location_deck) == rows


def test_n20_location_deck_runs_out() -> None:
    state = with_locations(new_game(3, first_seat=1), top=[], bottom=["SB02", "SB03", "SB04", "SB05"], deck_size=4)
    t = Table(state)
    events = t.do(1, "play_character", card_id="S1-SEAHORSE")
    ended = one(events, "end_triggered")
    assert (ended.reason, ended.seat, ended.final_turns) == ("location_deck_empty", 1, 3)
    assert len(t.state.bottom_row) == 4 and t.state.location_deck == ()


def test_n21_one_resource_depth_per_location_per_main_action() -> None:
    state = with_locations(new_game(2), bottom=["SB02", "SB04", *EXPENSIVE[:4]], boards={0: {0: "SB08@0"}})
    t = Table(with_cards(state, 0, hand=["MATRONA", "OC-GRABBER-P"]))
    t.do(0, "play_character", card_id="OC-GRABBER-P")
    t.do(0, "acquire", location_id="SB02", slot=1, mode="conquer")
    assert t.prompt.details["due"] == 3
    t.do(0, "exploit_depth", slot=0)
    assert t.board()[0] == "SB08@1" and t.prompt.details["due"] == 1
    t.do(0, "flip_manta", manta_id="T0-P1")
    assert t.prompt.kind == "choose_acquisition"
    t.do(0, "acquire", location_id="SB04", slot=2, mode="conquer")
    assert t.prompt.details["due"] == 4
    t.reject(0, "exploit_depth", "location_resource_depth_used", slot=0)
    events = t.do(0, "exploit_depth", slot=1)
    assert t.board()[1] == "SB02@1" and of_type(events, "location_fully_risen")
    assert t.prompt.details["due"] == 2
    events = t.do(0, "flip_manta", manta_id="T0-P2")
    assert one(events, "location_acquired").location_id == "SB04"


def _grabber_typed(**flags: bool) -> Table:
    state = with_locations(new_game(2, **flags), bottom=["OV06", "OV02", *EXPENSIVE_NOT_OV11],
                           boards={0: {0: "OV08@0", 1: "OV05@0"}})
    t = Table(with_cards(state, 0, hand=["MATRONA", "OC-GRABBER-P"]))
    t.do(0, "play_character", card_id="OC-GRABBER-P")
    t.do(0, "acquire", location_id="OV06", slot=2, mode="conquer")
    assert t.prompt.details["due"] == 4
    t.do(0, "exploit_depth", slot=0)
    assert t.board()[0] == "OV08@1" and t.prompt.details["due"] == 2
    return t


def test_n22_faq41_grabber_typed_chain() -> None:
    t = _grabber_typed()
    events = t.do(0, "flip_manta", manta_id="T0-P2")
    skipped = one(events, "effect_skipped")
    assert (skipped.effect.__struct_config__.tag, skipped.reason) == ("conquer", "nothing_affordable")
    assert t.board() == {0: "OV08@1", 1: "OV05@0", 2: "OV06@0"}

    t = _grabber_typed(grabber_typed_chain=True)
    t.do(0, "flip_manta", manta_id="T0-P2")
    assert t.prompt.kind == "choose_acquisition"
    t.do(0, "acquire", location_id="OV02", slot=3, mode="conquer")
    assert t.prompt.details["due"] == 3
    t.do(0, "exploit_depth", slot=0)
    assert t.board()[0] == "OV08@2" and t.prompt.details["due"] == 1
    events = t.do(0, "flip_manta", manta_id="T0-P1")
    assert one(events, "location_acquired").location_id == "OV02"


def test_n23_type_specific_power_mismatch() -> None:
    def legionary(target: str) -> Table:
        state = with_locations(new_game(2), bottom=["OV04", "SB04", *EXPENSIVE[:4]], boards={0: {0: "OV05@0"}})
        t = Table(state)
        t.do(0, "play_character", card_id="S0-LEGIONARY")
        t.do(0, "acquire", location_id=target, slot=1, mode="conquer")
        assert t.prompt.details["due"] == 1
        return t

    t = legionary("OV04")
    t.reject(0, "exploit_depth", "depth_kind_mismatch", slot=0)
    t.do(0, "flip_manta", manta_id="T0-P1")
    assert t.prompt.kind == "turn"
    t = legionary("SB04")
    events = t.do(0, "exploit_depth", slot=0)
    assert one(events, "payment_completed").overflow == 1

    state = with_locations(new_game(2), bottom=["SS03", *EXPENSIVE], boards={0: {0: "OV05@0"}})
    t = Table(state)
    t.do(0, "play_character", card_id="S0-PATRICIAN")
    t.do(0, "acquire", location_id="SS03", slot=1, mode="buy")
    t.reject(0, "exploit_depth", "depth_kind_mismatch", slot=0)


def test_n24_empty_depth_blocks() -> None:
    state = with_locations(new_game(2), bottom=["SS03", *EXPENSIVE], boards={0: {0: "SS06@0"}})
    t = Table(with_mantas(state, 0, wild=("W_RAISE1",)))
    t.reject(0, "exploit_depth", "depth_empty", slot=0)
    events = t.do(0, "flip_manta", manta_id="W_RAISE1#1")
    assert one(events, "location_raised").auto and t.board()[0] == "SS06@1"
    t.do(0, "play_character", card_id="S0-PATRICIAN")
    t.do(0, "acquire", location_id="SS03", slot=1, mode="buy")
    events = t.do(0, "exploit_depth", slot=0)
    assert one(events, "depth_exploited").effect.amount == 3
    assert t.board()[0] == "SS06@2" and of_type(events, "location_fully_risen")
    assert not of_type(events, "wild_manta_gained")


def test_n25_depth_effects_cannot_target_their_own_location() -> None:
    t = Table(with_locations(new_game(2), boards={0: {0: "OV06@0", 1: "SB04@0"}}))
    events = t.do(0, "exploit_depth", slot=0)
    raised = one(events, "location_raised")
    assert (raised.slot, raised.covered_after, raised.auto) == (1, 1, True)
    assert t.board() == {0: "OV06@1", 1: "SB04@1"} and t.prompt.kind == "turn"

    t = Table(with_locations(new_game(2), boards={0: {0: "OV06@0"}}))
    t.reject(0, "exploit_depth", "output_wasted", slot=0)
    assert t.board() == {0: "OV06@0"}


def test_n26_effect_depth_during_the_main_action() -> None:
    state = with_locations(new_game(2), bottom=["SB08", *EXPENSIVE], boards={0: {1: "OV02@0"}})
    t = Table(state)
    t.do(0, "play_character", card_id="S0-LEGIONARY")
    t.do(0, "acquire", location_id="SB08", slot=0, mode="conquer")
    t.reject(0, "exploit_depth", "not_a_payment_source", slot=1)


def test_n27_wasted_effects() -> None:
    t = Table(with_locations(new_game(2), boards={0: {0: "DC07@0"}}))
    t.reject(0, "exploit_depth", "output_wasted", slot=0)
    t = Table(with_locations(new_game(2), boards={0: {0: "DC04@1"}}))
    t.reject(0, "exploit_depth", "output_wasted", slot=0)
    t = Table(with_mantas(new_game(2), 0, wild=("W_SCORE",)))
    t.reject(0, "flip_manta", "output_wasted", manta_id="W_SCORE#1")
