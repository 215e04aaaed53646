"""Acceptance scenarios AS-38 .. AS-56 (spec §10): Production, feeding, eras, final scoring, solo,
contracts, hidden information, triggers; with the rulebook's worked examples (§8.2) they reproduce."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from benthic.rules import RuleViolation
from benthic.rules.underwater_cities import ENGINE, flow
from benthic.rules.underwater_cities.content import Yield
from benthic.rules.underwater_cities.production import feeding, production_of
from benthic.rules.underwater_cities.scoring import final_breakdowns, resource_points

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
    with_player,
)

GREEN, RED, YELLOW = card(2), card(28), card(17)


def _round_end(state) -> flow.Ctx:
    ctx = flow.Ctx(replace(state, turn=None))
    flow.round_end(ctx)
    return ctx


PRODUCTION_EXAMPLE = {  # §8.2.3, board #1
    "C24": "city_sym", "C23": "city_nonsym",
    "T:C24-C34": "tunnel", "T:C14-C24": "tunnel", "T:C33-C34": ("tunnel", True), "T:C14-M1": "tunnel",
    "B:C34:1": ("farm", True), "B:C34:2": ("lab", True), "B:C34:3": ("lab", True),
    "B:C24:1": "farm", "B:C24:2": "desal", "B:C24:3": "desal", "B:C23:1": "lab",
}


def test_as38_production_rulebook_example_8_2_3() -> None:
    state = fixture(2, round_no=4, pieces={A: PRODUCTION_EXAMPLE}, tableau={A: [card(21)]},
                    metros={A: {"MB": "BR3", "M1": "BL01", "M2": "BL02"}})
    ctx = _round_end(state)
    produced = [e for e in ctx.events if ENGINE.event_name(e) == "production_resolved" and e.seat == A][0]
    b = produced.breakdown
    assert b["farm"] == Yield(kelp=2, points=1)
    assert b["desal"] == Yield(credit=2)
    assert b["lab"] == Yield(science=2, steelplast=3)
    assert b["tunnel"] == Yield(credit=3, points=1)
    assert b["symbiotic_cities"] == Yield(points=2)
    assert b[f"card:{card(21)}"] == Yield(credit=1)
    assert b["metropolis:BL01"] == Yield(points=2)
    assert produced.totals == Yield(kelp=2, credit=6, steelplast=3, science=2, points=6)
    fed = [e for e in ctx.events if ENGINE.event_name(e) == "cities_fed" and e.seat == A][0]
    assert (fed.cities, fed.kelp_paid, fed.biomatter_paid, fed.points_lost) == (2, 2, 0, 0)
    player = ctx.state.players[A]
    assert resources(ctx.state, A) == {"credit": 6, "steelplast": 3, "science": 2}
    assert player.points == 6


MULTIPLIER = {"B:C34:3": ("desal", True), "B:C34:4": ("desal", True)}  # §8.2.4, board #5


def test_as39_multiplier_rulebook_example_8_2_4() -> None:
    state = fixture(2, options={"board_side": "advanced"}, round_no=4, pieces={A: MULTIPLIER},
                    resources={A: res(kelp=1)})
    ctx = _round_end(state)
    produced = [e for e in ctx.events if ENGINE.event_name(e) == "production_resolved" and e.seat == A][0]
    assert produced.totals == Yield(credit=4, biomatter=3)
    assert produced.totals != Yield(credit=3, biomatter=2)
    assert resources(ctx.state, A) == {"credit": 4, "biomatter": 3}  # 1 kelp eaten
    trial = fixture(2, options={"board_side": "advanced"}, pieces={A: {**MULTIPLIER, "B:C34:1": "farm"}},
                    hands={A: [card(92)]})
    trial, _ = play(trial, A, cmd.PlayCard(card(92), "R2"), cmd.ChooseOrder("card"))
    assert kind(trial) == "choose_structure"
    rejects(trial, A, cmd.ChooseStructure("B:C34:1"), "not_eligible_structure")
    trial, events = play(trial, A, cmd.ChooseStructure("B:C34:4"))
    gained = [e.gained for e in of_type(events, "resources_gained") if e.reason == "structure_production"]
    assert gained == [Yield(credit=1, biomatter=1)]


def test_as40_advanced_production_sites_board5() -> None:
    pieces = {"C33": "city_nonsym", "C23": "city_sym", "T:C33-C34": "tunnel", "T:C32-C33": ("tunnel", True),
              "T:C24-C34": "tunnel", "T:C23-C24": "tunnel", "T:C22-C23": "tunnel", "T:C14-C24": "tunnel",
              "T:C14-M1": "tunnel"}
    state = fixture(2, options={"board_side": "advanced"}, round_no=4, pieces={A: pieces},
                    resources={A: res(kelp=3)}, metros={A: {"MB": "BR1", "M1": "BL02", "M2": "BL03"}})
    breakdown, totals = production_of(state, A, ())
    assert breakdown["symbiotic_cities"] == Yield(points=6)
    assert breakdown["tunnel"] == Yield(credit=1 + 3 + 1 + 1 + 1, points=3)  # §8.2.5: the triple tunnel
    assert breakdown["tunnel_pair:pair1"] == Yield(credit=2)
    assert breakdown["metro_plus2:M1"] == Yield(points=2)
    assert totals == Yield(credit=9, points=11)
    assert feeding(state, A) == (3, 3, 0, 0)


def test_as41_feeding() -> None:
    pieces = {"C24": "city_nonsym", "C33": "city_nonsym", "C23": "city_nonsym", "C13": "city_nonsym",
              "T:C24-C34": "tunnel", "T:C33-C34": "tunnel", "T:C23-C24": "tunnel"}
    state = fixture(2, round_no=4, pieces={A: pieces}, resources={A: res(kelp=1, biomatter=2)}, points={A: 5})
    assert feeding(state, A) == (4, 1, 2, 3)  # C13 is unconnected: it does not eat
    ctx = _round_end(state)
    player = ctx.state.players[A]
    assert (player.res.kelp, player.res.biomatter, player.points) == (0, 0, 2)
    poor = with_player(state, A, res=res(), points=1)
    assert feeding(poor, A)[3] == 1  # 4 unfed cities would cost 12, the score stops at 0
    assert _round_end(poor).state.players[A].points == 0


def test_as42_production_option() -> None:
    state = fixture(2, round_no=4, tableau={A: [card(46)]}, pieces={A: {"B:C34:1": ("lab", True)}},
                    resources={A: res(kelp=1)})
    ctx = _round_end(state)
    state = ctx.state
    prompt = ENGINE.prompt(state)
    assert prompt.kind == "production_options" and prompt.seats == (A,)
    rejects(state, A, cmd.SetProductionOptions(("c099",)), "no_such_card")
    state, events = play(state, A, cmd.SetProductionOptions((card(46),)))
    produced = [e for e in events if ENGINE.event_name(e) == "production_resolved" and e.seat == A][0]
    assert produced.totals == Yield(science=0, steelplast=2, kelp=1)
    assert of_type(events, "production_options_set")[0].use_card_ids == (card(46),)
    plain = fixture(2, round_no=4, tableau={A: [card(46)]}, pieces={A: {"B:C34:1": ("lab", True)}})
    plain_state = _round_end(plain).state
    _, events = play(plain_state, A, cmd.SetProductionOptions(()))
    produced = [e for e in events if ENGINE.event_name(e) == "production_resolved" and e.seat == A][0]
    assert produced.totals == Yield(science=1, steelplast=1)


def test_as43_era_transition() -> None:
    hands = {A: [YELLOW, card(18), card(194)], B: [card(1)], C: [card(3)], D: [card(5)]}
    state = fixture(round_no=4, hands=hands, used={A: ["PA"]}, fed={C: 4})
    ctx = _round_end(state)
    names = event_types(ctx.events)
    order = ["tiles_returned", "play_order_set", "federation_reset", "era_marker_advanced", "production_started",
             "production_resolved", "action_cards_restored", "cities_fed", "era_deck_removed", "era_started",
             "deck_shuffled", "cards_drawn_detail", "keep_started"]
    positions = [names.index(n) for n in order]
    assert positions == sorted(positions)
    state = ctx.state
    assert state.era == 2 and state.players[A].used_actions == ()
    assert len(state.players[A].hand) == 6 and kind(state) == "keep_cards"
    new_cards = [c for c in state.players[A].hand if c not in hands[A]]
    assert all(67 <= int(c[1:]) <= 123 for c in new_cards)
    keep = (YELLOW, new_cards[0], new_cards[1])
    state, events = play(state, A, cmd.KeepCards(keep))
    for seat in (B, C, D):
        state, more = play(state, seat, cmd.KeepCards(state.players[seat].hand[:3]))
        events += more
    dest = {c: e.destination for e in of_type(events, "cards_discarded") if e.seat == A for c in e.card_ids}
    assert dest == {card(18): "removed", card(194): "special_bottom", new_cards[2]: "era_discard"}
    assert state.special_deck[-1] == card(194) and new_cards[2] in state.era_discard
    assert card(18) not in state.era_discard
    assert state.round == 5 and state.play_order[0] == C and kind(state) in ("choose_play", "discard_to_limit")
    assert all(67 <= int(c[1:]) <= 123 for c in state.era_deck)


FINAL_EXAMPLE = {  # §8.2.1, board #1
    "C33": "city_nonsym", "C24": "city_nonsym", "C23": "city_nonsym", "C32": "city_nonsym", "C22": "city_nonsym",
    "T:C33-C34": ("tunnel", True), "T:C24-C34": ("tunnel", True), "T:C23-C24": ("tunnel", True),
    "T:C32-C33": "tunnel", "T:C31-C32": "tunnel", "T:C13-C23": "tunnel", "T:C21-C31": "tunnel",
    "T:C12-C13": "tunnel", "T:C12-MB": "tunnel", "T:C21-MB": "tunnel",
    "B:C34:1": ("farm", True), "B:C34:2": ("desal", True), "B:C34:3": ("lab", True),
    "B:C33:1": ("farm", True), "B:C33:2": ("desal", True), "B:C33:3": ("lab", True),
    "B:C24:1": ("desal", True), "B:C24:2": ("lab", True), "B:C23:1": "lab", "B:C22:1": "farm",
}


def _final_fixture() -> Any:
    state = fixture(2, round_no=10, era=3, pieces={A: FINAL_EXAMPLE}, tableau={A: [card(79), card(23)]},
                    metros={A: {"MB": "BR3", "M1": "BL02", "M2": "BL03"}}, points={A: 60},
                    resources={A: res(credit=16, steelplast=4, science=7, kelp=2, biomatter=3)})
    ctx = flow.Ctx(replace(state, turn=None, era_pos=12))
    flow.final_purchases(ctx)
    return ctx.state


def test_as44_final_scoring_rulebook_example_8_2_1() -> None:
    state = _final_fixture()
    assert kind(state) == "final_purchases" and ENGINE.prompt(state).seats == (A,)
    rejects(state, A, cmd.BuyPoints(card(79), 4), "buy_limit_exceeded")
    state, events = play(state, A, cmd.BuyPoints(card(79), 3), cmd.BuyPoints(card(23), 2))
    assert ENGINE.redact(events[0], B) is None and resources(state, A)["science"] == 7  # hidden until all done
    rejects(state, A, cmd.BuyPoints(card(23), 1), "insufficient_resources")
    state, events = play(state, A, cmd.DoneBuying())
    assert ENGINE.prompt(state) is None
    scored = [e for e in of_type(events, "final_scored") if e.seat == A][0].breakdown
    assert (scored["brown"], scored["end_cards"], scored["network"], scored["resources"]) == (8, 11, 21, 6)
    assert scored["total"] == 106 and scored["total"] - scored["track"] == 46
    assert resources(state, A) == {"credit": 16, "steelplast": 2, "science": 1, "biomatter": 3}
    results = ENGINE.final_scores(state).results
    assert results[0].seat == A and results[0].score == 106


def test_as45_resource_conversion_8_2_2() -> None:
    state = fixture(2)

    def points(**r: int) -> int:
        return resource_points(with_player(state, A, res=res(**r)).players[A])

    assert points(kelp=3, steelplast=1) == 1
    assert points(science=1, steelplast=2, credit=1) == 1
    assert points(biomatter=1, credit=1) == 0
    assert points(credit=16, steelplast=2, science=1, biomatter=3) == 6


def test_as46_tie_break() -> None:
    state = fixture(3, order=(C, B, A), points={A: 85, B: 85, C: 78})
    breakdowns, ranking, _ = final_breakdowns(state)
    assert [breakdowns[s]["total"] for s in (A, B, C)] == [87, 87, 80]
    assert ranking == (B, A, C)
    assert [breakdowns[s]["rank"] for s in (B, A, C)] == [1, 2, 3]


def _solo(**kw: Any) -> Any:
    return fixture(1, options={}, **kw)


def test_as47_solo_blockers() -> None:
    state = _solo(round_no=1)
    ctx = flow.Ctx(state)
    flow.solo_blockers(ctx, 1)
    assert of_type(ctx.events, "solo_blockers_placed")[0].slots == ("G1", "R1", "Y1")

    def round_start(round_no: int, era: int, top: int, advanced: bool = False) -> tuple[str, ...]:
        s = _solo(round_no=round_no, era=era)
        s = replace(s, slots={}, solo_advanced_last_round=advanced,
                    era_deck=(card(top), *[c for c in s.era_deck if c != card(top)]))
        c = flow.Ctx(s)
        flow.solo_blockers(c, round_no)
        flips = of_type(c.events, "solo_card_flipped")
        if flips:
            assert flips[0].card_id == card(top) and c.state.era_discard[-1] == card(top)
        elif not advanced:
            raise AssertionError("no flip")
        return of_type(c.events, "solo_blockers_placed")[0].slots

    assert round_start(2, 1, 59) == ("G2", "R2", "Y2", "Y4")
    assert round_start(2, 1, 7) == ("G2", "R2", "Y2", "R3")
    assert round_start(6, 2, 105) == ("G1", "R1", "Y1", "R2")
    assert round_start(7, 2, 99) == ("G2", "R2", "Y2", "G3")
    assert round_start(2, 1, 59, advanced=True) == ("G2", "R2", "Y2")


def test_as48_solo_result() -> None:
    pieces = {"C24": "city_nonsym", "C33": "city_nonsym", "C23": "city_nonsym", "C14": "city_nonsym",
              "C32": "city_nonsym", "C22": "city_nonsym", "T:C24-C34": "tunnel", "T:C33-C34": "tunnel",
              "T:C23-C24": "tunnel", "T:C14-C24": "tunnel", "T:C32-C33": "tunnel", "T:C22-C23": "tunnel"}
    base = _solo(pieces={0: pieces})
    breakdowns, _, _ = final_breakdowns(base)
    assert breakdowns[0]["connected_cities"] == 7

    def result(points: int, drop_city: bool = False) -> str:
        s = base
        if drop_city:
            ps = dict(s.players[0].pieces)
            del ps["T:C22-C23"]
            s = with_player(s, 0, pieces=ps)
        offset = final_breakdowns(s)[0][0]["total"]
        b, _, solo = final_breakdowns(with_player(s, 0, points=points - offset))
        assert b[0]["total"] == points and b[0]["connected_cities"] == (6 if drop_city else 7)
        return solo

    assert result(100) == "win"
    assert result(99) == "loss"
    assert result(130, drop_city=True) == "loss"


def test_as49_government_contracts() -> None:
    farms = {"C24": "city_nonsym", "T:C24-C34": "tunnel", "B:C34:1": "farm", "B:C34:2": "farm",
             "B:C34:3": "farm", "B:C24:1": "farm"}
    state = fixture(options={"government_contracts": True}, open_contracts=("GC1", "GC4", "GC8"),
                    hands={A: [GREEN], B: [GREEN]}, resources={A: res(kelp=2), B: res(kelp=1)},
                    pieces={A: farms, B: farms})
    state, events = play(state, A, cmd.PlayCard(GREEN, "G3"), cmd.ChooseOrder("slot"), cmd.Build("farm", "B:C33:1"))
    assert not of_type(events, "contract_claimed")  # next to an empty city site: not connected
    points = state.players[A].points
    state, events = play(state, A, cmd.Build("farm", "B:C24:2"))
    assert [e.contract_id for e in of_type(events, "contract_claimed")] == ["GC1"]
    assert state.players[A].points == points + 4 and state.open_contracts == ("GC4", "GC8")
    assert state.players[A].contracts == ("GC1",)
    assert state.turn.seat == B
    _, events = play(fixture(options={"government_contracts": True}, open_contracts=("GC4", "GC8"),
                                  hands={B: [GREEN]}, active=B, resources={B: res(kelp=1)}, pieces={B: farms}),
                          B, cmd.PlayCard(GREEN, "G3"), cmd.ChooseOrder("slot"), cmd.Build("farm", "B:C24:2"))
    assert not of_type(events, "contract_claimed")


def _as27_state() -> Any:
    row = [card(n) for n in range(181, 187)]
    deck = [card(n) for n in range(193, 206)] + [card(191), card(192)]
    state = fixture(special_row=row, special_deck=deck, hands={A: [GREEN, YELLOW], B: [GREEN], C: [GREEN]},
                    resources={B: res(credit=1)})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "R3"), cmd.StartPart(1), cmd.TakeSpecial("row", 2),
                    cmd.EndEffect())
    state, _ = play(state, B, cmd.PlayCardClone(GREEN, "R3"), cmd.StartPart(1), cmd.TakeSpecial("deck_top"),
                    cmd.EndEffect())
    state = replace(state, slots={})
    state, _ = play(state, C, cmd.PlayCard(GREEN, "R3"), cmd.StartPart(1), cmd.TakeSpecial("draw3"))
    state, events = play(state, C, cmd.KeepSpecial(card(196), (card(195), card(197))))
    return state, events


def test_as50_hidden_information() -> None:
    from tests.engine_harness import strings_in

    state, events = _as27_state()
    view_b = ENGINE.view(state, B)
    a_view = view_b["players"][A]
    assert a_view["hand_count"] == len(state.players[A].hand) and a_view["known_hand"] == [card(182)]
    assert "hand" not in a_view
    hidden_a = set(state.players[A].hand) - {card(182)}
    assert hidden_a and not hidden_a & strings_in(view_b)
    for viewer in (A, B, C, D, None):
        seen = strings_in(ENGINE.view(state, viewer))
        assert not set(state.era_deck) & seen
        assert "era_deck" not in ENGINE.view(state, viewer)
    deck_view = view_b["special_deck"]
    assert deck_view["count"] == len(state.special_deck) and deck_view["top"] == card(198)
    assert card(196) not in strings_in(view_b) and card(196) in strings_in(ENGINE.view(state, C))
    detail = of_type(events, "special_draw3_detail")[0]
    assert ENGINE.redact(detail, B) is None and ENGINE.redact(detail, None) is None
    from benthic.rules.underwater_cities.events import DeckShuffled

    assert ENGINE.redact(DeckShuffled("era1", state.era_deck), A) is None
    opening, _ = started(4, seed=2)
    keep_state, _ = play(opening, A, cmd.KeepCards(opening.players[A].hand[:3]))
    keep_view = ENGINE.view(keep_state, B)
    assert keep_view["keep"]["answered"] == [A] and "my_choice" not in keep_view["keep"]
    assert not set(keep_state.players[A].hand) & strings_in(keep_view)


def test_as51_second_lab_trigger() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=2)}, tableau={A: [card(37)]},
                    pieces={A: {"B:C34:1": "lab"}})
    state, events = play(state, A, cmd.PlayCard(GREEN, "G5"), cmd.ChooseOrder("slot"), cmd.Build("lab", "B:C34:2"))
    assert state.players[A].res.credit == 1 and of_type(events, "card_triggered")[0].card_id == card(37)
    state, events = play(state, A, cmd.Build("lab", "B:C34:3"))
    assert not of_type(events, "card_triggered")
    apart = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=2, credit=1)}, tableau={A: [card(37)]},
                    pieces={A: {"C33": "city_nonsym", "B:C33:1": "lab"}})
    apart, events = play(apart, A, cmd.PlayCard(GREEN, "G5"), cmd.ChooseOrder("slot"), cmd.Build("lab", "B:C33:2"))
    assert not of_type(events, "card_triggered")
    connect = fixture(hands={A: [YELLOW]}, resources={A: res(steelplast=1, credit=1)}, tableau={A: [card(37)]},
                      pieces={A: {"C33": "city_nonsym", "B:C33:1": "lab", "B:C33:2": "lab"}})
    connect, events = play(connect, A, cmd.PlayCard(YELLOW, "Y5"), cmd.ChooseOrder("slot"),
                           cmd.Build("tunnel", "T:C33-C34"))
    assert "C33" in connect.players[A].network and not of_type(events, "card_triggered")


def test_as52_second_tunnel_in_a_turn() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=3, credit=3, science=1)},
                    tableau={A: [card(25), card(134)]})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "R1"), cmd.StartPart(0), cmd.UseActionCard(card(134)),
                    cmd.StartPart(0), cmd.Build("tunnel", "T:C24-C34"))
    before = state.players[A]
    state, events = play(state, A, cmd.Build("tunnel", "T:C14-C24"))
    assert [e.card_id for e in of_type(events, "card_triggered")] == [card(25)]
    player = state.players[A]
    assert player.points == before.points + 1
    state, events = play(state, A, cmd.StartPart(1), cmd.Build("tunnel", "T:C33-C34"))
    assert not of_type(events, "card_triggered") and state.players[A].pieces["T:C33-C34"].upgraded


def test_as53_game_end() -> None:
    state = fixture(2, round_no=10, era=3, used={A: ["PA"]}, tableau={A: [card(23)]},
                    resources={A: res(kelp=2, steelplast=2)}, hands={A: [GREEN], B: [GREEN]})
    ctx = _round_end(state)
    names = event_types(ctx.events)
    assert "play_order_set" in names and ctx.state.era_pos == 12
    assert "production_resolved" in names and "cities_fed" in names
    assert "action_cards_restored" not in names and "cards_drawn" not in names and "keep_started" not in names
    state = ctx.state
    assert kind(state) == "final_purchases"
    state, events = play(state, A, cmd.DoneBuying())
    assert event_types(events)[-3:] == ["final_scored", "final_scored", "game_ended"]
    assert ENGINE.prompt(state) is None and ENGINE.legal_commands(state, A) == []
    rejects(state, A, cmd.DoneBuying(), "game_over")
    rejects(state, B, cmd.PlayCard(GREEN, "AA"), "game_over")
    assert of_type(events, "game_ended")[0].tie_break_order == state.play_order


def test_as54_metropolis_connection_triggers() -> None:
    pieces = {"T:C24-C34": "tunnel", "T:C14-C24": "tunnel", "T:C12-MB": "tunnel", "T:C21-MB": "tunnel"}
    state = fixture(options={"government_contracts": True}, open_contracts=("GC1", "GC4", "GC6"),
                    hands={A: [GREEN]}, resources={A: res(steelplast=1, credit=1)}, tableau={A: [card(181)]},
                    pieces={A: pieces}, metros={A: {"MB": "BR1", "M1": "BL01", "M2": "BL02"}})
    state, events = play(state, A, cmd.PlayCard(GREEN, "Y5"), cmd.Build("tunnel", "T:C14-M1"))
    player = state.players[A]
    assert (player.res.kelp, player.res.credit, player.points) == (1, 2 + 2, 2 + 3)
    names = event_types(events)
    assert names.index("metropolis_connected") < names.index("card_triggered") < names.index("contract_claimed")
    assert of_type(events, "contract_claimed")[0].contract_id == "GC6"


def test_as55_city_conversion() -> None:
    state = fixture(2, hands={A: [card(89)]}, resources={A: res(credit=1)},
                    pieces={A: {"C33": "city_nonsym", "T:C33-C34": "tunnel"}})
    purple, white = state.purple_left, state.white_left
    state, _ = play(state, A, cmd.PlayCard(card(89), "G1"), cmd.ChooseOrder("card"), cmd.StartPart(0))
    assert kind(state) == "choose_city"
    rejects(replace(state, purple_left=0), A, cmd.ConvertCity("C34"), "supply_exhausted")
    state, _ = play(state, A, cmd.ConvertCity("C33"))
    player = state.players[A]
    assert state.purple_left == purple - 1 and state.white_left == white + 1
    assert player.res.credit == 0 and player.points == 1 and player.pieces["C33"].kind == "city_sym"
    breakdown, _ = production_of(state, A, ())
    assert breakdown["symbiotic_cities"] == Yield(points=2)


def test_as56_second_upgraded_farm() -> None:
    pieces = {"B:C34:1": ("farm", True), "B:C34:2": "farm", "B:C34:3": "farm"}
    state = fixture(hands={A: [GREEN]}, resources={A: res(science=2)}, tableau={A: [card(80)]}, pieces={A: pieces})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "Y3"), cmd.ChooseOption(1))
    state, events = play(state, A, cmd.Upgrade("B:C34:2"))
    assert state.players[A].points == 2 and of_type(events, "card_triggered")[0].card_id == card(80)
    state, events = play(state, A, cmd.Upgrade("B:C34:3"))
    assert state.players[A].points == 2 and not of_type(events, "card_triggered")


def test_rule_violation_messages_name_their_rule() -> None:
    state = fixture(hands={A: [GREEN]})
    try:
        ENGINE.decide(state, A, cmd.PlayCard(GREEN, "Z9"))
    except RuleViolation as exc:
        assert exc.message.startswith("§")
