"""Acceptance scenarios AS-25 .. AS-37 (spec §10): action cards, Special cards, discounts, surcharges,
Federation track, play order, cloning tile."""

from __future__ import annotations

from msgspec.structs import replace

from benthic.rules.underwater_cities import ENGINE, flow, resolve
from benthic.rules.underwater_cities.board import specials_paid

from .fixtures import (
    A,
    B,
    C,
    D,
    card,
    cmd,
    fixture,
    kind,
    of_type,
    play,
    rejects,
    res,
    resources,
    started,
    with_player,
    with_turn,
)

GREEN, RED, YELLOW = card(2), card(28), card(17)


def test_as25_limit_of_four() -> None:
    start = fixture(hands={A: [card(6)]}, resources={A: res(kelp=1)},
                    tableau={A: [card(19), card(34), card(12)]}, used={A: [card(19)]})
    state, _ = play(start, A, cmd.PlayCard(card(6), "G1"), cmd.ChooseOrder("card"))
    assert kind(state) == "action_limit"
    rejects(state, A, cmd.DiscardActionCard("c999"), "no_such_action_card")
    state, _ = play(state, A, cmd.DiscardActionCard(card(34)))
    assert kind(state) == "use_discarded_action"
    state, events = play(state, A, cmd.UseDiscardedAction(True))
    assert of_type(events, "action_card_used")[0].via == "limit_discard"
    assert of_type(events, "cards_drawn")[0].count == 1
    state, _ = play(state, A, cmd.StartPart(0), cmd.Build("farm", "B:C34:1"))
    player = state.players[A]
    assert player.tableau == ("PA", card(19), card(12), card(6))
    assert card(34) in state.era_discard and player.pieces["B:C34:1"].kind == "farm"
    declined, _ = play(start, A, cmd.PlayCard(card(6), "G1"), cmd.ChooseOrder("card"), cmd.DeclineClaim())
    assert declined.players[A].tableau == ("PA", card(19), card(34), card(12))
    assert card(6) in declined.era_discard


def test_as26_once_per_era_and_restore() -> None:
    state = fixture(2, hands={A: [GREEN]}, resources={A: res(steelplast=1, credit=1)})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "Y4"), cmd.StartPart(1), cmd.UseActionCard("PA"),
                    cmd.ChooseOption(1))
    assert "PA" in state.players[A].used_actions
    again = fixture(2, hands={A: [GREEN]}, tableau={A: [card(12)]}, used={A: ["PA"]}, round_no=3)
    again, _ = play(again, A, cmd.PlayCard(GREEN, "R1"))
    assert kind(again) == "resolve_effect"
    again, _ = play(again, A, cmd.StartPart(0))
    rejects(again, A, cmd.UseActionCard("PA"), "action_card_used")
    # Production 1 restores every used action card.
    era_end = fixture(2, hands={A: [GREEN], B: [YELLOW]}, used={A: ["PA"]}, round_no=4)
    ctx = flow.Ctx(replace(era_end, turn=None))
    flow.round_end(ctx)
    assert "action_cards_restored" in [ENGINE.event_name(e) for e in ctx.events]
    assert ctx.state.players[A].used_actions == ()
    # Era III: #131 restores PA and uses it again in the same era.
    late = fixture(2, hands={A: [card(131)]}, used={A: ["PA"]}, round_no=8, era=3)
    late, _ = play(late, A, cmd.PlayCard(card(131), "R2"), cmd.ChooseOrder("card"), cmd.StartPart(0),
                   cmd.RestoreActionCard("PA"), cmd.StartPart(1), cmd.UseActionCard("PA"), cmd.ChooseOption(0))
    assert late.players[A].res.steelplast == 1 and "PA" in late.players[A].used_actions


def _special_fixture(**kw):
    row = [card(n) for n in range(181, 187)]
    deck = [card(n) for n in range(193, 206)] + [card(191), card(192)]
    return fixture(special_row=row, special_deck=deck, **kw)


