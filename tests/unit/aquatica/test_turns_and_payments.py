"""Turn structure and payments (spec §5.2, §5.6, §6.1-§6.4; acceptance scenarios 6-16, worked example 2)."""

from __future__ import annotations

from tests.unit.aquatica.helpers import (
    ENGINE,
    Table,
    cmd,
    new_game,
    of_type,
    one,
    with_cards,
    with_locations,
    with_mantas,
)

EXPENSIVE = ["SS08", "OV11", "DC06", "SB13", "SS12"]  # none affordable with Patrician + Mantas


def test_n06_main_action_discipline() -> None:
    t = Table(new_game(2))
    t.reject(0, "end_turn", "main_action_not_taken")
    t.reject(0, "play_character", "card_not_in_hand", card_id="S1-PATRICIAN")
    events = t.do(0, "play_character", card_id="S0-WAVETELLER")
    assert one(events, "effect_skipped").effect.__struct_config__.tag == "choice"
    assert one(events, "main_action_completed").seat == 0
    assert t.player().discard[-1] == "S0-WAVETELLER"
    t.reject(0, "play_character", "main_action_already_taken", card_id="S0-HERALD")
    events = t.do(0, "end_turn")
    assert one(events, "turn_started").seat == 1 and t.prompt.seats == (1,)


def test_n07_wrong_seat() -> None:
    t = Table(new_game(2))
    t.reject(1, "play_character", "not_your_turn", card_id="S1-LEGIONARY")


def _patrician_table(**boards: dict) -> Table:
    state = with_locations(new_game(2), bottom=["SS03", *EXPENSIVE], boards=boards.get("boards"))
    t = Table(state)
    t.do(0, "play_character", card_id="S0-PATRICIAN")
    assert t.state.pool_coins == 1 and t.prompt.kind == "choose_acquisition"
    return t


def test_n08_buy_with_mantas_and_overflow() -> None:
    t = _patrician_table()
    events = t.do(0, "acquire", location_id="SS03", slot=2, mode="buy")
    assert one(events, "acquisition_started").cost == 3
    assert (t.prompt.kind, t.prompt.details["due"]) == ("pay", 2)
    t.do(0, "flip_manta", manta_id="T0-C1")
    assert t.prompt.details["due"] == 1
    events = t.do(0, "flip_manta", manta_id="T0-C2")
    paid = one(events, "payment_completed")
    assert (paid.cost, paid.from_pool, paid.from_sources, paid.overflow) == (3, 1, 3, 1)
    acquired = one(events, "location_acquired")
    assert (acquired.location_id, acquired.slot) == ("SS03", 2) and t.board() == {2: "SS03@0"}
    assert len(t.state.bottom_row) == 5 and "SS03" not in t.state.bottom_row
    assert not t.manta("T0-C1").ready and not t.manta("T0-C2").ready
    assert t.player().discard[-1] == "S0-PATRICIAN"
    assert (t.prompt.kind, t.prompt.details["stage"]) == ("turn", "after_main")
    assert (t.state.pool_coins, t.state.pool_power) == (0, 0)


def test_n09_acquisition_errors() -> None:
    t = _patrician_table()
    t.reject(0, "acquire", "cannot_afford", location_id="SS08", slot=0, mode="buy")
    t.reject(0, "acquire", "mode_not_allowed", location_id="SS03", slot=0, mode="conquer")
    t.reject(0, "acquire", "location_not_available", location_id=t.state.location_deck[0], slot=0, mode="buy")
    t.reject(0, "acquire", "invalid_slot", location_id="SS03", slot=7, mode="buy")
    t = _patrician_table(boards={0: {0: "SB01"}})
    t.reject(0, "acquire", "slot_occupied", location_id="SS03", slot=0, mode="buy")


def test_n10_resources_outside_payments() -> None:
    t = Table(with_locations(new_game(2), boards={0: {0: "SS02@0"}}))
    t.reject(0, "flip_manta", "resource_manta_outside_payment", manta_id="T0-C2")
    t.reject(0, "exploit_depth", "resource_depth_outside_payment", slot=0)


def _example2(target: str) -> Table:
    bottom = ["SB04", "SB06", "SS03", *EXPENSIVE[:3]]
    t = Table(with_locations(new_game(2), bottom=bottom, boards={0: {0: "SS02@0", 1: "OV07@0"}}))
    t.do(0, "play_character", card_id="S0-PATRICIAN")
    t.do(0, "acquire", location_id=target, slot=2, mode="buy")
    return t


