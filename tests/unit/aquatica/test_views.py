"""Hidden information (spec §7; scenario 51): what each projection shows, structurally."""

from __future__ import annotations

from typing import Any

from msgspec.structs import replace

from benthic.rules import GameConfig
from tests.engine_harness import strings_in
from tests.unit.aquatica.helpers import (
    ENGINE,
    Table,
    new_game,
    one,
    with_cards,
    with_locations,
    with_mantas,
)

PRIVATE_KEYS = {"hand", "discard", "scoring_pile", "scoring_pile_pp"}
# §5.8: the public twins of owner-only events
TWIN_KEYS = {
    "king_draft_offered": {"type", "seat", "count"},
    "king_chosen": {"type", "seat", "auto"},
    "location_scored": {"type", "seat", "slot", "auto"},
    "cards_taken_back": {"type", "seat", "count", "new_discard_top", "auto"},
    "discard_returned_to_hand": {"type", "seat", "count", "cause"},
}


def _mid_game() -> Any:
    state = with_locations(new_game(3), boards={0: {0: "SB13@1", 2: "OV07@0"}}, scored={0: ("SS02", "DC02")})
    state = with_cards(state, 0, hand=["MATRONA", "K1", "OC-MEG-P"], discard=["PATRICIAN", "LEGIONARY", "HERALD"])
    return with_mantas(state, 0, tired=("T0-C2",), wild=("W_RAISE1",))


def check_structure(state: Any, viewer: int | None) -> dict[str, Any]:
    """The structural visibility rules of §7, for one viewer (token checks cannot see these)."""
    view = ENGINE.view(state, viewer)
    ended = state.phase == "ended"
    for p, pv in zip(state.players, view["players"], strict=True):
        own = viewer == p.seat or ended
        assert (pv["hand_count"], pv["discard_count"], pv["scoring_pile_count"]) == (
            len(p.hand), len(p.discard), len(p.scored))
        assert pv["discard_top"] == (p.discard[-1] if p.discard else None)
        assert [b and (b["location_id"], b["covered"]) for b in pv["board"]] == [
            bl and (bl.location_id, bl.covered) for bl in p.board]
        assert [(m["manta_id"], m["ready"]) for m in pv["mantas"]] == [(m.id, m.ready) for m in p.mantas]
        if own:
            assert (pv["hand"], pv["discard"], pv["scoring_pile"]) == (list(p.hand), list(p.discard), list(p.scored))
            assert pv["king_id"] == p.king_id
        else:
            assert not PRIVATE_KEYS & set(pv)
            assert pv["king_id"] == (p.king_id if p.king_revealed else None)
            assert pv["king_number"] == (p.king_number if p.king_revealed else None)
    assert view["locations"]["deck_count"] == len(state.location_deck)
    assert view["characters"]["deck_count"] == len(state.ocean_deck)
    assert not {"location_deck", "ocean_deck", "seed", "kings_boxed"} & strings_in(view)
    offer = view.get("king_offer")
    if offer is not None:
        assert ("king_ids" in offer) == (viewer == state.king_offer_seat)
    return view


def check_event_twin(event: Any, viewer: int | None) -> None:
    name = ENGINE.event_name(event)
    shown = ENGINE.redact(event, viewer)
    if name == "deck_shuffled":
        assert shown is None
        return
    assert shown is not None
    if name == "game_created":
        assert "seed" not in shown
    elif name in TWIN_KEYS and viewer != event.seat:
        assert set(shown) == TWIN_KEYS[name], (name, shown)


def test_n51_projection() -> None:
    state = _mid_game()
    view = check_structure(state, 1)
    seat0 = view["players"][0]
    assert (seat0["hand_count"], seat0["discard_top"], seat0["discard_count"], seat0["scoring_pile_count"]) == (
        3, "S0-HERALD", 3, 2)
    assert [b["location_id"] for b in seat0["board"] if b] == ["SB13", "OV07"] and seat0["board"][0]["covered"] == 1
    assert {m["manta_id"]: m["ready"] for m in seat0["mantas"]}["T0-C2"] is False
    assert view["locations"]["bottom_row"] == list(state.bottom_row)
    assert view["locations"]["discard"] == list(state.location_discard)
    assert view["characters"]["row"][0]["card_id"] == state.character_row[0]
    seen = strings_in(view)
    hidden = {"S0-MATRONA", "OC-MEG-P", "S0-PATRICIAN", "S0-LEGIONARY", "SS02", "DC02",
              *state.location_deck, *state.ocean_deck}
    assert not hidden & seen
    assert "K1" in seen  # a Basic King is public (assigned by rule)
    own = check_structure(state, 0)["players"][0]
    assert own["hand"] == ["S0-MATRONA", "K1", "OC-MEG-P"] and own["scoring_pile"] == ["SS02", "DC02"]

    ended = replace(state, active_seat=0, stage="after_main", turn_number=4, end_reason="all_goals",
                    end_trigger_turn=2, final_turns_remaining=1)
    t = Table(ended)
    game_ended = one(t.do(0, "end_turn"), "game_ended")
    for viewer in (0, 1, 2, None):
        view = check_structure(t.state, viewer)
        assert view["players"][0]["hand"] == ["S0-MATRONA", "K1", "OC-MEG-P"]
        assert view["players"][0]["scoring_pile"] == ["SS02", "DC02"]
        assert list(ENGINE.redact(game_ended, viewer)["breakdown"][0]["scoring_pile"]) == ["SS02", "DC02"]


def test_draft_offers_and_drafted_kings_stay_private() -> None:
    events = ENGINE.start(GameConfig(seats=3, seed=2, options={"mode": "advanced", "first_seat": 0}))
    t = Table(ENGINE.replay(events))
    offer = t.state.king_offer
    for viewer in (0, 1, None):
        assert not set(offer) & strings_in(check_structure(t.state, viewer))
        assert not set(offer) & strings_in(ENGINE.prompt(t.state).details)
    assert set(offer) <= strings_in(check_structure(t.state, 2))
    plain = [k for k in offer if k not in ("K7", "K8")]
    t.do(2, "choose_king", king_id=plain[0])
    assert plain[0] not in strings_in(check_structure(t.state, 1))
    for event in t.events:
        for viewer in (0, 1, 2, None):
            check_event_twin(event, viewer)