def test_as27_taking_special_cards() -> None:
    state = _special_fixture(hands={A: [GREEN], B: [GREEN], C: [GREEN]}, resources={B: res(credit=1)})
    assert ENGINE.view(state, None)["special_deck"]["top"] == card(193)
    state, _ = play(state, A, cmd.PlayCard(GREEN, "R3"), cmd.StartPart(1), cmd.TakeSpecial("row", 2))
    assert card(182) in state.players[A].hand and state.special_row[1] == ""
    state, _ = play(state, A, cmd.EndEffect())
    assert card(182) in ENGINE.view(state, B)["players"][A]["known_hand"]
    # B takes the deck top through another take_special effect (cloning onto R3).
    state, events = play(state, B, cmd.PlayCardClone(GREEN, "R3"), cmd.StartPart(1))
    rejects(state, B, cmd.TakeSpecial("row", 2), "special_unavailable")
    state, events = play(state, B, cmd.TakeSpecial("deck_top"))
    assert card(193) in state.players[B].hand
    assert of_type(events, "special_revealed")[0].card_id == card(194)
    state, _ = play(state, B, cmd.EndEffect())
    # C: draw3 — 194 goes to the bottom face down, C sees 195, 196, 197 and keeps 196.
    state = replace(state, slots={})
    state, events = play(state, C, cmd.PlayCard(GREEN, "R3"), cmd.StartPart(1), cmd.TakeSpecial("draw3"))
    assert kind(state) == "special_draw3"
    seen = of_type(events, "special_draw_seen")[0]
    assert seen.card_ids == (card(195), card(196), card(197))
    assert ENGINE.redact(seen, A) is None and list(ENGINE.redact(seen, C)["card_ids"]) == list(seen.card_ids)
    rejects(state, C, cmd.KeepSpecial(card(196), (card(195), card(198))), "invalid_argument")
    state, events = play(state, C, cmd.KeepSpecial(card(196), (card(195), card(197))))
    assert of_type(events, "special_revealed")[0].card_id == card(198)
    detail = of_type(events, "special_draw3_detail")[0]
    assert ENGINE.redact(detail, B) is None
    public = of_type(events, "special_draw3")[0]
    assert (public.kept_count, public.bottomed_count) == (1, 2)
    assert state.special_deck[-3:] == (card(194), card(195), card(197))
    assert card(196) in state.players[C].hand
    view_b = ENGINE.view(state, B)
    assert card(196) not in str(view_b) and view_b["special_deck"]["top"] == card(198)
    assert ENGINE.view(state, C)["special_deck"]["known_positions"][card(195)] == len(state.special_deck) - 2
    small = _special_fixture(hands={A: [GREEN]})
    small = replace(small, special_deck=small.special_deck[:3])
    small, _ = play(small, A, cmd.PlayCard(GREEN, "R3"), cmd.StartPart(1))
    rejects(small, A, cmd.TakeSpecial("draw3"), "special_deck_too_small")
    assert cmd.TakeSpecial("deck_top") in ENGINE.legal_commands(small, A)


def test_as28_playing_special_cards() -> None:
    state = _special_fixture(hands={A: [card(185)]}, resources={A: res(credit=2)})
    state, _ = play(state, A, cmd.PlayCard(card(185), "R2"), cmd.ChooseOrder("card"))
    assert kind(state) == "pay_special"
    rejects(state, A, cmd.PaySpecial(), "insufficient_resources")
    state, events = play(state, A, cmd.DeclineSpecial())
    assert of_type(events, "special_declined")[0].destination == "box"
    assert card(185) not in state.special_deck and card(185) not in state.players[A].tableau
    mismatch = _special_fixture(hands={A: [card(194)]}, resources={A: res(credit=1)})
    mismatch, _ = play(mismatch, A, cmd.PlayCard(card(194), "G1"))
    assert mismatch.special_deck[-1] == card(194) and card(194) in mismatch.special_public
    paid = _special_fixture(hands={A: [card(194)]}, resources={A: res(credit=1)})
    paid, _ = play(paid, A, cmd.PlayCard(card(194), "Y3"), cmd.ChooseOrder("card"), cmd.PaySpecial())
    player = paid.players[A]
    assert player.res.kelp == 3 and player.res.credit == 0
    assert player.under_board == (card(194),) and specials_paid(player) == 1


def test_as29_secret_mission_scopes() -> None:
    state = _special_fixture(hands={A: [card(192)]}, resources={A: res(credit=1)}, slots={"G1": (B,), "G2": (A,)})
    state, _ = play(state, A, cmd.PlayCard(card(192), "G4"), cmd.ChooseOrder("card"), cmd.PaySpecial())
    assert kind(state) == "choose_slot"
    rejects(state, A, cmd.PerformSlot("AA"), "slot_not_eligible")
    rejects(state, A, cmd.PerformSlot("G2"), "slot_not_eligible")
    assert cmd.PerformSlot("R2") in ENGINE.legal_commands(state, A)
    state, events = play(state, A, cmd.PerformSlot("G1"))
    assert resources(state, A) == {"science": 1, "steelplast": 1, "kelp": 1}
    assert state.slots["G1"] == (B,)


