"""Legal-command enumeration (spec §5.3 "Enumeration"): candidates of the current prompt filtered through
the same validators as ``decide``.  Raise allocations are listed in canonical form (pairs in slot order);
``decide`` accepts any order."""

from __future__ import annotations

from typing import Any

from benthic.rules.aquatica.commands import (
    Acquire,
    ChooseKing,
    ChooseOption,
    ClaimGoal,
    DiscardCard,
    EndTurn,
    ExploitDepth,
    FlipManta,
    FullyRiseLocation,
    PlaceIchthyander,
    PlayCharacter,
    RaiseLocations,
    RecruitCharacter,
    ReplayCard,
    ScoreLocation,
    ScoutDecision,
    ScoutDiscard,
    TakeBackCard,
)
from benthic.rules.aquatica.effects import Choice
from benthic.rules.aquatica.prompts import NO_CLAIM_PROMPTS, prompt_kind
from benthic.rules.aquatica.queries import CAT, acquisition_choices, goal_met, raise_allocations, raise_eligible
from benthic.rules.aquatica.state import BOARD_SLOTS, ROW_SLOTS, State
from benthic.rules.aquatica.validation import is_legal, raise_spec


def candidates(state: State, seat: int, kind: str) -> list[Any]:
    player = state.players[seat]
    if kind == "turn":
        out: list[Any] = []
        if state.stage == "before_main":
            out.extend(PlayCharacter(card) for card in player.hand)
        out.extend(FlipManta(m.id) for m in player.mantas)
        out.extend(ExploitDepth(slot) for slot in range(BOARD_SLOTS))
        if state.stage == "after_main":
            out.append(EndTurn())
        return out
    if kind == "pay":
        return [FlipManta(m.id) for m in player.mantas] + [ExploitDepth(slot) for slot in range(BOARD_SLOTS)]
    if kind == "choose_option":
        effect = state.queue[0].effect
        assert isinstance(effect, Choice)
        return [ChooseOption(i) for i in range(len(effect.options))]
    if kind == "choose_acquisition":
        return [Acquire(location_id, slot, mode) for location_id, slot, mode in acquisition_choices(state, seat)]
    if kind == "choose_recruit":
        return [RecruitCharacter(slot) for slot in range(ROW_SLOTS)]
    if kind in ("choose_raise", "opponent_raise"):
        amount, split, source = raise_spec(state, seat, kind)
        return [RaiseLocations(a) for a in raise_allocations(raise_eligible(player, source), amount, split)]
    if kind == "choose_fully_rise":
        return [FullyRiseLocation(slot) for slot in range(BOARD_SLOTS)]
    if kind == "choose_score":
        return [ScoreLocation(slot) for slot in range(BOARD_SLOTS)]
    if kind == "choose_take_back":
        return [TakeBackCard(card) for card in player.discard]
    if kind == "choose_replay":
        return [ReplayCard(card) for card in player.discard]
    if kind == "scout_decide":
        return [ScoutDecision(True), ScoutDecision(False)]
    if kind == "scout_discard":
        return [ScoutDiscard(location_id) for location_id in state.bottom_row]
    if kind == "opponent_discard":
        return [DiscardCard(card) for card in player.hand]
    if kind == "place_ichthyander":
        return [PlaceIchthyander(g) for g in range(len(state.goals))]
    if kind == "choose_king":
        return [ChooseKing(k) for k in state.king_offer]
    return []


def legal_commands(state: State, seat: int) -> list[Any]:
    found = prompt_kind(state)
    if found is None or seat not in found[1]:
        return []
    kind = found[0]
    out = [c for c in candidates(state, seat, kind) if is_legal(state, seat, c, kind)]
    if kind not in NO_CLAIM_PROMPTS:
        trained = [m.id for m in state.players[seat].mantas if m.id in CAT.trained_kind_of]
        for goal_index in range(len(state.goals) if trained else 0):
            if not _goal_open(state, seat, goal_index):
                continue
            for manta_id in trained:
                claim = ClaimGoal(goal_index, manta_id)
                if is_legal(state, seat, claim, kind):
                    out.append(claim)
    return out


def _goal_open(state: State, seat: int, goal_index: int) -> bool:
    """The checks of ``validate_claim_goal`` that do not depend on the Manta (3, 6, 7), run once per goal
    rather than once per Manta; the validator still runs every check on each claim it lets through."""
    track = state.tracks[goal_index]
    if any(spot.seat == seat for spot in track) or len(track) >= len(CAT.board.goal_track_points):
        return False
    return goal_met(state, seat, state.goals[goal_index])
