"""Matrona, Kings and opponents (spec §6.13-§6.18; scenarios 42-47), end and scoring (§8; scenarios
48, 52-54, worked example 4), solo (§6.19; scenarios 49-50, worked example 5)."""

from __future__ import annotations

import pytest
from msgspec.structs import replace

from benthic.rules.aquatica.scoring import final_scores
from benthic.rules.aquatica.state import TrackSpot
from tests.unit.aquatica.helpers import (
    ENGINE,
    Table,
    edit_player,
    new_game,
    of_type,
    one,
    with_cards,
    with_locations,
    with_mantas,
)

NO_CONQUEST = ["SS08", "SS12", "DC06", "SB13", "SB14", "SS13"]  # power 8+: Meg's conquer is skipped


def test_n42_matrona_first_printing() -> None:
    state = with_cards(new_game(2), 0, hand=["MATRONA", "WAVETELLER"],
                       discard=["PATRICIAN", "LEGIONARY", "SEAHORSE", "K1", "HERALD"])
    t = Table(with_mantas(state, 0, tired=("T0-C2", "T0-P2"), wild_tired=("W_RAISE1",)))
    events = t.do(0, "play_character", card_id="S0-MATRONA")
    assert len(one(events, "discard_returned_to_hand").card_ids) == 5
    assert set(one(events, "mantas_readied").manta_ids) == {"T0-C2", "T0-P2", "W_RAISE1#1"}
    assert one(events, "card_returned_to_hand").card_id == "S0-MATRONA"
    p = t.player()
    assert len(p.hand) == 7 and p.discard == () and all(m.ready for m in p.mantas)
    assert ENGINE.view(t.state, 1)["players"][0]["discard_top"] is None


def _solo(**options: object) -> Table:
    t = Table(new_game(1, **options))
    t.do(0, "choose_king", king_id=next(k for k in t.state.king_offer if k not in ("K7", "K8")))
    return t


def test_n43_two_player_matrona_row_discard() -> None:
    t = Table(new_game(2, printing="updated"))
    row, g = t.state.character_row, t.state.ocean_deck[0]
    assert len(t.state.ocean_deck) == 12
    events = t.do(0, "play_character", card_id="S0-MATRONA")
    removed = one(events, "row_character_removed")
    assert (removed.card_id, removed.slot) == (row[0], 0)
    assert t.state.character_row == (*row[1:], g) and len(t.state.ocean_deck) == 11
    assert row[0] in t.state.removed_characters

    t = _solo(printing="updated")
    row = t.state.character_row
    events = t.do(0, "play_character", card_id="S0-MATRONA")
    assert not of_type(events, "row_character_removed") and t.state.character_row == row


def _meg(**options: object) -> Table:
    state = with_locations(new_game(3, **options), bottom=NO_CONQUEST)
    state = with_cards(state, 0, hand=["MATRONA", "OC-MEG-P"])
    state = with_cards(state, 1, hand=["MATRONA", "K2", "PATRICIAN"])
    state = with_cards(state, 2, hand=["MATRONA"])
    t = Table(state)
    t.do(0, "play_character", card_id="OC-MEG-P")
    return t


def test_n44_forced_discard() -> None:
    t = _meg()
    auto = one(t.events, "card_discarded")
    assert (auto.seat, auto.card_id, auto.auto) == (2, "S2-MATRONA", True)
    assert (t.prompt.kind, t.prompt.seats) == ("opponent_discard", (1,))
    events = t.do(1, "discard_card", card_id="S1-MATRONA")
    assert one(events, "card_discarded").card_id == "S1-MATRONA"
    assert ENGINE.view(t.state, 0)["players"][1]["discard_top"] == "S1-MATRONA"
    assert t.prompt.kind == "turn" and t.prompt.seats == (0,)

    t = _meg(matrona_never_discarded=True)
    assert not of_type(t.events, "card_discarded")
    assert (t.prompt.kind, t.prompt.seats) == ("opponent_discard", (1,))
    t.reject(1, "discard_card", "cannot_discard_matrona", card_id="S1-MATRONA")
    t.do(1, "discard_card", card_id="S1-PATRICIAN")
    assert t.player(1).discard == ("S1-PATRICIAN",)


