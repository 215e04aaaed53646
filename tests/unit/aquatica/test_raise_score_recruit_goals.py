"""Raise, full rise and score (spec §6.6-§6.9; scenarios 28-34, worked example 3), recruit (§6.5; 35-37)
and goals (§6.17; 38-41)."""

from __future__ import annotations

from msgspec.structs import replace

from benthic.rules.aquatica.state import TrackSpot
from tests.unit.aquatica.helpers import (
    CAT,
    ENGINE,
    Table,
    cmd,
    edit_player,
    names,
    new_game,
    of_type,
    one,
    with_cards,
    with_locations,
    with_mantas,
)

EXPENSIVE = ["SS08", "OV11", "DC06", "SB13", "SS12"]


def test_n28_example3_full_rise_gives_a_ready_manta() -> None:
    state = with_locations(new_game(2), bottom=["SB08", *EXPENSIVE], boards={0: {0: "SB03@0"}})
    t = Table(with_mantas(state, 0, tired=("T0-P2",), wild=("W_RAISE1",)))
    power2 = CAT.wild_index["W_POWER2"]
    assert t.state.wild_reserve[power2] == 8
    events = t.do(0, "flip_manta", manta_id="W_RAISE1#1")
    assert one(events, "location_raised").auto and t.board() == {0: "SB03@1"}
    gained = one(events, "wild_manta_gained")
    assert (gained.manta_id, gained.kind) == ("W_POWER2#1", "W_POWER2") and t.manta("W_POWER2#1").ready
    assert t.state.wild_reserve[power2] == 7
    t.do(0, "play_character", card_id="S0-LEGIONARY")
    assert t.state.pool_power == 3
    t.do(0, "acquire", location_id="SB08", slot=1, mode="conquer")
    assert t.prompt.details["due"] == 3
    t.do(0, "flip_manta", manta_id="W_POWER2#1")
    assert t.prompt.details["due"] == 1
    events = t.do(0, "flip_manta", manta_id="T0-P1")
    paid = one(events, "payment_completed")
    assert (paid.cost, paid.from_pool, paid.from_sources) == (6, 3, 3)
    assert not t.manta("W_RAISE1#1").ready and not t.manta("W_POWER2#1").ready
    assert t.board() == {0: "SB03@1", 1: "SB08@0"}


def _wave_teller(boards: dict[int, str]) -> Table:
    t = Table(with_locations(new_game(2), boards={0: boards}))
    t.do(0, "play_character", card_id="S0-WAVETELLER")
    return t


def test_n29_split_raise_allocations() -> None:
    t = _wave_teller({0: "SB08@0", 1: "SS02@0", 2: "SB01"})
    assert (t.prompt.kind, t.prompt.details["performable"]) == ("choose_option", [0, 1])
    t.do(0, "choose_option", index=0)
    assert t.prompt.kind == "choose_raise"
    legal = {c.allocation for c in t.legal() if c.__struct_config__.tag == "raise"}
    assert legal == {((0, 2),), ((0, 1), (1, 1))}
    t.reject(0, "raise", "allocation_not_maximal", allocation=[[1, 1]])
    t.reject(0, "raise", "invalid_allocation", allocation=[[1, 2]])
    t.reject(0, "raise", "invalid_allocation", allocation=[[0, 1], [0, 1]])
    events = t.do(0, "raise", allocation=[[0, 1], [1, 1]])
    assert [(e.slot, e.covered_after) for e in of_type(events, "location_raised")] == [(0, 1), (1, 1)]
    assert one(events, "location_fully_risen").location_id == "SS02" and not of_type(events, "wild_manta_gained")


def test_n30_non_split_raise_with_a_surplus() -> None:
    t = Table(with_locations(new_game(2), boards={0: {0: "OV02@0", 1: "SS02@0", 2: "SB08@0"}}))
    t.do(0, "exploit_depth", slot=0)
    assert t.prompt.kind == "choose_raise"
    assert {c.allocation for c in t.legal() if c.__struct_config__.tag == "raise"} == {((1, 1),), ((2, 2),)}
    t.reject(0, "raise", "invalid_allocation", allocation=[[1, 2]])
    events = t.do(0, "raise", allocation=[[1, 1]])
    assert one(events, "location_fully_risen").location_id == "SS02"
    assert t.board() == {0: "OV02@1", 1: "SS02@1", 2: "SB08@0"}


