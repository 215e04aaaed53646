"""The Underwater Cities engine behind the contract of ``benthic.rules.core.Engine``."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from benthic.rules.core import Engine, FinalScores, GameConfig, Prompt, SeatResult, Secret, reads_no_content
from benthic.rules.presentation import Description, Message

from . import views
from .catalogue import catalogue
from .commands import Command
from .content import PACKS
from .decide import decide
from .describe import describe, describe_all, site_names
from .determinize import determinize
from .events import Event
from .evolve import evolve
from .heuristic import evaluate
from .legal import legal_commands
from .setup import MAX_SEATS, MIN_SEATS, start
from .state import GameState
from .upcast import UPCASTERS
from .viewtypes import UnderwaterCitiesView


class UnderwaterCitiesEngine(Engine[GameState, Command, Event]):
    game_type = "underwater_cities"
    version = "uc-engine/2"
    engine_version = 2
    upcasters = UPCASTERS
    content_packs = PACKS
    # Undo (RULES.md, Undo): resolving the card and the action space already chosen (options, building,
    # upgrading, resources, the federation track, action cards and abilities of cards on the board) reveals
    # nothing; playing a card from the hand shows it, and draws, discards, special cards, contracts,
    # metropolises, production and every turn, round, era or end boundary reveal.
    events_revealing_nothing = frozenset({
        "tile_placed", "clone_used", "order_chosen", "block_started", "block_ended", "card_claimed",
        "card_under_board", "claim_declined", "action_limit_reached", "action_card_used", "action_card_restored",
        "ability_used", "card_triggered", "frame_opened", "part_started", "option_chosen", "part_ended",
        "effect_ended", "built", "upgraded", "upgrade_skipped", "city_converted", "build_bonus_gained",
        "metropolis_connected", "resources_gained", "resources_paid", "federation_advanced", "slot_performed",
    })
    min_seats = MIN_SEATS
    max_seats = MAX_SEATS
    command_type = Command
    event_type = Event
    state_type = GameState
    view_type = UnderwaterCitiesView
    playout_bound: ClassVar[int] = 6_000

    def start(self, config: GameConfig) -> list[Any]:
        return start(config)

    def initial_state(self) -> GameState:
        return GameState()

    def evolve(self, state: GameState, event: Any) -> GameState:
        return evolve(state, event)

    def decide(self, state: GameState, seat: int, command: Any) -> list[Any]:
        return decide(state, seat, command)

    def prompt(self, state: GameState) -> Prompt | None:
        return views.prompt(state)

    @reads_no_content
    def is_over(self, state: GameState) -> bool:
        return state.phase == "over"

    def legal_commands(self, state: GameState, seat: int) -> list[Any]:
        return legal_commands(state, seat)

    def view(self, state: GameState, seat: int | None) -> dict[str, Any]:
        return views.view(state, seat)

    def redact(self, event: Any, seat: int | None) -> dict[str, Any] | None:
        return views.redact(event, seat)

    def secrets(self, state: GameState) -> list[Secret]:
        return views.secrets(state)

    def determinize(self, state: GameState, seat: int, rng: random.Random) -> GameState:
        return determinize(state, seat, rng)

    def final_scores(self, state: GameState) -> FinalScores:
        ordered = sorted(state.scores, key=lambda s: s.rank)
        results = tuple(
            SeatResult(s.seat, s.total, s.rank, {
                "track": s.track, "brown": s.brown, "end_cards": s.end_cards, "network": s.network,
                "resources": s.resources, "total": s.total, "rank": s.rank,
                "tie_break_position": s.tie_break_position,
            })
            for s in ordered
        )
        details: dict[str, Any] = {"tie_break_order": list(state.tie_break_order)}
        if state.solo_result:
            details["solo_result"] = state.solo_result
            details["connected_cities"] = ordered[0].connected_cities
        return FinalScores(results, details)

    def heuristic(self, state: GameState, seat: int) -> float:
        return evaluate(state, seat)

    def catalogue(self) -> dict[str, Any]:
        return catalogue(self.version, PACKS.key)  # the pack in use: the default unless switched

    def describe(self, state: GameState, command: Any, seat: int | None = None) -> Description:
        return describe(state, command, seat)

    def describe_all(self, state: GameState, commands: Sequence[Any], seat: int | None = None) -> list[Description]:
        return describe_all(state, commands, seat)

    def place_names(self) -> Mapping[str, Message | str]:
        return site_names()
