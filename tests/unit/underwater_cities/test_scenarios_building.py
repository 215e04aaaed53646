"""Acceptance scenarios AS-14 .. AS-24 (spec §10): building, legality, payments, bonuses, upgrades, A1."""

from __future__ import annotations

from benthic.rules.underwater_cities import ENGINE
from benthic.rules.underwater_cities.board import city_site_legal, geometry

from .fixtures import A, B, card, cmd, fixture, kind, of_type, play, rejects, res, resources

GREEN, RED, YELLOW = card(2), card(28), card(17)  # Supply Drop, Seafood Collection, Small Grant


def test_as14_city_legality() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=2, kelp=1, credit=1)})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "Y2"), cmd.StartPart(0))
    rejects(state, A, cmd.Build("city_nonsym", "C23"), "illegal_site")
    white = state.white_left
    state, _ = play(state, A, cmd.Build("city_nonsym", "C33"))
    assert state.white_left == white - 1
    player = state.players[A]
    assert "C33" not in player.network  # unconnected (no tunnel)
    assert city_site_legal(geometry(player), player.pieces, "C23")
    assert city_site_legal(geometry(player), player.pieces, "C32")


def test_as15_building_and_expansion_legality() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(kelp=3)})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "G3"), cmd.ChooseOrder("slot"))
    rejects(state, A, cmd.Build("farm", "B:C23:1"), "illegal_site")
    rejects(state, A, cmd.Build("farm", "B:C34:X"), "expansion_site_restricted")
    state, events = play(state, A, cmd.Build("farm", "B:C24:1"))
    assert of_type(events, "build_bonus_gained")[0].bonus == "science" and state.players[A].res.science == 1
    survey = fixture(hands={A: [card(44)]}, resources={A: res(steelplast=2)})
    survey, _ = play(survey, A, cmd.PlayCard(card(44), "R2"), cmd.ChooseOrder("card"))
    assert kind(survey) == "build"
    rejects(survey, A, cmd.Build("lab", "B:C34:3"), "expansion_site_restricted")
    survey, _ = play(survey, A, cmd.Build("lab", "B:C34:X"))
    assert survey.players[A].pieces["B:C34:X"].kind == "lab"


def test_as16_tunnel_legality_and_metropolis() -> None:
    rich = res(steelplast=5, credit=5)
    state = fixture(hands={A: [GREEN]}, resources={A: rich}, metros={A: {"MB": "BR3", "M1": "BL01", "M2": "BL02"}})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "Y5"))
    rejects(state, A, cmd.Build("tunnel", "T:C23-C24"), "illegal_site")
    state, _ = play(state, A, cmd.Build("tunnel", "T:C24-C34"))
    legal = ENGINE.legal_commands(state, A)
    assert cmd.Build("tunnel", "T:C23-C24") in legal and cmd.Build("tunnel", "T:C14-C24") in legal
    rejects(state, A, cmd.Build("tunnel", "T:C14-M1"), "illegal_site")
    later = fixture(hands={A: [GREEN]}, resources={A: rich},
                    metros={A: {"MB": "BR3", "M1": "BL01", "M2": "BL02"}},
                    pieces={A: {"T:C24-C34": "tunnel", "T:C14-C24": "tunnel"}})
    later, _ = play(later, A, cmd.PlayCard(GREEN, "Y5"))
    kelp = later.players[A].res.kelp
    later, events = play(later, A, cmd.Build("tunnel", "T:C14-M1"))
    connected = of_type(events, "metropolis_connected")
    assert [(e.space, e.tile_id) for e in connected] == [("M1", "BL01")]
    assert later.players[A].res.kelp == kelp + 1


def test_as17_biomatter_payment() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=1, biomatter=2, credit=1)})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "Y2"), cmd.StartPart(0))
    rejects(state, A, cmd.Build("city_nonsym", "C33", bio_for_kelp=0, bio_for_steelplast=1), "insufficient_resources")
    rejects(state, A, cmd.Build("city_nonsym", "C33", bio_for_kelp=2), "invalid_payment")
    explicit, _ = play(state, A, cmd.Build("city_nonsym", "C33", bio_for_kelp=1, bio_for_steelplast=1))
    assert resources(explicit, A) == {}
    default, events = play(state, A, cmd.Build("city_nonsym", "C33"))
    assert resources(default, A) == {}
    assert of_type(events, "built")[0].paid == res(steelplast=1, biomatter=2, credit=1)


def test_as18_supply_limits() -> None:
    state = fixture(2, hands={A: [GREEN]}, resources={A: res(steelplast=3, kelp=2, biomatter=1, credit=3)},
                    purple_left=0)
    state, _ = play(state, A, cmd.PlayCard(GREEN, "Y1"))
    assert kind(state) == "build"
    rejects(state, A, cmd.Build("city_sym", "C33"), "supply_exhausted")
    assert cmd.Build("city_nonsym", "C33") in ENGINE.legal_commands(state, A)
    no_tunnels = fixture(2, hands={A: [GREEN]}, resources={A: res(steelplast=3, credit=3)}, tunnels_left=0)
    rejects(no_tunnels, A, cmd.PlayCard(GREEN, "Y5"), "slot_unusable")


def test_as19_build_bonus_mid_action() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=1, credit=2)})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "Y5"), cmd.Build("tunnel", "T:C33-C34"))
    assert state.players[A].res.steelplast == 1
    state, _ = play(state, A, cmd.Build("tunnel", "T:C24-C34"))
    assert resources(state, A) == {}
    assert {"T:C33-C34", "T:C24-C34"} <= set(state.players[A].pieces)
    assert state.tunnels_left == 45


