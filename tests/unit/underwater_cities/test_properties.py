"""Property tests over random legal playouts, for every seat count and every mode and rule flag:
the game ends within the bound; every command of ``legal_commands`` is accepted (all of them, on every
third state); random illegal commands are rejected with a RuleViolation code; replay equals the
step-by-step fold; game invariants hold after every event, and every event finds what it acts on
(``preconditions.py``); views and redacted events never reveal a secret
to another seat (the generic token checks of the harness plus structural checks).

``BENTHIC_LONG_TESTS=1`` raises the number of hypothesis examples for soak runs."""

from __future__ import annotations

import os
import random
from collections import Counter
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benthic.rules import GameConfig
from benthic.rules.underwater_cities import ENGINE
from benthic.rules.underwater_cities import events as ev
from benthic.rules.underwater_cities.content import content
from benthic.rules.underwater_cities.flow import turn_order
from benthic.rules.underwater_cities.state import NEUTRAL, GameState
from benthic.rules.underwater_cities.usability import action_cards
from tests.engine_harness import assert_rejects_cleanly, check_random_playout, random_commands, strings_in
from tests.unit.underwater_cities.preconditions import check_event_applies

LONG = os.environ.get("BENTHIC_LONG_TESTS") == "1"
EXAMPLES = 25 if LONG else 1

MODES: list[tuple[int, dict[str, Any]]] = [
    (1, {}),
    (2, {}),
    (3, {}),
    (4, {}),
    (2, {"board_side": "advanced"}),
    (4, {"board_side": "advanced", "government_contracts": True}),
    (3, {"government_contracts": True}),
    (2, {"rules": {"usability_check": "card_aware", "pair_bonus_per_pair": True, "a14_allow_biomatter": True,
                   "federation_start_small": "compensate_last", "tunnel_pair_both_adjacent": False,
                   "draw3_min_deck": 3}}),
    (4, {"rules": {"usability_check": "card_aware", "a14_allow_biomatter": True, "discard_pile_public": False,
                   "known_special_hand_cards_public": False}}),
    (3, {"board_side": "advanced", "rules": {"federation_start_small": "compensate_last",
                                             "tunnel_pair_both_adjacent": False}}),
    (1, {"rules": {"solo_symbiotic_limit": 7}}),
    (3, {"government_contracts": True, "rules": {"early_discard": True, "contracts_auto_claim": False}}),
    (4, {"rules": {"early_discard": True}}),
]
MODE_IDS = [f"{seats}p-{'-'.join(sorted(o)) or 'default'}" for seats, o in MODES]

SETTINGS = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck),
                    derandomize=not LONG)


# --- invariants ---------------------------------------------------------------------------------------------

def check_invariants(state: GameState) -> None:
    if not state.players or state.main_side == "":
        return
    data = content()
    seats = state.seats
    for p in state.players:
        assert min(msgspec.to_builtins(p.res).values(), default=0) >= 0, p.res
        assert p.points >= 0
        assert len(set(p.hand)) == len(p.hand)
        assert set(p.public_hand) <= set(p.hand)
        if p.board:
            assert len(action_cards(p)) <= data.info.supply.action_card_limit
            assert set(p.used_actions) <= set(action_cards(p))
        stack_spaces = [space for space, stack in zip((1, 2, 3, 4), state.fed_stacks, strict=True) if p.seat in stack]
        assert stack_spaces == ([p.fed_space] if p.fed_space else []), (p.seat, p.fed_space, state.fed_stacks)
    # component conservation
    located: list[str] = []
    for p in state.players:
        located += [*p.hand, *(c for c in p.tableau if c != "PA"), *p.under_board]
    located += [*state.era_deck, *state.era_discard, *state.buried, *(c for c in state.removed if c != "PA"),
                *(c for c in state.special_row if c), *state.special_deck, *state.box_specials]
    if state.frames and state.frames[-1].active is not None:
        located += state.frames[-1].active.drawn
    turn = state.turn
    if turn is not None and turn.card_id and not turn.card_done and turn.stage != "choose_play":
        located.append(turn.card_id)
    counts = Counter(located)
    duplicates = {c: n for c, n in counts.items() if n > 1}
    assert not duplicates, duplicates
    if state.special_row:
        specials = set(data.specials_one_two) | set(data.specials_three)
        assert specials <= set(counts), specials - set(counts)
    for era in (1, 2, 3):
        deck = data.era_decks[era]
        present = [c for c in deck if c in counts]
        assert len(present) in (0, len(deck)), (era, len(present))
    pas = sum(p.tableau.count("PA") for p in state.players) + state.removed.count("PA")
    if state.players[0].board:
        assert pas == seats
        tunnels = sum(1 for p in state.players for x in p.pieces.values() if x.kind == "tunnel")
        white = sum(1 for p in state.players for x in p.pieces.values() if x.kind == "city_nonsym")
        purple = sum(1 for p in state.players for x in p.pieces.values() if x.kind == "city_sym")
        assert state.tunnels_left + tunnels == data.info.supply.tunnels
        assert state.white_left + white == data.info.supply.white_domes
        if state.purple_left is not None:
            limit = data.info.supply.purple_domes[str(seats)] if seats > 1 else state.rules.solo_symbiotic_limit
            assert state.purple_left + purple == limit
    # turn order and tiles
    if seats > 1 and state.play_order:
        assert sorted(state.play_order) == list(range(seats))
    if turn is not None:
        assert turn.seat == turn_order(state)[turn.order_index]
        assert 0 <= turn.pass_no < 3
    tiles = Counter(t for tiles_ in state.slots.values() for t in tiles_ if t != NEUTRAL)
    assert all(n <= 3 for n in tiles.values()), tiles


