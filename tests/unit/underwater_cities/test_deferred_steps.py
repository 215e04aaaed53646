"""Steps a slot or card defers until the trigger frames it pushed are resolved re-check their own precondition
then (issue 36): A1's upgrade of the piece it built (spec §6.5) runs after the frames its build's triggers
pushed, and skips when one of them already upgraded that piece or spent what the upgrade costs."""

from __future__ import annotations

import pytest

from benthic.rules.underwater_cities import ENGINE
from benthic.rules.underwater_cities import events as ev

from .fixtures import A, B, card, cmd, fixture, kind, of_type, play, res, resources, with_player
from .preconditions import check_event_applies

GREEN = card(2)  # Supply Drop: matches no red slot, so only the slot's action happens
METROS = {"MB": "BR3", "M1": "BL06", "M2": "BL02"}  # BL06: upgrade(structure×2, cost=free) on connection
TUNNELS = {"T:C24-C34": "tunnel", "T:C14-C24": "tunnel"}  # T:C14-M1 then connects M1


def _a1_connecting_bl06(science: int = 1) -> tuple[object, list[object]]:
    """Three players (the audit's position): A1 builds the tunnel that connects BL06; BL06's frame is on top."""
    state = fixture(3, hands={A: [GREEN]}, resources={A: res(steelplast=1, credit=1, science=science)},
                    metros={A: METROS}, pieces={A: TUNNELS})
    state, events = play(state, A, cmd.PlayCard(GREEN, "R1"), cmd.StartPart(1), cmd.Build("tunnel", "T:C14-M1"))
    assert [(e.space, e.tile_id) for e in of_type(events, "metropolis_connected")] == [("M1", "BL06")]
    assert kind(state) == "upgrade" and state.frames[-1].source == "metropolis"
    return state, events


def test_a1_skips_its_upgrade_when_bl06_upgraded_the_tunnel_it_built() -> None:
    state, _ = _a1_connecting_bl06()
    assert cmd.Upgrade("T:C14-M1") in ENGINE.legal_commands(state, A)  # BL06 may take the new tunnel
    state, events = play(state, A, cmd.Upgrade("T:C14-M1"), cmd.Done())
    assert [e.site for e in of_type(events, "upgraded")] == ["T:C14-M1"]  # upgraded once (§6.5), by BL06
    assert [(e.site, e.reason) for e in of_type(events, "upgrade_skipped")] == [("T:C14-M1", "already_upgraded")]
    assert resources(state, A) == {"science": 1}  # the slot's upgrade is not paid
    assert state.players[A].pieces["T:C14-M1"].upgraded
    assert kind(state) == "resolve_effect"  # back to A1's other part, its action card
    state, _ = play(state, A, cmd.EndEffect())
    assert state.turn is not None and state.turn.seat == B


def test_a1_upgrades_its_tunnel_when_bl06_upgraded_other_structures() -> None:
    state, _ = _a1_connecting_bl06()
    state, events = play(state, A, cmd.Upgrade("T:C24-C34"), cmd.Upgrade("T:C14-C24"))
    assert [e.site for e in of_type(events, "upgraded")] == ["T:C24-C34", "T:C14-C24", "T:C14-M1"]
    assert of_type(events, "upgrade_skipped") == []
    assert resources(state, A) == {}  # A1's upgrade paid its usual science
    assert all(state.players[A].pieces[s].upgraded for s in ("T:C24-C34", "T:C14-C24", "T:C14-M1"))


def test_a1_skips_its_upgrade_when_a_trigger_frame_spent_the_science() -> None:
    """No frame of the built-in pack spends science there; the position is made by hand: BL06's frame open,
    the science gone."""
    state, _ = _a1_connecting_bl06()
    state = with_player(state, A, res=res())
    state, events = play(state, A, cmd.Done())
    assert of_type(events, "upgraded") == []
    assert [(e.site, e.reason) for e in of_type(events, "upgrade_skipped")] == [("T:C14-M1", "cannot_pay")]
    assert not state.players[A].pieces["T:C14-M1"].upgraded  # the piece stays built (§6.5 RULING)


def test_the_precondition_check_sees_a_second_upgrade() -> None:
    """What the property tests check of every event would have caught the double upgrade."""
    state, _ = _a1_connecting_bl06()
    check_event_applies(state, ev.Upgraded(A, "T:C14-M1", res()))
    state, _ = play(state, A, cmd.Upgrade("T:C14-M1"))
    with pytest.raises(AssertionError, match="a second time"):
        check_event_applies(state, ev.Upgraded(A, "T:C14-M1", res(science=1)))
