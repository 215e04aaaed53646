"""Views and redaction (§7) on specific situations the random playouts reach only rarely."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from benthic.rules.underwater_cities import ENGINE
from tests.engine_harness import check_no_leak, strings_in

from .fixtures import A, B, card, cmd, fixture, play


def test_played_card_reshuffled_and_drawn_in_the_same_turn_stays_hidden() -> None:
    state = fixture(hands={A: [card(17)]})
    state = replace(state, era_deck=(), era_discard=())
    events = ENGINE.decide(state, A, cmd.PlayCard(card(17), "AA"))
    seen = None
    step = state
    drawn_back = False
    for event in events:
        after = ENGINE.evolve(step, event)
        seen = check_no_leak(ENGINE, 4, step, event, after, seen)
        if card(17) in after.players[A].hand:
            drawn_back = True
            assert card(17) not in strings_in(ENGINE.view(after, B))
        step = after
    assert drawn_back


def test_view_is_json_and_shows_own_hand_only() -> None:
    state = fixture(hands={A: [card(17), card(2)], B: [card(18)]})
    for viewer in (A, B, None):
        view = ENGINE.view(state, viewer)
        msgspec.json.encode(view)
        assert view["version"] == state.version and view["prompt"]["kind"] == "choose_play"
        hands = {p["seat"]: p.get("hand") for p in view["players"]}
        assert hands[A] == ([card(17), card(2)] if viewer == A else None)
        assert hands[B] == ([card(18)] if viewer == B else None)


def test_redact_drops_the_seed_and_hidden_events() -> None:
    from benthic.rules import GameConfig

    events = ENGINE.start(GameConfig(seats=2, seed=77))
    for viewer in (0, 1, None):
        redacted = [ENGINE.redact(e, viewer) for e in events]
        assert all("seed" not in r for r in redacted if r is not None)
        names = [ENGINE.event_name(e) for e, r in zip(events, redacted, strict=True) if r is None]
        assert {"deck_shuffled", "box_contents"} <= set(names)
        own = [r for e, r in zip(events, redacted, strict=True)
               if ENGINE.event_name(e) == "cards_dealt_detail" and r is not None]
        assert [r["seat"] for r in own] == ([viewer] if viewer is not None else [])


def test_discard_pile_flag_hides_the_pile_list() -> None:
    state = fixture(hands={A: [card(17)]}, options={"rules": {"discard_pile_public": False}})
    state, _ = play(state, A, cmd.PlayCard(card(17), "AA"))
    view = ENGINE.view(state, B)
    assert "era_discard" not in view and view["era_discard_count"] == len(state.era_discard) >= 1