def test_as20_federation_card_bonus_on_unconnected_city() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=2, kelp=1, credit=1)},
                    pieces={A: {"C33": "city_nonsym", "T:C33-C34": "tunnel"}})
    hand = len(state.players[A].hand)
    state, _ = play(state, A, cmd.PlayCard(GREEN, "Y2"), cmd.StartPart(0))
    state, events = play(state, A, cmd.Build("city_nonsym", "C23"))
    assert of_type(events, "build_bonus_gained")[0].bonus == "fed_card"
    fed = of_type(events, "federation_advanced")[0]
    assert (fed.from_, fed.to, fed.bonuses.credit) == (0, 4, 0)
    drawn = of_type(events, "cards_drawn")
    assert (drawn[0].reason, drawn[0].count) == ("fed_card", 1)
    assert len(state.players[A].hand) == hand - 1 + 1 + 1  # played, fed_card draw, end-of-turn draw
    assert "C23" not in state.players[A].network
    assert state.players[A].fed_space == 4


def test_as21_slot_a2() -> None:
    pieces = {"B:C34:1": "farm", "T:C24-C34": "tunnel", "B:C34:2": ("lab", True)}
    state = fixture(hands={A: [GREEN]}, resources={A: res(science=3)}, pieces={A: pieces})
    upgraded, _ = play(state, A, cmd.PlayCard(GREEN, "Y3"), cmd.ChooseOption(1), cmd.Upgrade("B:C34:1"),
                       cmd.Upgrade("T:C24-C34"))
    assert kind(upgraded) == "upgrade"
    rejects(upgraded, A, cmd.Upgrade("B:C34:2"), "already_upgraded")
    upgraded, _ = play(upgraded, A, cmd.Done())
    assert upgraded.players[A].res.science == 1
    assert upgraded.players[A].pieces["B:C34:1"].upgraded and upgraded.players[A].pieces["T:C24-C34"].upgraded
    gained, _ = play(state, A, cmd.PlayCard(GREEN, "Y3"), cmd.ChooseOption(0))
    assert gained.players[A].res.science == 5


def test_as22_biomech_crew_and_action_card_on_a1() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=1, science=1)},
                    tableau={A: [card(37), card(34)]}, pieces={A: {"B:C34:1": "lab"}})
    state, e1 = play(state, A, cmd.PlayCard(GREEN, "R1"), cmd.StartPart(1), cmd.Build("lab", "B:C34:2"))
    state, e2 = play(state, A, cmd.StartPart(0), cmd.UseActionCard(card(34)))
    assert kind(state) == "resolve_effect"
    state, e3 = play(state, A, cmd.StartPart(0), cmd.Build("desal", "B:C34:3"))
    events = e1 + e2 + e3
    wanted = [e for e in events if ENGINE.event_name(e) in
              ("built", "resources_gained", "upgraded", "action_card_used", "cards_drawn")
              and getattr(e, "seat", A) == A and getattr(e, "reason", "") != "end_of_turn"]
    summary = [(ENGINE.event_name(e), getattr(e, "site", getattr(e, "card_id", ""))) for e in wanted]
    assert summary[:6] == [("built", "B:C34:2"), ("resources_gained", ""), ("upgraded", "B:C34:2"),
                           ("action_card_used", card(34)), ("cards_drawn", ""), ("built", "B:C34:3")]
    assert wanted[1].gained.credit == 1 and wanted[1].reason == f"trigger:{card(37)}"
    assert resources(state, A) == {}
    assert card(34) in state.players[A].used_actions


def test_as23_kate() -> None:
    state = fixture(hands={A: [RED]}, resources={A: res(steelplast=1, credit=1, science=1)},
                    tableau={A: [card(19)]}, fed={A: 4})
    state, _ = play(state, A, cmd.PlayCard(RED, "R1"))
    assert kind(state) == "choose_order"
    state, _ = play(state, A, cmd.ChooseOrder("slot"), cmd.StartPart(1), cmd.Build("tunnel", "T:C24-C34"))
    assert state.players[A].pieces["T:C24-C34"].upgraded
    state, events = play(state, A, cmd.StartPart(0), cmd.UseActionCard(card(19)))
    fed = of_type(events, "federation_advanced")[0]
    assert (fed.from_, fed.to) == (4, 3) and state.players[A].res.credit == 1
    assert kind(state) == "resolve_effect"
    state, events = play(state, A, cmd.StartPart(0), cmd.Build("desal", "B:C34:1"))
    player = state.players[A]
    assert (player.res.steelplast, player.res.credit, player.res.science, player.res.kelp) == (0, 0, 0, 1)
    assert player.fed_space == 3 and player.pieces["B:C34:1"].kind == "desal"
    assert card(19) in player.used_actions and RED in state.era_discard
    assert state.turn.seat == B


def test_as24_build_and_upgrade_validation() -> None:
    state = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=1)})
    state, _ = play(state, A, cmd.PlayCard(GREEN, "R1"), cmd.StartPart(1))
    rejects(state, A, cmd.Build("lab", "B:C34:1"), "cannot_complete_build_and_upgrade")
    assert [c for c in ENGINE.legal_commands(state, A) if isinstance(c, cmd.Build)] == [cmd.Build("lab", "B:C24:1")]
    state, _ = play(state, A, cmd.Build("lab", "B:C24:1"))
    assert state.players[A].pieces["B:C24:1"].upgraded and resources(state, A) == {}
    blocked = fixture(hands={A: [GREEN]}, resources={A: res(steelplast=1)}, pieces={A: {"B:C24:1": "farm"}})
    blocked, _ = play(blocked, A, cmd.PlayCard(GREEN, "R1"))
    rejects(blocked, A, cmd.StartPart(1), "part_unusable")