def test_n45_opponent_raise_grants_a_manta_on_another_players_turn() -> None:
    state = with_locations(new_game(3), boards={0: {}, 1: {0: "SB03@0"}, 2: {}})
    t = Table(with_cards(state, 0, hand=["MATRONA", "OC-RESEARCHER-P"]))
    events = t.do(0, "play_character", card_id="OC-RESEARCHER-P")
    raised = one(events, "location_raised")
    assert (raised.seat, raised.location_id, raised.cause, raised.auto) == (1, "SB03", "opponent_raise", True)
    gained = one(events, "wild_manta_gained")
    assert (gained.seat, gained.kind) == (1, "W_POWER2") and t.manta(gained.manta_id, 1).ready
    assert t.prompt.kind == "turn" and t.prompt.seats == (0,)


@pytest.mark.parametrize("once", ["resource", "all"])
def test_n46_effect_manta_re_flip(once: str) -> None:
    state = with_locations(new_game(2, manta_once_per_turn=once), boards={0: {0: "SB08@0"}})
    t = Table(with_mantas(state, 0, wild=("W_RAISE1",)))
    t.do(0, "flip_manta", manta_id="W_RAISE1#1")
    assert t.board() == {0: "SB08@1"}
    events = t.do(0, "play_character", card_id="S0-MATRONA")
    assert "W_RAISE1#1" in one(events, "mantas_readied").manta_ids
    if once == "all":
        t.reject(0, "flip_manta", "manta_already_used_this_turn", manta_id="W_RAISE1#1")
    else:
        t.do(0, "flip_manta", manta_id="W_RAISE1#1")
        assert t.board() == {0: "SB08@2"}


def test_n47_healer() -> None:
    state = with_locations(new_game(2), boards={0: {0: "SB04@0"}})
    t = Table(with_cards(state, 0, hand=["MATRONA", "OC-HEALER-P"], discard=["LEGIONARY", "K1"]))
    t.do(0, "play_character", card_id="OC-HEALER-P")
    assert (t.prompt.kind, t.prompt.details["remaining"]) == ("choose_take_back", 1)
    t.reject(0, "take_back", "card_not_in_discard", card_id="OC-HEALER-P")
    events = t.do(0, "take_back", card_id="K1")
    assert "K1" in t.player().hand
    assert one(events, "location_raised").auto and t.board() == {0: "SB04@1"}
    assert t.player().discard == ("S0-LEGIONARY", "OC-HEALER-P")
    taken = one(events, "cards_taken_back")
    assert ENGINE.redact(taken, 1) == {"type": "cards_taken_back", "seat": 0, "count": 1,
                                       "new_discard_top": "S0-LEGIONARY", "auto": False}
    assert ENGINE.view(t.state, 0)["players"][0]["discard"] == ["S0-LEGIONARY", "OC-HEALER-P"]
    other = ENGINE.view(t.state, 1)["players"][0]
    assert (other["discard_top"], other["discard_count"]) == ("OC-HEALER-P", 2) and "discard" not in other


def _ending(state, active: int) -> Table:  # type: ignore[no-untyped-def]
    """The state of a last final turn whose Main action is done: the next end_turn ends the game."""
    return Table(replace(state, active_seat=active, stage="after_main", turn_number=10, end_reason="all_goals",
                         end_trigger_turn=7, final_turns_remaining=1))


