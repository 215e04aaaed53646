"""Rule flag ``contracts_auto_claim = false`` (spec §9.1, §6.15): the government contracts are claimed with a
``claim_contract`` command, offered at every prompt of the seat's own turn while the contract's requirements
hold (and at the end of the turn, P10, so that a claim is never missed), instead of automatically."""

from __future__ import annotations

from typing import Any

from benthic.i18n import render
from benthic.rules.underwater_cities import ENGINE

from .fixtures import A, B, card, cmd, fixture, kind, of_type, play, rejects, res

GREEN = card(2)
FARMS = {"C24": "city_nonsym", "T:C24-C34": "tunnel", "B:C34:1": "farm", "B:C34:2": "farm", "B:C34:3": "farm",
         "B:C24:1": "farm"}
MANUAL = {"government_contracts": True, "rules": {"contracts_auto_claim": False}}


def _fifth_farm(options: dict[str, Any] = MANUAL) -> tuple[Any, list[Any]]:
    """AS-49's position: A builds its fifth connected farm (GC1, Food Security Act: 5 farms)."""
    state = fixture(options=options, open_contracts=("GC1", "GC4", "GC8"), hands={A: [GREEN], B: [GREEN]},
                    resources={A: res(kelp=2), B: res(kelp=1, science=1)}, pieces={A: FARMS, B: FARMS})
    state, first = play(state, A, cmd.PlayCard(GREEN, "G3"), cmd.ChooseOrder("slot"), cmd.Build("farm", "B:C33:1"))
    assert cmd.ClaimContract("GC1") not in ENGINE.legal_commands(state, A)  # 4 connected farms
    state, events = play(state, A, cmd.Build("farm", "B:C24:2"))
    return state, first + events


def test_the_contract_waits_for_the_claim_at_the_end_of_the_turn() -> None:
    state, events = _fifth_farm()
    assert not of_type(events, "contract_claimed") and state.open_contracts == ("GC1", "GC4", "GC8")
    assert kind(state) == "end_of_turn" and of_type(events, "end_of_turn_offered")
    assert ENGINE.legal_commands(state, A) == [cmd.EndTurn(), cmd.ClaimContract("GC1")]
    points = state.players[A].points
    state, events = play(state, A, cmd.ClaimContract("GC1"))
    assert [e.contract_id for e in of_type(events, "contract_claimed")] == ["GC1"]
    assert [e.reason for e in of_type(events, "resources_gained")] == ["contract:GC1"]
    assert state.players[A].points == points + 4 and state.players[A].contracts == ("GC1",)
    assert state.open_contracts == ("GC4", "GC8")
    assert state.turn is not None and state.turn.seat == B  # nothing more to offer: the turn ends


def test_a_declined_claim_is_offered_again_and_another_seat_may_take_the_contract_first() -> None:
    state, _ = _fifth_farm()
    state, _ = play(state, A, cmd.EndTurn())
    assert state.open_contracts == ("GC1", "GC4", "GC8") and state.turn is not None and state.turn.seat == B
    rejects(state, A, cmd.ClaimContract("GC1"), "not_your_turn")  # only on one's own turn
    assert cmd.ClaimContract("GC1") not in ENGINE.legal_commands(state, B)  # B has 4 connected farms
    state, _ = play(state, B, cmd.PlayCard(GREEN, "R1"), cmd.StartPart(1), cmd.Build("farm", "B:C24:2"))
    assert kind(state) == "resolve_effect"  # A1's action card part is still open
    assert cmd.ClaimContract("GC1") in ENGINE.legal_commands(state, B)  # mid-action
    state, events = play(state, B, cmd.ClaimContract("GC1"))
    assert [(e.seat, e.contract_id) for e in of_type(events, "contract_claimed")] == [(B, "GC1")]
    assert kind(state) == "resolve_effect" and "GC1" not in state.open_contracts  # the action goes on
    state, _ = play(state, B, cmd.EndEffect())
    assert state.turn is not None and state.turn.seat != B


def test_claims_that_do_not_hold_are_refused() -> None:
    state, _ = _fifth_farm()
    rejects(state, A, cmd.ClaimContract("GC4"), "contract_condition_not_met")  # 7 tunnels
    rejects(state, A, cmd.ClaimContract("GC2"), "contract_unavailable")  # not revealed
    state, _ = play(state, A, cmd.ClaimContract("GC1"))
    auto, events = _fifth_farm({"government_contracts": True})
    assert [e.contract_id for e in of_type(events, "contract_claimed")] == ["GC1"]  # the default: automatic
    assert auto.turn is not None and auto.turn.seat == B
    rejects(auto, B, cmd.ClaimContract("GC4"), "wrong_prompt")


def test_claims_are_labelled_in_both_languages() -> None:
    state, _ = _fifth_farm()
    described = ENGINE.describe(state, cmd.ClaimContract("GC1"), A)
    assert described.label == "Fulfil the contract Food Security Act: gain 4 points"
    assert described.highlights == ["GC1"] and described.message is not None
    assert render(described.message, "pt") == "Cumprir o contrato Lei de Segurança Alimentar: ganhar 4 pontos"


def test_the_history_tells_of_the_claim_in_both_languages() -> None:
    state, _ = _fifth_farm()
    _, events = play(state, A, cmd.ClaimContract("GC1"))
    claimed = next(e for e in events if ENGINE.event_name(e) == "contract_claimed")
    sentence = ENGINE.sentence(ENGINE.redact(claimed, None))
    assert sentence is not None and sentence.english().endswith("fulfilled the contract Food Security Act")
    assert render(sentence, "pt").endswith("cumpriu o contrato Lei de Segurança Alimentar")