def test_as30_extraordinary_mission() -> None:
    state = fixture(hands={A: [card(3)]}, resources={A: res(credit=1)})
    state, _ = play(state, A, cmd.PlayCard(card(3), "G1"), cmd.ChooseOrder("card"))
    assert kind(state) == "pay"
    state, _ = play(state, A, cmd.Pay(1))
    assert kind(state) == "choose_slot"
    hand = len(state.players[A].hand)
    state, events = play(state, A, cmd.PerformSlot("AA"))
    assert state.players[A].res.credit == 2
    assert [e.count for e in of_type(events, "cards_drawn") if e.seat == A] == [2, 1]  # AA, then end of turn
    assert len(state.players[A].hand) == hand + 2 + 1
    broke = fixture(hands={A: [card(3)]})
    broke, events = play(broke, A, cmd.PlayCard(card(3), "G1"), cmd.ChooseOrder("card"))
    assert "effect_ended" in [ENGINE.event_name(e) for e in events] and kind(broke) != "pay"


def test_as31_discounts() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=1)}, tableau={A: [card(4), card(200)]})
    state, events = play(state, A, cmd.PlayCard(GREEN, "Y5"), cmd.Build("tunnel", "T:C24-C34"))
    assert of_type(events, "built")[0].paid == res(steelplast=1)
    free = fixture(hands={A: [card(10)]}, tableau={A: [card(4), card(200)]})
    free, events = play(free, A, cmd.PlayCard(card(10), "R2"), cmd.ChooseOrder("card"),
                        cmd.Build("tunnel", "T:C24-C34"))
    assert of_type(events, "built")[0].paid == res()
    adv = {"board_side": "advanced"}
    triple = fixture(options=adv, hands={A: [card(10)]}, resources={A: res(credit=1)},
                     pieces={A: {"T:C33-C34": "tunnel"}})
    assert triple.players[A].board == 5
    triple, _ = play(triple, A, cmd.PlayCard(card(10), "R2"), cmd.ChooseOrder("card"))
    paid, events = play(triple, A, cmd.Build("tunnel", "T:C32-C33"))
    assert of_type(events, "built")[0].paid == res(credit=1)
    broke = with_player(triple, A, res=res())
    rejects(broke, A, cmd.Build("tunnel", "T:C32-C33"), "insufficient_resources")
    assert cmd.Build("tunnel", "T:C24-C34") in ENGINE.legal_commands(broke, A)


def test_as32_surcharges_board5() -> None:
    pieces = {"C24": "city_nonsym", "T:C24-C34": "tunnel", "C14": "city_nonsym", "T:C14-C24": "tunnel"}
    state = fixture(options={"board_side": "advanced"}, hands={A: [GREEN]}, tableau={A: [card(128)]},
                    resources={A: res(steelplast=1, kelp=1, science=2, credit=2)}, pieces={A: pieces})
    points = state.players[A].points
    state, _ = play(state, A, cmd.PlayCard(GREEN, "Y4"), cmd.StartPart(0), cmd.UseActionCard(card(128)))
    assert kind(state) == "resolve_effect"
    state, events = play(state, A, cmd.StartPart(0), cmd.Build("city_nonsym", "C13"))
    assert of_type(events, "built")[0].paid == res(steelplast=1, kelp=1, science=2, credit=2)
    assert state.players[A].points == points + 6 + 1
    assert "C13" not in state.players[A].network
    sym = fixture(options={"board_side": "advanced"}, hands={A: [GREEN]}, tableau={A: [card(69)]},
                  resources={A: res(steelplast=4, biomatter=1, credit=4)}, pieces={A: pieces})
    sym, _ = play(sym, A, cmd.PlayCard(GREEN, "Y1"), cmd.StartPart(1))
    sym, events = play(sym, A, cmd.Build("city_sym", "C23"))
    assert of_type(events, "built")[0].paid == res(steelplast=4, biomatter=1, credit=4)


def test_as33_federation_overflow() -> None:
    orange, purple = A, B
    state = fixture(hands={orange: [GREEN], purple: [GREEN]}, fed={orange: 2, purple: 1})
    state, events = play(state, orange, cmd.PlayCard(GREEN, "R2"))
    fed = of_type(events, "federation_advanced")[0]
    assert fed.bonuses.points + fed.overflow_points == 2 and fed.to == 1
    assert state.fed_stacks[0] == (purple, orange)
    ctx = flow.Ctx(state)
    resolve.federation(ctx, purple, 1)
    assert ctx.state.fed_stacks[0] == (orange, purple)
    assert ctx.state.players[purple].points == 1


def test_as34_federation_bonuses_and_triggers() -> None:
    state = fixture(hands={A: [GREEN, card(1), YELLOW]}, tableau={A: [card(35), card(16)]})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "R2"))
    player = state.players[A]
    assert player.fed_space == 3 and player.res.credit == 2 and player.points == 0
    state = with_turn(state, seat=A, stage="choose_play")
    hand = len(state.players[A].hand)
    state, _ = play(state, A, cmd.PlayCard(card(1), "R4"), cmd.ChooseOption(1))
    player = state.players[A]
    assert player.fed_space == 2 and player.res.steelplast == 1 and player.res.credit == 3 and player.points == 0
    assert len(player.hand) == hand - 1 + 2 + 1
    state = with_turn(state, seat=A, stage="choose_play")
    state, _ = play(state, A, cmd.PlayCard(YELLOW, "G2"))
    player = state.players[A]
    assert (player.res.steelplast, player.res.kelp, player.points) == (3, 1, 1)


