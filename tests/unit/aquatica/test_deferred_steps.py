"""Steps of a Main action that wait for others re-check their own precondition when they run (issue 36, spec
§5.5): each queued effect is tested for performability whenever it is the unstarted head of the queue, so
whatever an earlier step, a payment's sources or a claim changed is taken into account (the second Conquer
of The Grabber: test_scout_and_depths.py, N-22; a claim that would strand an open payment is refused:
test_turns_and_payments.py)."""

from __future__ import annotations

import pytest

from benthic.rules.aquatica import events as ev
from tests.unit.aquatica.helpers import Table, new_game, of_type, one, with_locations, with_mantas
from tests.unit.aquatica.preconditions import check_event_applies

EXPENSIVE = ["SS08", "OV11", "DC06", "SB13", "SS12"]  # none affordable with Patrician's coin and 2 more


def test_a_claim_before_the_buy_is_chosen_takes_its_manta_and_the_buy_is_skipped() -> None:
    state = with_locations(new_game(2), bottom=["SS03", *EXPENSIVE])
    state = with_mantas(state, 0, tired=("T0-C1", "T0-P2", "T0-P1"), wild_tired=("W_POWER2", "W_RAISE1"))
    t = Table(state)
    t.do(0, "play_character", card_id="S0-PATRICIAN")  # 1 coin; SS03 costs 3 = the pool + T0-C2
    assert t.prompt.kind == "choose_acquisition" and t.state.goals[3] == "G_TIRED5"
    events = t.do(0, "claim_goal", goal_index=3, manta_id="T0-C2")  # 5 tired Mantas: the goal holds
    assert one(events, "goal_claimed").manta_id == "T0-C2"
    skipped = one(events, "effect_skipped")
    assert (skipped.effect.__struct_config__.tag, skipped.reason) == ("buy", "nothing_affordable")
    assert of_type(events, "main_action_completed") and t.prompt.kind == "turn"


def test_the_precondition_check_sees_an_acquisition_into_an_occupied_slot() -> None:
    state = with_locations(new_game(2), bottom=["SS03", *EXPENSIVE], boards={0: {2: "SB01"}})
    check_event_applies(state, ev.LocationAcquired(0, "SS03", 1, "buy", "bottom"))
    with pytest.raises(AssertionError):
        check_event_applies(state, ev.LocationAcquired(0, "SS03", 2, "buy", "bottom"))