# --- structural redaction -------------------------------------------------------------------------------------

def check_structural_privacy(state: GameState, event: Any) -> None:
    """What token checks cannot see: other seats' hands, keep / production / purchase choices, draw3 cards."""
    for viewer in [*range(state.seats), None]:
        view = ENGINE.view(state, viewer)
        for pv in view["players"]:
            assert ("hand" in pv) == (pv["seat"] == viewer)
        if "keep" in view:
            assert ("my_choice" in view["keep"]) == (viewer is not None and bool(state.keep_choices[viewer]))
        if "final_purchases" in view:
            assert viewer is not None
        po = view.get("production_options")
        if po is not None and "my_choice" in po:
            assert viewer in state.answered
        for frame in view["frames"]:
            if "active" in frame and "drawn" in frame["active"]:
                assert state.turn is not None and viewer == state.turn.seat
        assert "seed" not in view and "era_deck" not in view
        redacted = ENGINE.redact(event, viewer)
        if isinstance(event, ev.HIDDEN):
            assert redacted is None
        elif isinstance(event, ev.OWNER_ONLY):
            assert (redacted is None) == (viewer != event.seat)
        elif redacted is not None:
            assert "seed" not in redacted
            if isinstance(event, ev.SpecialTaken) and event.route == "draw3":
                assert redacted["card_id"] == ""


def _playout(seats: int, seed: int, options: dict[str, Any]) -> GameState:
    rng = random.Random(seed)
    events = ENGINE.start(GameConfig(seats=seats, seed=seed, options=options))
    state = ENGINE.initial_state()
    for event in events:
        state = ENGINE.evolve(state, event)
        check_invariants(state)
    commands = 0
    while (prompt := ENGINE.prompt(state)) is not None:
        assert commands < ENGINE.playout_bound, "no end within the bound"
        seat = rng.choice(prompt.seats)
        legal = ENGINE.legal_commands(state, seat)
        assert legal, f"no legal command at {prompt.kind}"
        assert len({ENGINE.encode_command(c) for c in legal}) == len(legal), "duplicate legal commands"
        if commands % 3 == 0:
            for command in legal:
                assert assert_rejects_cleanly(ENGINE, state, seat, command), f"legal {command!r} rejected"
        if commands % 5 == 0:
            for odd in random_commands(ENGINE, rng, 8, legal):
                assert_rejects_cleanly(ENGINE, state, seat, odd)
        command = rng.choice(legal)
        outside = [(s, c) for s in range(seats) if s not in prompt.seats for c in ENGINE.legal_commands(state, s)]
        if outside and rng.random() < 0.5:  # a command outside any prompt (early_discard) now and then
            seat, command = rng.choice(outside)
        new = ENGINE.decide(state, seat, command)
        for event in new:
            check_event_applies(state, event)
            state = ENGINE.evolve(state, event)
            check_invariants(state)
            if commands % 4 == 0:
                check_structural_privacy(state, event)
        commands += 1
    assert ENGINE.is_over(state)
    return state


@pytest.mark.parametrize(("seats", "options"), MODES, ids=MODE_IDS)
@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_playout_invariants_and_every_legal_command(seats: int, options: dict[str, Any], seed: int) -> None:
    state = _playout(seats, seed, options)
    results = ENGINE.final_scores(state).results
    assert sorted(r.rank for r in results) == list(range(1, seats + 1))
    assert all(r.breakdown["total"] == r.score for r in results)


@pytest.mark.parametrize(("seats", "options"), MODES, ids=MODE_IDS)
@SETTINGS
@given(seed=st.integers(min_value=0, max_value=2**31))
def test_random_playout_harness_promises(seats: int, options: dict[str, Any], seed: int) -> None:
    """The generic harness (leak rule, replay, codecs, clean rejections) in every mode."""
    check_random_playout(ENGINE, seats, seed, options)


def test_greedy_bots_play_every_mode_to_the_end() -> None:
    from benthic.rules.bots import GreedyBot, play_out

    for seats, options in MODES[:4]:
        events = ENGINE.start(GameConfig(seats=seats, seed=5, options=options))
        state, _, commands = play_out(ENGINE, events, {s: GreedyBot() for s in range(seats)}, random.Random(5))
        assert ENGINE.is_over(state) and commands <= ENGINE.playout_bound


def test_views_show_no_seat_anothers_hand_at_any_point() -> None:
    state = _playout(3, 12, {})
    for viewer in (0, 1, 2, None):
        seen = strings_in(ENGINE.view(state, viewer))
        for p in state.players:
            if p.seat != viewer:
                assert not (set(p.hand) - set(p.public_hand)) & seen
