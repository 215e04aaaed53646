"""The spec's open alternatives (§11) as options: Q2 the Healer replays a discarded card as
part of the Main action (`healer_replays`), Q4 the updated printing's components (`printing: "updated"`, or
`components` alone), Q8 the players choose the Advanced goal tokens (`goal_tokens`)."""

from __future__ import annotations

from typing import Any

import pytest

from benthic.rules import GameConfig, RuleViolation
from tests.unit.aquatica.helpers import CAT, ENGINE, Table, names, new_game, of_type, one, with_cards, with_locations

NO_CONQUEST = ["SS08", "SS12", "DC06", "SB13", "SB14", "SS13"]  # power 8+: a conquer is skipped


def _healer_table(**options: Any) -> Table:
    state = with_locations(new_game(2, **options), boards={0: {0: "SB04@0"}}, top=[], bottom=NO_CONQUEST)
    return Table(with_cards(state, 0, hand=["MATRONA", "OC-HEALER-P"], discard=["LEGIONARY", "K1"]))


def test_q2_healer_replays_a_discarded_card_as_part_of_the_main_action() -> None:
    t = _healer_table(healer_replays=True)
    t.do(0, "play_character", card_id="OC-HEALER-P")
    assert t.prompt.kind == "choose_replay"
    assert {ENGINE.command_to_builtins(c)["card_id"] for c in ENGINE.legal_commands(t.state, 0)} == {
        "S0-LEGIONARY", "K1"}
    t.reject(0, "replay_card", "card_not_in_discard", card_id="OC-HEALER-P")
    t.reject(0, "take_back", "wrong_prompt", card_id="K1")
    events = t.do(0, "replay_card", card_id="S0-LEGIONARY")
    replayed = one(events, "card_replayed")
    assert (replayed.card_id, replayed.new_discard_top, replayed.auto) == ("S0-LEGIONARY", "K1", False)
    # Legionary's effects (gain 3 power, conquer: nothing affordable), then it is back on the discard pile,
    # then the Healer's own raise 1, then the Healer is discarded: all in the same Main action.
    order = names(events)
    assert order.index("card_replayed") < order.index("resource_gained") < order.index("replayed_card_returned")
    assert order.index("replayed_card_returned") < order.index("location_raised") < order.index("card_to_discard")
    gained = one(events, "resource_gained")
    assert (gained.resource, gained.amount, gained.source.id, gained.source.replay) == ("power", 3,
                                                                                        "S0-LEGIONARY", True)
    assert one(events, "effect_skipped").reason == "nothing_affordable"
    assert t.player().discard == ("K1", "S0-LEGIONARY", "OC-HEALER-P")
    assert "K1" not in t.player().hand and t.board() == {0: "SB04@1"}
    assert t.state.replaying == () and t.state.stage == "after_main"
    assert ENGINE.redact(replayed, 1) == ENGINE.redact(replayed, 0)  # a replayed card is played in the open

    # One card in the discard pile: the replay is automatic (R18); the default rule still takes back (R29).
    single = Table(with_cards(with_locations(new_game(2, healer_replays=True), boards={0: {0: "SB04@0"}},
                                             top=[], bottom=NO_CONQUEST),
                              0, hand=["OC-HEALER-P"], discard=["LEGIONARY"]))
    assert one(single.do(0, "play_character", card_id="OC-HEALER-P"), "card_replayed").auto
    default = _healer_table()
    default.do(0, "play_character", card_id="OC-HEALER-P")
    assert default.prompt.kind == "choose_take_back"


def _ocean_cards(state: Any) -> list[str]:
    return list(state.ocean_deck) + [c for c in state.character_row if c]


@pytest.mark.parametrize(("seats", "first", "updated"), [(1, 9, 9), (2, 18, 18), (3, 27, 18), (4, 27, 18)])
def test_q4_updated_printing_brings_its_own_components(seats: int, first: int, updated: int) -> None:
    assert len(_ocean_cards(new_game(seats))) == first
    state = new_game(seats, printing="updated")
    cards = _ocean_cards(state)
    assert len(cards) == updated and not any(c.endswith("-O") for c in cards + list(state.removed_characters))
    assert state.rules.components == "updated"
    mixed = new_game(seats, printing="updated", components="first")  # components apart from the preset
    assert len(_ocean_cards(mixed)) == first and mixed.rules.scout_rule == "updated"


def test_q4_updated_printing_draws_goal_tokens_from_its_five() -> None:
    drawn: set[str] = set()
    for seed in range(40):
        events = ENGINE.start(GameConfig(seats=2, seed=seed, options={"mode": "advanced", "printing": "updated"}))
        shuffle = next(e for e in events if ENGINE.event_name(e) == "deck_shuffled" and e.deck == "goal_tokens")
        assert sorted(shuffle.order) == ["TOK1", "TOK2", "TOK3", "TOK4", "TOK6"]
        drawn.update(one(events, "goals_set").tokens)
    assert drawn == {"TOK1", "TOK2", "TOK3", "TOK4", "TOK6"}


CHOSEN = [{"token": "TOK6", "side": "back"}, {"token": "TOK2", "side": "front"},
          {"token": "TOK4", "side": "front"}, {"token": "TOK1", "side": "back"}]


def test_q8_players_choose_the_goal_tokens() -> None:
    events = ENGINE.start(GameConfig(seats=3, seed=2, options={"mode": "advanced", "goal_tokens": CHOSEN}))
    goals = one(events, "goals_set")
    assert goals.tokens == ("TOK6", "TOK2", "TOK4", "TOK1")
    assert goals.goals == ("G_RECRUIT5", "G_PP15", "G_ALLBUT1", "G_RISEN5")
    assert not [e for e in of_type(events, "deck_shuffled") if e.deck == "goal_tokens"]
    view = ENGINE.view(ENGINE.replay(events), None)
    assert [g["token"] for g in view["goals"]] == ["TOK6", "TOK2", "TOK4", "TOK1"]
    assert [CAT.goals[g["goal_id"]].id for g in view["goals"]] == list(goals.goals)
    bad: list[dict[str, Any]] = [
        {"goal_tokens": CHOSEN},  # Basic goals
        {"mode": "advanced", "goal_tokens": CHOSEN[:3]},
        {"mode": "advanced", "goal_tokens": [CHOSEN[0]] * 4},
        {"mode": "advanced", "goal_tokens": [{"token": "TOK9", "side": "front"}, *CHOSEN[1:]]},
        {"mode": "advanced", "goal_tokens": [{"token": "TOK6", "side": "top"}, *CHOSEN[1:]]},
        {"mode": "advanced", "printing": "updated", "goal_tokens": [{"token": "TOK5", "side": "front"}, *CHOSEN[1:]]},
        {"mode": "advanced", "goal_tokens": "TOK1,TOK2"},
    ]
    for options in bad:
        with pytest.raises(RuleViolation) as refused:
            ENGINE.start(GameConfig(seats=2, seed=1, options=options))
        assert refused.value.code == "invalid_flag" and "§" in refused.value.message, options