def test_n48_example4_final_scoring_with_a_two_level_tie_break() -> None:
    state = new_game(3)
    state = with_cards(state, 0, hand=[*state.players[0].hand, "OC-MEG-P"])  # 8 cards
    state = with_cards(state, 2, hand=list(state.players[2].hand[1:]))  # 6 cards
    tracks = (
        (TrackSpot(0, "T0-C2"), TrackSpot(2, "T2-C2")),  # G_HAND10
        (TrackSpot(1, "T1-C2"), TrackSpot(2, "T2-C1")),  # G_SAMETYPE4
        (TrackSpot(2, "T2-P2"), TrackSpot(0, "T0-C1")),  # G_SCORED3
        (TrackSpot(1, "T1-C1"),),  # G_TIRED5
    )
    on_tracks = {spot.manta_id for track in tracks for spot in track}
    state = replace(state, tracks=tracks)
    for seat in range(3):
        state = edit_player(state, seat, mantas=tuple(m for m in state.players[seat].mantas if m.id not in on_tracks))
    state = with_mantas(state, 0, wild=("W_COIN2",))
    state = with_mantas(state, 2, wild=("W_POWER2", "W_RAISE1"))
    state = with_locations(state, scored={0: ("SB08", "OV11", "DC06", "SS02"), 1: ("SB13", "SS12", "OV04"),
                                          2: ("SS07", "DC10", "SB04", "SB02")})
    t = _ending(state, active=2)
    events = t.do(2, "end_turn")
    ended = one(events, "game_ended")
    assert [b.total for b in ended.breakdown] == [31, 30, 31]
    assert [(b.hand_pp, b.goal_pp, b.location_pp) for b in ended.breakdown] == [(8, 10, 13), (7, 12, 11), (6, 14, 11)]
    assert [b.mantas_in_reserve for b in ended.breakdown] == [3, 2, 3]
    assert ended.ranking == (0, 2, 1)
    assert ended.tie_breaks_used == ("mantas_in_reserve", "king_number")
    scores = ENGINE.final_scores(t.state)
    assert [(r.seat, r.score, r.rank) for r in scores.results] == [(0, 31, 1), (2, 31, 2), (1, 30, 3)]
    assert ENGINE.prompt(t.state) is None


def test_n49_solo_first_printing() -> None:
    t = _solo()
    hand = t.player().hand
    extra = [f"OC-{n}-P" for n in ("GRABBER", "HEALER", "MEG")]
    t.state = with_cards(t.state, 0, hand=[*hand, *extra])
    assert len(t.player().hand) == 10
    t.do(0, "play_character", card_id="S0-MATRONA")
    assert (t.prompt.kind, t.prompt.details["free_tracks"]) == ("place_ichthyander", [0, 1, 2, 3])
    claimed = one(t.do(0, "claim_goal", goal_index=0, manta_id="T0-C1"), "goal_claimed")
    assert claimed.spot == 1 and t.prompt.kind == "place_ichthyander"
    placed = one(t.do(0, "place_ichthyander", goal_index=0), "ichthyander_placed")
    assert (placed.goal_index, placed.spot, placed.manta_id) == (0, 2, "I-1")
    t.do(0, "end_turn")
    t.do(0, "play_character", card_id="S0-MATRONA")
    t.reject(0, "place_ichthyander", "ichthyander_already_on_track", goal_index=0)
    t.do(0, "place_ichthyander", goal_index=1)
    t.do(0, "end_turn")
    t.do(0, "play_character", card_id="S0-MATRONA")
    t.do(0, "place_ichthyander", goal_index=2)
    t.do(0, "end_turn")
    events = t.do(0, "play_character", card_id="S0-MATRONA")
    last = one(events, "ichthyander_placed")
    assert (last.goal_index, last.auto) == (3, True)
    ended = one(events, "end_triggered")
    assert (ended.reason, ended.final_turns) == ("ichthyanders_complete", 1)
    t.do(0, "end_turn")
    t.do(0, "play_character", card_id="S0-WAVETELLER")
    assert one(t.do(0, "end_turn"), "game_ended").solo_rank is not None
    assert ENGINE.is_over(t.state)


