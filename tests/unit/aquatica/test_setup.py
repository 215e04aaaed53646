"""Setup (spec §4; acceptance scenarios 1-5) and game options (§9.1)."""

from __future__ import annotations

import pytest

from benthic.rules import GameConfig, RuleViolation
from tests.engine_harness import strings_in
from tests.unit.aquatica.helpers import CAT, ENGINE, Table, new_game, of_type, one


def test_n01_four_player_setup() -> None:
    events = ENGINE.start(GameConfig(seats=4, seed=5, options={"first_seat": 0}))
    state = ENGINE.replay(events)
    prompt = ENGINE.prompt(state)
    assert (prompt.kind, prompt.seats, prompt.details["stage"]) == ("turn", (0,), "before_main")
    for seat, p in enumerate(state.players):
        starting = ("MATRONA", "PATRICIAN", "LEGIONARY", "SEAHORSE", "WAVETELLER", "HERALD")
        assert p.hand == tuple(f"S{seat}-{n}" for n in starting) + (f"K{seat + 1}",)
        assert all(m.ready for m in p.mantas) and len(p.mantas) == 4
        assert p.discard == () and p.scored == () and p.board == (None,) * 5
    assert len(state.ocean_deck) == 21 and all(state.character_row)
    assert (len(state.location_deck), len(state.bottom_row), state.top_row, state.location_discard) == (50, 6, (), ())
    assert dict(zip(CAT.wild_kinds, state.wild_reserve, strict=True)) == {
        "W_COIN2": 8, "W_POWER2": 8, "W_RAISE1": 6, "W_SCORE": 5, "W_TAKEBACK": 4}
    assert state.goals == ("G_HAND10", "G_SAMETYPE4", "G_SCORED3", "G_TIRED5")
    for viewer in (0, 1, 2, 3, None):
        projection = [ENGINE.redact(e, viewer) for e in events]
        assert all(r is None or r["type"] != "deck_shuffled" for r in projection)
        assert len(of_type(events, "deck_shuffled")) == 2 and all(
            r is not None for r, e in zip(projection, events, strict=True) if ENGINE.event_name(e) != "deck_shuffled")


def test_n02_two_player_set_removal() -> None:
    events = ENGINE.start(GameConfig(seats=2, seed=8, options={"first_seat": 0}))
    state = ENGINE.replay(events)
    ocean = [c for c in state.ocean_deck + state.character_row if c]
    assert len(ocean) == 18 and not any(c.endswith("-O") for c in ocean) and len(state.ocean_deck) == 12
    assigned = of_type(events, "king_assigned")
    assert [(e.seat, e.king_id) for e in assigned] == [(0, "K1"), (1, "K2")]
    assert ENGINE.redact(assigned[1], 0) == {"type": "king_assigned", "seat": 1, "king_id": "K2"}
    assert ENGINE.view(state, 0)["players"][1]["king_id"] == "K2"


def _solo_offering(*kings: str) -> tuple[int, list]:
    for seed in range(500):
        events = ENGINE.start(GameConfig(seats=1, seed=seed))
        offer = one(events, "king_draft_offered").king_ids
        if set(kings) <= set(offer):
            return seed, events
    raise AssertionError("no seed offers those Kings")


def test_n03_solo_setup() -> None:
    seed, events = _solo_offering("K5")
    state = ENGINE.replay(events)
    ocean = [c for c in state.ocean_deck + state.character_row if c]
    assert sorted(ocean) == sorted(cid for cid, mark in CAT.ocean_ids if mark is None) and len(state.ocean_deck) == 3
    t = Table(state)
    assert (t.prompt.kind, t.prompt.seats, t.prompt.details) == ("choose_king", (0,), {"count": 3})
    offer = state.king_offer
    not_offered = next(k for k in CAT.king_ids if k not in offer)
    t.reject(0, "choose_king", "king_not_offered", king_id=not_offered)
    t.do(0, "choose_king", king_id="K5")
    p = t.player(0)
    assert len(p.hand) == 7 and "K5" in p.hand
    boxed = [k for k in offer if k != "K5"]
    assert set(boxed) <= set(t.state.kings_boxed)
    for viewer in (0, None):
        view = ENGINE.view(t.state, viewer)
        assert not set(boxed) & strings_in(view)
    assert t.state.ichthyanders == ("I-1", "I-2", "I-3", "I-4")
    assert one(t.events, "ichthyanders_set_up").manta_ids == ("I-1", "I-2", "I-3", "I-4")
    assert t.prompt.kind == "turn"