def test_n11_example2_no_waste() -> None:
    t = _example2("SB04")  # (a) coin 3
    assert t.prompt.details["due"] == 2
    events = t.do(0, "exploit_depth", slot=0)
    assert one(events, "payment_completed").overflow == 0
    assert t.board() == {0: "SS02@1", 1: "OV07@0", 2: "SB04@0"}
    assert of_type(events, "location_fully_risen") and not of_type(events, "wild_manta_gained")
    assert t.prompt.kind == "turn"
    t.reject(0, "exploit_depth", "resource_depth_outside_payment", slot=1)
    assert t.state.pool_coins == 0

    t = _example2("SB06")  # (b) coin 4
    assert t.prompt.details["due"] == 3
    t.do(0, "exploit_depth", slot=0)
    assert t.prompt.details["due"] == 1
    events = t.do(0, "exploit_depth", slot=1)
    paid = one(events, "payment_completed")
    assert (paid.cost, paid.from_pool, paid.from_sources, paid.overflow) == (4, 1, 4, 1)
    assert t.state.pool_coins == 0


def test_n12_acquisition_is_mandatory() -> None:
    t = _patrician_table()
    t.reject(0, "end_turn", "wrong_prompt")
    legal = t.legal()
    assert legal and {c.__struct_config__.tag for c in legal} <= {"acquire", "claim_goal"}
    assert {c.location_id for c in legal if c.__struct_config__.tag == "acquire"} == {"SS03"}


def test_n13_board_full() -> None:
    boards = {0: {0: "SB01", 1: "SS01", 2: "OV01", 3: "DC01", 4: "SB02"}}
    t = Table(with_locations(new_game(2), boards=boards))
    events = t.do(0, "play_character", card_id="S0-LEGIONARY")
    gained = one(events, "resource_gained")
    assert (gained.resource, gained.amount) == ("power", 3)
    assert one(events, "effect_skipped").reason == "board_full"
    assert of_type(events, "main_action_completed")
    assert (t.state.pool_power, t.state.pool_coins) == (0, 0)


def _legionary_on(row: str) -> Table:
    rows = {"top": ["SB08"], "bottom": EXPENSIVE} if row == "top" else {"top": [], "bottom": ["SB08", *EXPENSIVE]}
    t = Table(with_locations(new_game(2), **rows))
    t.do(0, "play_character", card_id="S0-LEGIONARY")
    return t


def test_n14_top_row_discount() -> None:
    t = _legionary_on("top")
    events = t.do(0, "acquire", location_id="SB08", slot=0, mode="conquer")
    assert one(events, "acquisition_started").cost == 5 and t.prompt.details["due"] == 2
    events = t.do(0, "flip_manta", manta_id="T0-P2")
    assert one(events, "payment_completed").overflow == 0
    assert one(events, "location_acquired").from_row == "top"
    t = _legionary_on("bottom")
    events = t.do(0, "acquire", location_id="SB08", slot=0, mode="conquer")
    assert one(events, "acquisition_started").cost == 6 and t.prompt.details["due"] == 3


def test_n15_manta_kind_mismatch() -> None:
    t = _legionary_on("top")
    t.do(0, "acquire", location_id="SB08", slot=0, mode="conquer")
    t.reject(0, "flip_manta", "manta_kind_mismatch", manta_id="T0-C2")
    t.do(0, "flip_manta", manta_id="T0-P2")
    assert t.prompt.kind == "turn"


def test_n16_mantas_leader_readies_first() -> None:
    state = with_locations(new_game(2), bottom=["SB02", *EXPENSIVE])
    state = with_mantas(with_cards(state, 0, hand=["MATRONA", "OC-MANTAS_LEADER-P"]), 0, tired=("T0-P2", "T0-P1"))
    t = Table(state)
    events = t.do(0, "play_character", card_id="OC-MANTAS_LEADER-P")
    assert set(one(events, "mantas_readied").manta_ids) == {"T0-P2", "T0-P1"}
    t.do(0, "acquire", location_id="SB02", slot=0, mode="conquer")
    assert t.prompt.details["due"] == 3
    t.do(0, "flip_manta", manta_id="T0-P2")
    assert t.prompt.details["due"] == 1
    events = t.do(0, "flip_manta", manta_id="T0-P1")
    assert one(events, "location_acquired").location_id == "SB02"


def test_claim_cannot_strand_an_open_payment() -> None:
    """RULES.md ambiguity 5: claiming with a Manta the payment still needs is refused."""
    state = with_locations(new_game(2), bottom=["SB08", *EXPENSIVE], boards={0: {0: "SB01"}})
    ocean = [f"OC-{n}-P" for n in ("GRABBER", "HEALER", "MEG", "ENVOY", "MERCHANT")]
    state = with_cards(state, 0, hand=[*state.players[0].hand, *ocean])  # 12 cards: G_HAND10 holds
    t = Table(state)
    t.do(0, "play_character", card_id="S0-LEGIONARY")
    t.do(0, "acquire", location_id="SB08", slot=1, mode="conquer")  # due 3 = P2 + P1
    t.reject(0, "claim_goal", "cannot_afford", goal_index=0, manta_id="T0-P2")
    t.do(0, "claim_goal", goal_index=0, manta_id="T0-C2")  # not a source of this payment: fine
    assert t.prompt.kind == "pay"
    assert ENGINE.decide(t.state, 0, cmd("flip_manta", manta_id="T0-P2"))
