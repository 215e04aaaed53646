"""The error codes of spec §5.7 not already met in the acceptance scenarios, each where its check fires."""

from __future__ import annotations

from msgspec.structs import replace

from benthic.rules.aquatica.effects import Choice, Raise, Recruit, Score
from benthic.rules.aquatica.state import Payment, QueueItem, Source, TrackSpot
from tests.unit.aquatica.helpers import Table, new_game, one, with_cards, with_locations, with_mantas

EXPENSIVE = ["SS08", "OV11", "DC06", "SB13", "SS12"]


def test_flip_manta_checks_1_to_4() -> None:
    state = replace(new_game(2), tracks=((TrackSpot(0, "T0-C1"),), (), (), ()))
    state = with_mantas(state, 0, tired=("T0-P1",), wild=("W_RAISE1",))
    t = Table(replace(state, players=(replace(state.players[0], mantas=tuple(
        m for m in state.players[0].mantas if m.id != "T0-C1")), state.players[1])))
    t.reject(0, "flip_manta", "manta_not_found", manta_id="W_RAISE1#2")  # still in the reserve
    t.reject(0, "flip_manta", "not_your_manta", manta_id="T1-C2")
    t.reject(0, "flip_manta", "manta_on_goal_track", manta_id="T0-C1")
    t.reject(0, "flip_manta", "manta_tired", manta_id="T0-P1")


def test_payment_source_checks() -> None:
    state = with_locations(new_game(2), bottom=["SB08", *EXPENSIVE], boards={0: {0: "SB04@2", 1: "OV02@0"}})
    t = Table(with_mantas(state, 0, wild=("W_RAISE1",)))
    t.reject(0, "exploit_depth", "location_fully_risen", slot=0)
    t.reject(0, "exploit_depth", "slot_empty", slot=3)
    t.reject(0, "exploit_depth", "invalid_slot", slot=5)
    t.do(0, "play_character", card_id="S0-LEGIONARY")
    t.do(0, "acquire", location_id="SB08", slot=2, mode="conquer")
    t.reject(0, "flip_manta", "not_a_payment_source", manta_id="W_RAISE1#1")  # R8: effects wait
    t.state = replace(t.state, resource_mantas_used=("T0-P2",))  # flipped for a resource earlier this turn
    t.reject(0, "flip_manta", "manta_already_used_this_turn", manta_id="T0-P2")


def test_resource_depth_outside_the_main_action() -> None:
    """Unreachable with the proposed data (no effect outside a card pays); the check still holds."""
    state = with_locations(new_game(2), boards={0: {0: "SS02@0"}})
    recruit = QueueItem(Recruit(free=False), Source("manta", "T0-C2"), 0)
    t = Table(replace(state, queue=(recruit,), payment=Payment("recruit", "coins", 3, row_slot=3,
                                                                  card_id=state.character_row[3])))
    assert t.prompt.kind == "pay" and t.state.stage == "before_main"
    t.reject(0, "exploit_depth", "resource_depth_outside_main_action", slot=0)


def test_choose_option_checks() -> None:
    state = with_locations(new_game(2), boards={0: {0: "SB01", 1: "SS01"}})
    choice = Choice(options=((Raise(amount=2, split=True),), (Score(count=2),), (Score(count=1),)))
    t = Table(replace(state, stage="main", in_play="S0-WAVETELLER",
                      players=(replace(state.players[0], hand=state.players[0].hand[:4] + state.players[0].hand[5:]),
                               state.players[1]),
                      queue=(QueueItem(choice, Source("card", "S0-WAVETELLER"), 0),)))
    assert (t.prompt.kind, t.prompt.details["performable"]) == ("choose_option", [1, 2])
    t.reject(0, "choose_option", "invalid_option", index=3)
    t.reject(0, "choose_option", "option_not_performable", index=0)
    t.do(0, "choose_option", index=2)
    assert t.prompt.kind == "choose_score"


def test_recruit_checks() -> None:
    state = new_game(2)
    t = Table(replace(state, character_row=(*state.character_row[:5], None)))  # the deck ran out
    t.do(0, "play_character", card_id="S0-HERALD")
    t.reject(0, "recruit", "row_slot_empty", row_slot=5)
    t = Table(new_game(2))
    t.do(0, "play_character", card_id="S0-HERALD")
    t.reject(0, "recruit", "cannot_afford", row_slot=5)  # 5 > pool 1 + T0-C2 + T0-C1


def test_a_raise_depth_cannot_raise_its_own_location() -> None:
    t = Table(with_locations(new_game(2), boards={0: {0: "OV06@0", 1: "SB04@0", 2: "SB08@0"}}))
    t.do(0, "exploit_depth", slot=0)
    assert t.prompt.kind == "choose_raise" and t.board()[0] == "OV06@1"
    t.reject(0, "raise", "cannot_target_source", allocation=[[0, 1]])
    t.reject(0, "raise", "slot_empty", allocation=[[3, 1]])
    t.reject(0, "raise", "invalid_allocation", allocation=[[1, 1], [2, 1]])  # not a split raise
    t.reject(0, "raise", "invalid_allocation", allocation=[])
    t.do(0, "raise", allocation=[[2, 1]])


def test_score_checks() -> None:
    t = Table(with_locations(new_game(2), boards={0: {0: "DC02@0", 1: "SB01", 2: "SS01", 3: "SB08@0"}}))
    t.do(0, "exploit_depth", slot=0)
    assert (t.prompt.kind, t.prompt.details["remaining"]) == ("choose_score", 1)
    t.reject(0, "score", "cannot_target_source", slot=0)
    t.reject(0, "score", "not_fully_risen", slot=3)
    t.reject(0, "score", "slot_empty", slot=4)
    scored = one(t.do(0, "score", slot=2), "location_scored")
    assert scored.location_id == "SS01" and t.prompt.kind == "turn"


def test_fully_rise_checks() -> None:
    state = with_locations(new_game(2), boards={0: {0: "SB13@0", 1: "SB08@1", 2: "SB01"}})
    t = Table(with_cards(state, 0, hand=["MATRONA", "K5"]))
    t.do(0, "play_character", card_id="K5")
    assert t.prompt.kind == "choose_fully_rise"
    t.reject(0, "fully_rise", "location_fully_risen", slot=2)
    t.reject(0, "fully_rise", "slot_empty", slot=3)
    raised = one(t.do(0, "fully_rise", slot=1), "location_raised")
    assert (raised.location_id, raised.steps, raised.covered_after) == ("SB08", 2, 3)
    assert set(t.player().scored) == {"SB08", "SB01"} and t.board() == {0: "SB13@0"}  # then `score 2`


def test_goal_track_full() -> None:
    """The 5th spot exists for an expansion's 5th player; a full track refuses a claim."""
    state = new_game(4)
    full = tuple(TrackSpot(s, f"X-{s}") for s in (1, 2, 3, -1, -1))
    state = with_mantas(replace(state, tracks=((), (), (), full)), 0,
                        tired=("T0-C2", "T0-C1", "T0-P2", "T0-P1"), wild_tired=("W_COIN2",))
    Table(state).reject(0, "claim_goal", "goal_track_full", goal_index=3, manta_id="T0-C2")
