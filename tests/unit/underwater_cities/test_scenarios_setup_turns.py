"""Acceptance scenarios AS-01 .. AS-13 (spec §10): setup, keeping, playing a card, slots, hand limit."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from benthic.rules import GameConfig, RuleViolation
from benthic.rules.underwater_cities import ENGINE

from .fixtures import (
    A,
    B,
    C,
    D,
    card,
    cmd,
    event_types,
    fixture,
    kind,
    of_type,
    play,
    rejects,
    res,
    resources,
    started,
    with_turn,
)


def _seed_with_order(seats: int, order: tuple[int, ...]) -> int:
    for seed in range(500):
        events = ENGINE.start(GameConfig(seats=seats, seed=seed))
        if ENGINE.replay(events).play_order == order:
            return seed
    raise AssertionError("no seed gives that order")


def test_as01_setup_four_players() -> None:
    seed = _seed_with_order(4, (A, B, C, D))
    state = ENGINE.replay(ENGINE.start(GameConfig(seats=4, seed=seed)))
    assert state.main_side == "side_34"
    assert resources(state, A) == {"credit": 2, "kelp": 1, "steelplast": 1, "science": 1}
    assert resources(state, B) == {"credit": 2, "kelp": 1, "steelplast": 1, "science": 1}
    assert resources(state, C) == {"credit": 3, "kelp": 1, "steelplast": 1, "science": 1}
    assert resources(state, D) == {"credit": 3, "kelp": 1, "steelplast": 2, "science": 1}
    assert [p.fed_space for p in state.players] == [0, 4, 3, 2]
    assert (state.tunnels_left, state.white_left, state.purple_left) == (47, 13, 13)
    assert state.cloning_tile and not state.clone_used
    assert len(state.special_row) == 6 and all(state.special_row)
    assert len(state.special_deck) == 15
    view = ENGINE.view(state, None)
    assert view["special_deck"]["top"] == state.special_deck[0]
    for p in state.players:
        assert p.pieces == {"C34": p.pieces["C34"]} and p.pieces["C34"].kind == "city_nonsym"
        assert p.tableau == ("PA",) and p.used_actions == ()
        assert set(p.metros) == {"MB", "M1", "M2"}
        assert p.metros["MB"].startswith("BR") and p.metros["M1"].startswith("BL")
        assert len(p.hand) == 6
    assert sorted(p.board for p in state.players) == [1, 2, 3, 4]
    prompt = ENGINE.prompt(state)
    assert prompt is not None and prompt.kind == "keep_cards" and prompt.seats == (A, B, C, D)
    assert len(state.era_deck) == 66 - 24


def test_as02_setup_two_and_three_players() -> None:
    seed = _seed_with_order(2, (A, B))
    two = ENGINE.replay(ENGINE.start(GameConfig(seats=2, seed=seed)))
    assert two.main_side == "side_2" and two.purple_left == 7 and two.white_left == 15 and not two.cloning_tile
    assert [p.fed_space for p in two.players] == [0, 4]
    assert resources(two, A) == resources(two, B) == {"credit": 2, "kelp": 1, "steelplast": 1, "science": 1}
    seed = _seed_with_order(3, (A, B, C))
    three = ENGINE.replay(ENGINE.start(GameConfig(seats=3, seed=seed)))
    assert three.main_side == "side_34" and three.purple_left == 10 and not three.cloning_tile
    assert [p.fed_space for p in three.players] == [0, 4, 3]
    assert three.players[C].res.credit == 3
    for seats in (5, 0):
        try:
            ENGINE.start(GameConfig(seats=seats, seed=1))
        except RuleViolation as exc:
            assert exc.code == "invalid_player_count"
        else:
            raise AssertionError("accepted a bad seat count")


def test_as03_setup_solo() -> None:
    for seed in range(8):
        state = ENGINE.replay(ENGINE.start(GameConfig(seats=1, seed=seed)))
        assert state.main_side == "side_2" and state.board_side == "advanced"
        assert 5 <= state.players[0].board <= 8
        assert state.players[0].metros["MB"] in ("BR1", "BR2", "BR3", "BR4")
        assert state.purple_left is None and state.players[0].fed_space == 0
    keep = ENGINE.prompt(state)
    assert keep is not None
    hand = state.players[0].hand
    state, events = play(state, 0, cmd.KeepCards(hand[:3]))
    assert sorted(state.slots) == ["G1", "R1", "Y1"]
    assert of_type(events, "solo_blockers_placed")[0].slots == ("G1", "R1", "Y1")
    for options in ({"government_contracts": True}, {"board_side": "basic"}):
        try:
            ENGINE.start(GameConfig(seats=1, seed=1, options=options))
        except RuleViolation as exc:
            assert exc.code == "option_not_allowed"
        else:
            raise AssertionError(f"solo accepted {options}")


def test_as04_opening_keep() -> None:
    state, _ = started(4, seed=_seed_with_order(4, (A, B, C, D)))
    hand = state.players[A].hand
    rejects(state, A, cmd.KeepCards(hand[:2]), "wrong_count")
    rejects(state, A, cmd.KeepCards((hand[0], hand[1], card(99))), "card_not_in_hand")
    rejects(state, A, cmd.KeepCards((hand[0], hand[0], hand[1])), "duplicate_card")
    state, events = play(state, A, cmd.KeepCards(hand[:3]))
    assert event_types(events) == ["cards_kept_detail", "cards_kept"]
    assert ENGINE.redact(events[0], B) is None and ENGINE.redact(events[0], A) is not None
    rejects(state, A, cmd.KeepCards(state.players[A].hand[:3]), "already_answered")
    view_b = ENGINE.view(state, B)
    assert view_b["keep"]["answered"] == [A]
    assert not set(hand) & _strings(view_b)
    all_events = []
    for seat in (B, C, D):
        state, events = play(state, seat, cmd.KeepCards(state.players[seat].hand[:3]))
        all_events.extend(events)
    discarded = [c for e in of_type(all_events, "cards_discarded") for c in e.card_ids]
    assert len(discarded) == 12 and set(hand[3:]) <= set(discarded)
    assert len(state.era_discard) == 12
    assert all(len(p.hand) == 3 for p in state.players)
    assert kind(state) == "choose_play" and ENGINE.prompt(state).seats == (A,)


def _strings(value: object) -> set[str]:
    from tests.engine_harness import strings_in

    return strings_in(value)


def test_as05_mismatch() -> None:
    state = fixture(hands={A: [card(28)], B: [card(17)]}, resources={A: res(steelplast=1, kelp=1)})
    state, events = play(state, A, cmd.PlayCard(card(28), "G2"))
    assert resources(state, A) == {"steelplast": 3, "kelp": 2}
    assert card(28) in state.era_discard
    played = of_type(events, "card_played")[0]
    assert not played.matched
    assert state.slots["G2"] == (A,)
    assert kind(state) == "choose_play" and state.turn.seat == B
    rejects(state, B, cmd.PlayCard(card(17), "G2"), "slot_occupied")


def test_as06_generic_errors() -> None:
    state = fixture(hands={A: [card(17)], B: [card(2)]})
    rejects(state, B, cmd.PlayCard(card(2), "G1"), "not_your_turn")
    rejects(state, A, cmd.PlayCard("c999", "G1"), "card_not_in_hand")
    rejects(state, A, cmd.PlayCard(card(17), "Z9"), "unknown_slot")
    rejects(state, A, cmd.ChooseOrder("card"), "wrong_prompt")
    rejects(state, A, cmd.Done(), "wrong_prompt")


def test_as07_always_available_slot_and_black_ops_team() -> None:
    state = fixture(hands={A: [card(17), card(2)], B: [card(18)]}, tableau={A: [card(14)]})
    state, events = play(state, A, cmd.PlayCard(card(17), "AA"))
    assert resources(state, A) == {"credit": 2}
    assert len(state.players[A].hand) == 1 + 2 + 1  # #2, the 2 cards gained, the end-of-turn draw
    assert card(17) in state.era_discard
    assert not of_type(events, "card_triggered")
    state, _ = play(state, B, cmd.PlayCard(card(18), "AA"))
    assert state.players[B].res.credit == 2 and len(state.players[B].hand) == 3
    # Next pass: A plays green #2 on R2 (A13, red): a mismatch, so Black Ops Team gives 1 steelplast
    # at placement, then the slot's Federation +2.
    state = with_turn(state, seat=A, order_index=0, pass_no=1, stage="choose_play")
    state, events = play(state, A, cmd.PlayCard(card(2), "R2"))
    names = event_types(events)
    assert names.index("card_triggered") < names.index("federation_advanced")
    assert state.players[A].res.steelplast == 1
    assert state.players[A].fed_space == 3 and state.players[A].res.credit == 2 + 1


def test_as08_slot_usability() -> None:
    state = fixture(hands={A: [card(17)]}, resources={A: res(credit=5)})
    rejects(state, A, cmd.PlayCard(card(17), "Y5"), "slot_unusable")
    state = fixture(hands={A: [card(17)]}, resources={A: res(steelplast=1)})
    rejects(state, A, cmd.PlayCard(card(17), "Y5"), "slot_unusable")
    state = fixture(hands={A: [card(2)]}, resources={A: res(biomatter=1, credit=1)})
    state, _ = play(state, A, cmd.PlayCard(card(2), "Y5"))
    assert kind(state) == "build"
    state, events = play(state, A, cmd.Build("tunnel", "T:C24-C34", bio_for_steelplast=1))
    assert of_type(events, "built")[0].paid == res(biomatter=1, credit=1)
    # No second tunnel is affordable: the part ends, the frame closes, the turn ends (B is prompted).
    assert "effect_ended" in event_types(events) and state.turn.seat == B
    assert state.players[A].pieces["T:C24-C34"].kind == "tunnel"


def test_as09_partial_use() -> None:
    state = fixture(hands={A: [card(28)]}, resources={A: res(steelplast=3, kelp=1, credit=3)})
    state, _ = play(state, A, cmd.PlayCard(card(28), "Y1"))
    assert kind(state) == "resolve_effect"
    state, _ = play(state, A, cmd.StartPart(0))
    assert kind(state) == "build"
    state, _ = play(state, A, cmd.Build("tunnel", "T:C24-C34"))
    assert kind(state) == "resolve_effect"
    hand_before = len(state.players[A].hand)
    state, events = play(state, A, cmd.EndEffect())
    assert resources(state, A) == {"steelplast": 2, "kelp": 1, "credit": 2}
    assert not [s for s, p in state.players[A].pieces.items() if p.kind.startswith("city") and s != "C34"]
    assert of_type(events, "cards_drawn")[0].seat == A
    assert len(state.players[A].hand) == hand_before + 1 and state.turn.seat == B


def test_as10_card_first_and_usability_flag() -> None:
    state = fixture(hands={A: [card(17)]}, resources={A: res(credit=1, steelplast=2)})
    state, _ = play(state, A, cmd.PlayCard(card(17), "Y5"), cmd.ChooseOrder("card"))
    assert state.players[A].res.credit == 3 and kind(state) == "build"
    state, events = play(state, A, cmd.Build("tunnel", "T:C33-C34"))
    assert of_type(events, "build_bonus_gained")[0].bonus == "steelplast"
    state, _ = play(state, A, cmd.Build("tunnel", "T:C24-C34"))
    assert resources(state, A) == {"steelplast": 1, "credit": 1}
    poor = fixture(hands={A: [card(17)]}, resources={A: res(steelplast=2)})
    rejects(poor, A, cmd.PlayCard(card(17), "Y5"), "slot_unusable")
    aware = fixture(hands={A: [card(17)]}, resources={A: res(steelplast=2)},
                    options={"rules": {"usability_check": "card_aware"}})
    assert cmd.PlayCard(card(17), "Y5") in ENGINE.legal_commands(aware, A)
    aware, _ = play(aware, A, cmd.PlayCard(card(17), "Y5"))
    assert kind(aware) == "choose_order"


def test_as11_hand_limit_at_start_of_turn() -> None:
    hand = [card(n) for n in (1, 2, 17, 18, 20)]
    state = fixture(hands={A: hand})
    assert kind(state) == "discard_to_limit"
    rejects(state, A, cmd.PlayCard(card(17), "AA"), "wrong_prompt")
    rejects(state, A, cmd.DiscardCards((card(1),)), "wrong_count")
    state, events = play(state, A, cmd.DiscardCards((card(1), card(2))))
    assert len(state.players[A].hand) == 3
    assert set(of_type(events, "cards_discarded")[0].card_ids) == {card(1), card(2)}
    assert {card(1), card(2)} <= set(ENGINE.view(state, B)["era_discard"])
    assert kind(state) == "choose_play"


def test_as12_raised_hand_limit() -> None:
    five = [card(n) for n in (1, 2, 17, 18, 20)]
    state = fixture(hands={A: five}, tableau={A: [card(52)]})
    assert kind(state) == "discard_to_limit"
    rejects(state, A, cmd.DiscardCards((card(1), card(2))), "wrong_count")
    play(state, A, cmd.DiscardCards((card(1),)))
    assert kind(fixture(hands={A: five[:4]}, tableau={A: [card(52)]})) == "choose_play"
    both = fixture(hands={A: five}, tableau={A: [card(52), "c204"]})
    assert kind(both) == "choose_play"
    # Era start with limit 4 and 4 + 3 = 7 cards: keep exactly 4.
    from benthic.rules.underwater_cities import flow

    state = fixture(hands={A: five[:4], B: [card(3)], C: [card(4)], D: [card(5)]}, tableau={A: [card(52)]},
                    round_no=4)
    ctx = flow.Ctx(replace(state, turn=None))
    flow.round_end(ctx)
    state = ctx.state
    assert kind(state) == "keep_cards" and len(state.players[A].hand) == 7
    rejects(state, A, cmd.KeepCards(state.players[A].hand[:3]), "wrong_count")
    play(state, A, cmd.KeepCards(state.players[A].hand[:4]))


def test_as13_reshuffle() -> None:
    state = fixture(hands={A: [card(17)]}, resources={A: res(steelplast=1)})
    pile = state.era_deck[:10]
    state = replace(state, era_deck=(), era_discard=pile)
    state, events = play(state, A, cmd.PlayCard(card(17), "G1"))
    names = event_types(events)
    assert "deck_reshuffled" in names and names.index("deck_reshuffled") < names.index("cards_drawn")
    reshuffled = of_type(events, "deck_reshuffled")[0]
    assert sorted(reshuffled.order) == sorted(pile + (card(17),))
    assert ENGINE.redact(reshuffled, A) is None and ENGINE.redact(reshuffled, None) is None
    assert len(state.era_deck) == 10 and state.era_discard == ()
    # Both empty: nothing is drawn and the game goes on (the played card is claimed, so the pile stays empty).
    empty = fixture(hands={A: [card(14)]})
    empty = replace(empty, era_deck=(), era_discard=())
    after, events = play(empty, A, cmd.PlayCard(card(14), "G2"), cmd.ChooseOrder("card"))
    assert "cards_drawn" not in event_types(events) and "deck_reshuffled" not in event_types(events)
    assert after.players[A].hand == () and card(14) in after.players[A].tableau
    assert after.turn is not None and after.turn.seat == B
    msgspec.json.encode(ENGINE.view(after, None))