def test_n31_score_option_with_hidden_ids() -> None:
    t = _wave_teller({0: "SB01", 1: "SS02@1", 2: "SB08@0"})
    events = t.do(0, "choose_option", index=1)
    scored = of_type(events, "location_scored")
    assert [(e.location_id, e.auto) for e in scored] == [("SB01", True), ("SS02", True)]
    assert t.player().scored == ("SB01", "SS02") and sum(e.prosperity for e in scored) == 3
    assert t.board() == {2: "SB08@0"}
    seat1 = ENGINE.view(t.state, 1)["players"][0]
    assert seat1["scoring_pile_count"] == 2 and "scoring_pile" not in seat1
    for e in scored:
        assert ENGINE.redact(e, 1) == {"type": "location_scored", "seat": 0, "slot": e.slot, "auto": True}
        assert ENGINE.redact(e, None) == ENGINE.redact(e, 1)
        assert ENGINE.redact(e, 0)["location_id"] == e.location_id


def test_n32_a_score_depth_cannot_score_its_own_location() -> None:
    t = Table(with_locations(new_game(2), boards={0: {0: "DC02@0"}}))
    t.reject(0, "exploit_depth", "output_wasted", slot=0)
    t = Table(with_locations(new_game(2), boards={0: {0: "DC02@0", 1: "SB01"}}))
    events = t.do(0, "exploit_depth", slot=0)
    assert [e.location_id for e in of_type(events, "location_scored")] == ["SB01"]
    assert t.board() == {0: "DC02@1"} and t.player().scored == ("SB01",)


def test_n33_one_use_king_with_full_rise() -> None:
    state = with_locations(new_game(2), boards={0: {0: "SB13@0", 1: "SB01"}})
    t = Table(with_cards(state, 0, hand=["MATRONA", "K5"]))
    events = t.do(0, "play_character", card_id="K5")
    risen = one(events, "location_raised")
    assert (risen.slot, risen.covered_after, risen.cause, risen.auto) == (0, 4, "fully_rise", True)
    assert not of_type(events, "wild_manta_gained")
    assert {e.location_id for e in of_type(events, "location_scored")} == {"SB13", "SB01"}
    assert one(events, "card_removed_from_game").card_id == "K5"
    p = t.player()
    assert "K5" not in p.hand + p.discard and "K5" in t.state.removed_characters


def test_n34_a_points_only_location() -> None:
    state = with_locations(new_game(2), bottom=["OV01", *EXPENSIVE])
    t = Table(with_mantas(with_cards(state, 0, hand=["MATRONA", "OC-MERCHANT-P"]), 0, wild=("W_SCORE",)))
    t.do(0, "play_character", card_id="OC-MERCHANT-P")
    assert t.state.pool_coins == 3
    t.do(0, "acquire", location_id="OV01", slot=0, mode="buy")
    assert t.prompt.details["due"] == 2
    events = t.do(0, "flip_manta", manta_id="T0-C2")
    assert one(events, "location_fully_risen").location_id == "OV01" and not of_type(events, "wild_manta_gained")
    events = t.do(0, "flip_manta", manta_id="W_SCORE#1")
    scored = one(events, "location_scored")
    assert (scored.location_id, scored.prosperity, scored.auto) == ("OV01", 4, True)


def test_n35_paid_recruit_then_the_row_shifts_and_refills() -> None:
    t = Table(new_game(3))
    row, g = t.state.character_row, t.state.ocean_deck[0]
    assert len(t.state.ocean_deck) == 21
    t.do(0, "play_character", card_id="S0-HERALD")
    assert t.state.pool_coins == 1 and t.prompt.kind == "choose_recruit"
    t.reject(0, "recruit", "invalid_row_slot", row_slot=6)
    events = t.do(0, "recruit", row_slot=4)
    assert one(events, "recruit_started").cost == 4 and t.prompt.details["due"] == 3
    t.do(0, "flip_manta", manta_id="T0-C2")
    assert t.prompt.details["due"] == 1
    events = t.do(0, "flip_manta", manta_id="T0-C1")
    recruited = one(events, "character_recruited")
    assert (recruited.card_id, recruited.row_slot, recruited.cost, recruited.paid) == (row[4], 4, 4, True)
    assert row[4] in t.player().hand
    assert t.state.character_row == (*row[:4], row[5], g) and len(t.state.ocean_deck) == 20
    assert t.player().max_paid_recruit_cost == 4