@pytest.mark.parametrize(("solo_ranks", "title"), [("first", "The Leviathan"), ("updated", "The Sea Serpent")])
def test_n49_example5_solo_rank(solo_ranks: str, title: str) -> None:
    t = _solo(solo_ranks=solo_ranks)
    state = with_cards(t.state, 0, hand=list(t.player().hand[:7]) + ["OC-MEG-P", "OC-HEALER-P"])  # 9 cards
    tracks = ((TrackSpot(-1, "I-1"), TrackSpot(0, "T0-C2")), (), (TrackSpot(0, "T0-C1"),), (TrackSpot(0, "T0-P2"),))
    state = replace(state, tracks=tracks, ichthyanders=("I-2", "I-3", "I-4"))
    state = edit_player(state, 0, mantas=tuple(m for m in state.players[0].mantas if m.id == "T0-P1"))
    state = with_locations(state, scored={0: ("SB08", "OV11", "DC06", "SS02")})
    t = _ending(state, active=0)
    ended = one(t.do(0, "end_turn"), "game_ended")
    b = ended.breakdown[0]
    assert (b.hand_pp, b.goal_pp, b.location_pp, b.total) == (9, 16, 13, 38)
    assert ended.solo_rank == title and final_scores(t.state).details["solo_rank"] == title


def test_n50_solo_updated_trigger() -> None:
    def sea_horse(**options: object) -> Table:
        t = _solo(**options)
        assert len(t.state.bottom_row) == 6
        t.do(0, "play_character", card_id="S0-SEAHORSE")
        return t

    t = sea_horse(printing="updated")
    t.do(0, "scout", do=True)
    t.do(0, "scout_discard", location_id=t.state.bottom_row[0])
    events = t.do(0, "scout_discard", location_id=t.state.bottom_row[0])
    assert of_type(events, "scout_performed") and one(events, "ichthyander_triggered").cause == "scout"
    assert t.prompt.kind == "place_ichthyander"

    t = sea_horse(printing="updated")
    events = t.do(0, "scout", do=False)
    assert not of_type(events, "ichthyander_triggered") and t.prompt.kind != "place_ichthyander"

    t = sea_horse()
    assert one(t.events, "effect_skipped").reason == "scout_not_allowed"
    assert not of_type(t.events, "ichthyander_triggered")


def test_n52_recover() -> None:
    state = new_game(3)
    cards = state.players[1].hand
    state = with_cards(state, 1, hand=[], discard=list(cards))
    t = Table(with_mantas(state, 1, tired=("T1-C2",)))
    t.do(0, "play_character", card_id="S0-WAVETELLER")
    events = t.do(0, "end_turn")
    recovered = one(events, "discard_returned_to_hand")
    assert (recovered.seat, recovered.cause, len(recovered.card_ids)) == (1, "recover", 7)
    assert len(t.player(1).hand) == 7 and not t.manta("T1-C2", 1).ready
    assert (t.prompt.kind, t.prompt.seats, t.prompt.details["stage"]) == ("turn", (1,), "after_main")
    t.reject(1, "play_character", "main_action_already_taken", card_id="S1-MATRONA")


def test_n53_no_kings_tie_goes_later_in_turn_order() -> None:
    state = new_game(2, use_kings=False)
    assert [len(p.hand) for p in state.players] == [6, 6]
    # each: 6 in hand + 24 PP in the Scoring Pile = 30, and 3 Mantas in reserve
    state = with_locations(state, scored={0: ("SB13", "DC06", "DC01", "SB14", "SB04", "SB06"),
                                          1: ("SS13", "SS14", "OV13", "OV14", "SS03", "SS04")})
    for seat in (0, 1):
        state = edit_player(state, seat, mantas=state.players[seat].mantas[:3])
    ended = one(_ending(state, active=1).do(1, "end_turn"), "game_ended")
    assert [b.total for b in ended.breakdown] == [30, 30]
    assert ended.ranking == (1, 0) and ended.tie_breaks_used == ("mantas_in_reserve", "turn_order")


def test_n54_round_cap() -> None:
    t = Table(new_game(2, max_rounds=1))
    t.do(0, "play_character", card_id="S0-WAVETELLER")
    t.do(0, "end_turn")
    t.do(1, "play_character", card_id="S1-WAVETELLER")
    events = t.do(1, "end_turn")
    assert one(events, "end_triggered").reason == "round_cap"
    ended = one(events, "game_ended")
    assert ended.end_reason == "round_cap" and [b.total for b in ended.breakdown] == [6, 6]  # hands of 6
    assert ENGINE.is_over(t.state)
