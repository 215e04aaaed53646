"""Rule flag ``early_discard = true`` (spec §9.1, §6.9; rulebook "Final do Turno": the discard down to the hand
limit "pode ser tomada até o início do seu próximo turno"): during another seat's turn, a seat over its hand
limit may discard, a command outside any prompt; at the start of its own turn P2 asks for what is still over."""

from __future__ import annotations

from benthic.i18n import render
from benthic.rules.underwater_cities import ENGINE
from benthic.rules.underwater_cities.describe import card_name

from .fixtures import A, B, C, card, cmd, fixture, kind, of_type, play, rejects

EARLY = {"rules": {"early_discard": True}}
HANDS = {A: [card(2), card(28), card(17)], B: [card(3), card(29), card(18)], C: [card(4), card(30), card(19)]}


def _after_a_plays_aa(options: dict | None = None) -> tuple[object, tuple[str, ...]]:
    """A plays a card on AA (gain 2 cards and 2 credits) and draws at the end of its turn: 5 cards, limit 3."""
    state = fixture(3, options=EARLY if options is None else options, hands=HANDS)
    state, _ = play(state, A, cmd.PlayCard(card(2), "AA"))
    assert state.turn is not None and state.turn.seat == B and kind(state) == "choose_play"
    hand = state.players[A].hand
    assert len(hand) == 5
    return state, hand


def test_a_seat_over_its_limit_discards_during_another_seats_turn() -> None:
    state, hand = _after_a_plays_aa()
    assert ENGINE.legal_commands(state, A) == [cmd.DiscardCards((c,)) for c in hand]  # one card at a time
    assert ENGINE.legal_commands(state, C) == []  # within its limit
    prompt = ENGINE.prompt(state)
    state, events = play(state, A, cmd.DiscardCards((hand[0],)))
    assert [(e.seat, e.card_ids) for e in of_type(events, "cards_discarded_early")] == [(A, (hand[0],))]
    assert ENGINE.prompt(state) == prompt  # B's turn goes on, untouched
    assert hand[0] in state.era_discard and len(state.players[A].hand) == 4
    rejects(state, A, cmd.DiscardCards(hand[1:3]), "wrong_count")  # 1 over the limit now
    rejects(state, A, cmd.DiscardCards((hand[0],)), "card_not_in_hand")
    rejects(state, A, cmd.DiscardCards((hand[1], hand[1])), "wrong_count")
    state, _ = play(state, A, cmd.DiscardCards((hand[1],)))
    assert ENGINE.legal_commands(state, A) == []
    rejects(state, A, cmd.DiscardCards((hand[2],)), "not_your_turn")  # at the limit: nothing to discard
    rejects(state, C, cmd.DiscardCards((HANDS[C][0],)), "not_your_turn")


def test_several_cards_at_once_and_the_limit_is_never_passed() -> None:
    state, hand = _after_a_plays_aa()
    rejects(state, A, cmd.DiscardCards(hand[:3]), "wrong_count")
    rejects(state, A, cmd.DiscardCards(()), "wrong_count")
    rejects(state, A, cmd.DiscardCards((hand[0], hand[0])), "duplicate_card")
    state, events = play(state, A, cmd.DiscardCards(hand[:2]))
    assert len(state.players[A].hand) == 3 and of_type(events, "cards_discarded_early")


def test_what_is_still_over_the_limit_is_asked_at_the_start_of_the_seats_turn() -> None:
    state, hand = _after_a_plays_aa()
    state, _ = play(state, A, cmd.DiscardCards((hand[0],)))  # 4 cards: 1 over
    state, _ = play(state, B, cmd.PlayCard(card(3), "AA"))  # B: 5 cards
    assert ENGINE.legal_commands(state, B) == [cmd.DiscardCards((c,)) for c in state.players[B].hand]
    assert len(ENGINE.legal_commands(state, A)) == 4  # both may discard during C's turn
    state, _ = play(state, C, cmd.PlayCard(card(4), "AA"))
    assert state.turn is not None and state.turn.seat == A and kind(state) == "discard_to_limit"
    assert ENGINE.legal_commands(state, A) == [cmd.DiscardCards((c,)) for c in state.players[A].hand]
    rejects(state, A, cmd.DiscardCards(state.players[A].hand[:2]), "wrong_count")  # exactly what is over
    state, _ = play(state, A, cmd.DiscardCards((state.players[A].hand[0],)))
    assert kind(state) == "choose_play"
    assert len(ENGINE.legal_commands(state, B)) == 5 and len(ENGINE.legal_commands(state, C)) == 5


def test_a_seat_at_its_own_prompt_discards_only_as_the_prompt_asks() -> None:
    state, hand = _after_a_plays_aa()
    b_hand = state.players[B].hand
    rejects(state, B, cmd.DiscardCards((b_hand[0],)), "wrong_prompt")  # B is prompted: choose_play


def test_without_the_flag_the_discard_waits_for_the_turn() -> None:
    state, hand = _after_a_plays_aa(options={})
    assert ENGINE.legal_commands(state, A) == []
    rejects(state, A, cmd.DiscardCards((hand[0],)), "not_your_turn")


def test_early_discards_are_labelled_as_such_in_both_languages() -> None:
    state, hand = _after_a_plays_aa()
    name = card_name(hand[0])
    early = ENGINE.describe(state, cmd.DiscardCards((hand[0],)), A)
    assert early.label == f"Discard {name} now, before your turn (over your hand limit)"
    assert early.highlights == [hand[0]]
    assert early.message is not None
    assert render(early.message, "pt").startswith("Descartar ") and "antes do seu turno" in render(early.message, "pt")
    state, _ = play(state, B, cmd.PlayCard(card(3), "AA"))
    state, _ = play(state, C, cmd.PlayCard(card(4), "AA"))
    assert kind(state) == "discard_to_limit"  # A's own prompt: the usual label
    asked = ENGINE.describe(state, cmd.DiscardCards((hand[0],)), A).label
    assert asked == f"Discard {name}"


def test_the_history_tells_every_seat_of_the_early_discard_in_both_languages() -> None:
    state, hand = _after_a_plays_aa()
    _, events = play(state, A, cmd.DiscardCards((hand[0],)))
    (event,) = events
    name = card_name(hand[0])
    for viewer in (None, A, B, C):
        shown = ENGINE.redact(event, viewer)
        assert shown is not None and list(shown["card_ids"]) == [hand[0]]  # public, as any discard
        sentence = ENGINE.sentence(shown)
        assert sentence is not None
        assert sentence.english().endswith(f"discarded {name} before their turn")
        assert render(sentence, "pt").endswith("antes do seu turno") and " descartou " in render(sentence, "pt")