def _recruit5_game() -> Table:
    state = new_game(2, variable_goals=True)
    goals = list(state.goals)
    goals[2] = "G_RECRUIT5"
    return Table(replace(state, goals=tuple(goals)))


def test_n36_the_five_coin_recruit_goal() -> None:
    t = _recruit5_game()
    t.state = with_locations(t.state, boards={0: {0: "SS03@0"}})
    t.do(0, "play_character", card_id="S0-HERALD")
    t.do(0, "recruit", row_slot=5)
    assert t.prompt.details["due"] == 4
    t.do(0, "exploit_depth", slot=0)
    assert t.prompt.details["due"] == 1
    t.do(0, "flip_manta", manta_id="T0-C1")
    events = t.do(0, "claim_goal", goal_index=2, manta_id="T0-P2")
    claimed = one(events, "goal_claimed")
    assert (claimed.spot, claimed.points) == (1, 6)

    t = _recruit5_game()
    t.state = with_locations(t.state, boards={0: {0: "DC05@0"}})
    t.do(0, "exploit_depth", slot=0)  # the free recruit of an RC Depth
    assert (t.prompt.kind, t.prompt.details["free"]) == ("choose_recruit", True)
    recruited = one(t.do(0, "recruit", row_slot=5), "character_recruited")
    assert (recruited.free, recruited.paid, recruited.cost) == (True, False, 0)
    assert t.player().max_paid_recruit_cost is None
    t.reject(0, "claim_goal", "goal_condition_not_met", goal_index=2, manta_id="T0-P2")


def test_n37_ocean_deck_runs_out_and_the_final_round() -> None:
    state = new_game(3, first_seat=1)
    state = replace(state, ocean_deck=state.ocean_deck[:1],
                    removed_characters=state.removed_characters + state.ocean_deck[1:])
    state = with_locations(state, top=[], bottom=["SB02", "SB03", "SB04"], deck_size=3)
    t = Table(state)
    t.do(1, "play_character", card_id="S1-HERALD")
    events = t.do(1, "recruit", row_slot=0)
    ended = one(events, "end_triggered")
    assert (ended.reason, ended.seat, ended.final_turns) == ("ocean_deck_empty", 1, 3)
    assert t.state.ocean_deck == ()
    t.do(1, "end_turn")
    t.do(2, "play_character", card_id="S2-HERALD")
    t.do(2, "recruit", row_slot=0)
    assert t.state.character_row[-1] is None and sum(c is not None for c in t.state.character_row) == 5
    t.do(2, "end_turn")
    events = t.do(0, "play_character", card_id="S0-SEAHORSE")  # deals the last 3 Locations
    assert t.state.location_deck == () and not of_type(events, "end_triggered")
    while t.prompt.kind != "turn":
        t.play_first_legal(0)
    t.do(0, "end_turn")
    t.do(1, "play_character", card_id="S1-WAVETELLER")
    events = t.do(1, "end_turn")
    ended_game = one(events, "game_ended")
    assert ended_game.end_reason == "ocean_deck_empty" and ENGINE.is_over(t.state)
    assert len(of_type(t.events, "end_triggered")) == 1
    for seat in range(3):
        t.reject(seat, "end_turn", "game_over")
        t.reject(seat, "play_character", "game_over", card_id=f"S{seat}-MATRONA")


def test_n38_claiming() -> None:
    state = with_mantas(new_game(2), 0, tired=("T0-C2",), wild=("W_COIN2",))
    ocean = [f"OC-{n}-P" for n in ("GRABBER", "HEALER", "MEG")]
    state = with_cards(state, 0, hand=[*state.players[0].hand, *ocean])
    state = with_locations(state, scored={0: ("SB01", "SB02")})
    t = Table(state)
    assert len(t.player().hand) == 10 and t.state.goals[0] == "G_HAND10"
    events = t.do(0, "claim_goal", goal_index=0, manta_id="T0-C2")
    claimed = one(events, "goal_claimed")
    assert (claimed.spot, claimed.points) == (1, 6)
    assert "T0-C2" not in [m.id for m in t.player().mantas]
    t.reject(0, "claim_goal", "goal_already_claimed", goal_index=0, manta_id="T0-C1")
    t.reject(0, "claim_goal", "not_trained_manta", goal_index=3, manta_id="W_COIN2#1")
    t.reject(0, "claim_goal", "goal_condition_not_met", goal_index=2, manta_id="T0-C1")
    t.reject(0, "claim_goal", "invalid_goal_index", goal_index=4, manta_id="T0-C1")
    t.reject(0, "claim_goal", "manta_not_in_reserve", goal_index=1, manta_id="T0-C2")
    t.reject(0, "claim_goal", "not_trained_manta", goal_index=1, manta_id="T1-C2")
    assert t.prompt.kind == "turn"