def test_as35_end_of_round_order() -> None:
    purple, black, orange, blue = A, B, C, D
    state = fixture(order=(purple, black, orange, blue), fed={purple: 2, orange: 2})
    state = replace(state, fed_stacks=((), (purple, orange), (), ()), turn=None)
    ctx = flow.Ctx(state)
    flow.round_end(ctx)
    order_set = [e for e in ctx.events if ENGINE.event_name(e) == "play_order_set"][0]
    assert order_set.order == (orange, purple, black, blue)
    assert all(p.fed_space == 0 for p in ctx.state.players)
    assert ctx.state.era_pos == 2  # R3


def test_as36_round_one_reversal() -> None:
    for seed in range(100):
        state, _ = started(4, seed)
        if state.play_order == (A, B, C, D):
            break
    assert [p.fed_space for p in state.players] == [0, 4, 3, 2]
    assert flow.next_play_order(state) == (D, C, B, A)


def test_as37_cloning_tile() -> None:
    state = fixture(hands={C: [GREEN], D: [GREEN]}, active=C,
                    resources={C: res(credit=2, kelp=1), D: res(credit=2, kelp=1)}, slots={"G3": (A,)})
    rejects(state, C, cmd.PlayCardClone(GREEN, "AA"), "clone_target_invalid")
    rejects(state, C, cmd.PlayCardClone(GREEN, "G4"), "clone_target_invalid")
    rejects(with_player(state, C, res=res(kelp=1)), C, cmd.PlayCardClone(GREEN, "G3"), "insufficient_resources")
    rejects(replace(state, slots={"G3": (A, C)}), C, cmd.PlayCardClone(GREEN, "G3"), "clone_target_invalid")
    after, events = play(state, C, cmd.PlayCardClone(GREEN, "G3"), cmd.ChooseOrder("slot"),
                         cmd.Build("farm", "B:C34:1"))
    assert after.slots["G3"] == (A, C) and after.players[C].res.credit == 1 + 1  # paid 1; Supply Drop +1
    assert of_type(events, "card_played")[0].matched
    assert after.turn.seat == D
    rejects(after, D, cmd.PlayCardClone(GREEN, "G3"), "clone_unavailable")
    three = fixture(3, hands={C: [GREEN]}, active=C, resources={C: res(credit=2, kelp=1)}, slots={"G3": (A,)})
    rejects(three, C, cmd.PlayCardClone(GREEN, "G3"), "clone_unavailable")
    ctx = flow.Ctx(replace(after, turn=None))
    flow.round_end(ctx)
    assert not ctx.state.clone_used and ctx.state.slots == {}


def test_action_card_claimed_this_turn_is_usable_through_the_slots_use_action() -> None:
    """Rulebook (p.7: the card may be resolved before the slot; p.8: an action card may be used
    the turn it is claimed): with the Personal Assistant used, 2 credits and no steelplast, yellow #34 on Y4
    (A18: build 1 tunnel; use 1 of your action cards) is usable because #34, claimed first, can be used."""
    for check in ("at_choice", "card_aware"):
        state = fixture(2, hands={A: [card(34)]}, resources={A: res(credit=2)}, used={A: ["PA"]},
                        options={"rules": {"usability_check": check}})
        assert cmd.PlayCard(card(34), "Y4") in ENGINE.legal_commands(state, A)
        state, _ = play(state, A, cmd.PlayCard(card(34), "Y4"), cmd.ChooseOrder("card"))
        assert card(34) in state.players[A].tableau and kind(state) == "resolve_effect"
        assert cmd.StartPart(0) not in ENGINE.legal_commands(state, A)  # the tunnel: no steelplast
        state, _ = play(state, A, cmd.StartPart(1))
        assert cmd.UseActionCard(card(34)) in ENGINE.legal_commands(state, A)
        state, events = play(state, A, cmd.UseActionCard(card(34)))
        assert of_type(events, "action_card_used")[0].card_id == card(34)
        state, events = play(state, A, cmd.StartPart(0), cmd.Build("desal", "B:C34:1"))
        assert state.players[A].pieces["B:C34:1"].kind == "desal" and card(34) in state.players[A].used_actions
    # Not matched (a green card on Y4): nothing is claimed, so the slot stays unusable.
    green = fixture(2, hands={A: [GREEN]}, resources={A: res(credit=2)}, used={A: ["PA"]})
    rejects(green, A, cmd.PlayCard(GREEN, "Y4"), "slot_unusable")