def test_n04_king_draft() -> None:
    events = ENGINE.start(GameConfig(seats=3, seed=21, options={"mode": "advanced", "first_seat": 0}))
    offered = one(events, "king_draft_offered")
    assert offered.seat == 2 and len(offered.king_ids) == 4
    assert ENGINE.redact(offered, 0) == {"type": "king_draft_offered", "seat": 2, "count": 4}
    assert tuple(ENGINE.redact(offered, 2)["king_ids"]) == offered.king_ids
    t = Table(ENGINE.replay(events))
    t.reject(0, "choose_king", "not_your_turn", king_id=offered.king_ids[0])
    t.do(2, "choose_king", king_id=offered.king_ids[0])
    second = one(t.events, "king_draft_offered")
    assert second.seat == 1 and second.king_ids == offered.king_ids[1:]
    chosen = one(t.events, "king_chosen")
    assert ENGINE.redact(chosen, 0) == {"type": "king_chosen", "seat": 2, "auto": False}
    t.do(1, "choose_king", king_id=second.king_ids[0])
    third = of_type(t.events, "king_draft_offered")[-1]
    assert third.seat == 0 and len(third.king_ids) == 2
    t.do(0, "choose_king", king_id=third.king_ids[1])
    assert third.king_ids[0] in t.state.kings_boxed and t.state.king_offer == ()
    assert t.prompt.kind == "turn"
    goals_set = one(events, "goals_set")
    assert len(goals_set.goals) == 4 and len(set(goals_set.tokens)) == 4
    for token in goals_set.tokens:
        assert not {CAT.tokens[token].front, CAT.tokens[token].back} <= set(goals_set.goals)


def test_n05_setup_exchange_king() -> None:
    for seed in range(500):
        events = ENGINE.start(GameConfig(seats=3, seed=seed, options={"mode": "advanced", "first_seat": 0}))
        offer = one(events, "king_draft_offered").king_ids
        if "K7" in offer and "K8" not in offer:
            break
    t = Table(ENGINE.replay(events))
    plain = [k for k in offer if CAT.card[k].setup is None]
    t.do(2, "choose_king", king_id=plain[0])
    t.do(1, "choose_king", king_id="K7")
    assert "K7" not in t.player(1).hand
    t.do(0, "choose_king", king_id=plain[1])
    exchanged = one(t.events, "king_exchanged")
    assert (exchanged.seat, exchanged.king_id, exchanged.manta_id) == (1, "K7", "W_COIN2#1")
    assert len(t.player(1).hand) == 6 and t.manta("W_COIN2#1", 1).ready
    assert t.state.wild_reserve[CAT.wild_index["W_COIN2"]] == 7
    assert t.player(1).king_number == 7
    assert ENGINE.view(t.state, 0)["players"][1]["king_id"] == "K7"  # exchanged publicly


@pytest.mark.parametrize("seats", [0, 5, -1])
def test_bad_player_count(seats: int) -> None:
    with pytest.raises(RuleViolation) as info:
        ENGINE.start(GameConfig(seats=seats, seed=1))
    assert info.value.code == "invalid_player_count"


@pytest.mark.parametrize("options", [
    {"no_such_flag": True}, {"printing": "third"}, {"scout_rule": "sometimes"}, {"use_kings": 1},
    {"max_rounds": 0}, {"first_seat": 2}, {"mode": "expert"},
])
def test_bad_options_are_invalid_flag(options: dict) -> None:
    with pytest.raises(RuleViolation) as info:
        ENGINE.start(GameConfig(seats=2, seed=1, options=options))
    assert info.value.code == "invalid_flag" and "§" in info.value.message


def test_presets_modes_and_overrides() -> None:
    updated = new_game(2, printing="updated")
    assert updated.rules.scout_rule == "updated" and updated.rules.matrona_never_discarded
    assert updated.goals == ("G_HAND8", "G_BOARD5", "G_SCORED3", "G_WILD2")
    overridden = new_game(2, printing="updated", scout_rule="first", mode="advanced", king_draft=False)
    assert overridden.rules.scout_rule == "first" and overridden.rules.variable_goals
    assert not overridden.rules.king_draft and overridden.phase == "play"
    no_kings = new_game(2, use_kings=False)
    assert [len(p.hand) for p in no_kings.players] == [6, 6]


def test_first_seat_random_or_configured() -> None:
    firsts = {ENGINE.replay(ENGINE.start(GameConfig(seats=4, seed=s))).active_seat for s in range(30)}
    assert firsts == {0, 1, 2, 3}
    state = new_game(3, first_seat=2)
    assert state.active_seat == 2
    # Basic Kings follow turn order: the first player gets K1
    assert state.players[2].king_id == "K1" and state.players[0].king_id == "K2"
    created = one(ENGINE.start(GameConfig(seats=3, seed=4, options={"first_seat": 2})), "seats_assigned")
    assert (created.order, created.first_seat_source) == ((2, 0, 1), "config")


def test_seed_is_recorded_but_redacted() -> None:
    events = ENGINE.start(GameConfig(seats=2, seed=987654))
    created = one(events, "game_created")
    assert created.seed == 987654
    for viewer in (0, 1, None):
        assert "seed" not in ENGINE.redact(created, viewer)
        assert 987654 not in ENGINE.view(ENGINE.replay(events), viewer).values()