def test_n39_claim_during_the_main_action() -> None:
    state = with_locations(new_game(2), bottom=["SB12", *EXPENSIVE], boards={0: {0: "SB08@0"}})
    t = Table(with_mantas(state, 0, tired=("T0-C2", "T0-C1"), wild_tired=("W_COIN2",)))
    t.do(0, "play_character", card_id="S0-LEGIONARY")
    t.do(0, "acquire", location_id="SB12", slot=1, mode="conquer")
    assert t.prompt.details["due"] == 5
    t.do(0, "flip_manta", manta_id="T0-P2")
    t.reject(0, "claim_goal", "goal_condition_not_met", goal_index=3, manta_id="T0-C2")  # 4 tired
    t.do(0, "flip_manta", manta_id="T0-P1")
    assert t.prompt.details["due"] == 2
    events = t.do(0, "claim_goal", goal_index=3, manta_id="T0-C2")
    claimed = one(events, "goal_claimed")
    assert (t.state.goals[claimed.goal_index], claimed.spot) == ("G_TIRED5", 1)
    assert (t.prompt.kind, t.prompt.details["due"]) == ("pay", 2)
    events = t.do(0, "exploit_depth", slot=0)
    assert one(events, "location_acquired").location_id == "SB12"


def test_n40_no_claims_on_others_prompts() -> None:
    state = with_locations(new_game(3), bottom=["SS08", "SS12", "DC06", "SB13", "SB14", "SS13"])
    t = Table(with_cards(state, 0, hand=["MATRONA", "OC-MEG-P"]))
    t.do(0, "play_character", card_id="OC-MEG-P")
    assert (t.prompt.kind, set(t.prompt.seats)) == ("opponent_discard", {1, 2})
    t.reject(1, "claim_goal", "wrong_prompt", goal_index=0, manta_id="T1-C2")
    t.reject(0, "claim_goal", "not_your_turn", goal_index=0, manta_id="T0-C2")
    t.do(1, "discard_card", card_id="S1-HERALD")
    assert t.prompt.seats == (2,)
    t.reject(1, "discard_card", "already_answered", card_id="S1-PATRICIAN")
    assert ENGINE.legal_commands(t.state, 1) == []


def test_n41_all_four_goals() -> None:
    state = new_game(3, first_seat=2)
    tracks = (*(tuple([TrackSpot(2, mid)]) for mid in ("T2-C2", "T2-C1", "T2-P2")), ())
    state = replace(state, tracks=tracks)
    state = edit_player(state, 2, mantas=tuple(m for m in state.players[2].mantas if m.id == "T2-P1"))
    state = with_mantas(state, 2, tired=("T2-P1",), wild_tired=("W_COIN2",) * 2 + ("W_POWER2",) * 2)
    t = Table(state)
    events = t.do(2, "claim_goal", goal_index=3, manta_id="T2-P1")
    assert names(events) == ["goal_claimed", "end_triggered"]
    ended = one(events, "end_triggered")
    assert (ended.reason, ended.seat, ended.final_turns) == ("all_goals", 2, 3)


def test_claim_commands_are_listed_only_for_met_goals() -> None:
    state = with_mantas(new_game(2), 0, tired=("T0-C2", "T0-C1", "T0-P2", "T0-P1"), wild_tired=("W_COIN2",))
    t = Table(state)
    claims = {(c.goal_index, c.manta_id) for c in t.legal() if c.__struct_config__.tag == "claim_goal"}
    assert claims == {(3, m) for m in ("T0-C2", "T0-C1", "T0-P2", "T0-P1")}
    assert ENGINE.decide(t.state, 0, cmd("claim_goal", goal_index=3, manta_id="T0-P1"))
