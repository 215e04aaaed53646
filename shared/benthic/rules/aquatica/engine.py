"""The Aquatica engine behind the platform contract (docs/ENGINE_CONTRACT.md)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

from benthic.rules.aquatica import decide as deciding
from benthic.rules.aquatica import legal, scoring, setup, views
from benthic.rules.aquatica.catalogue import catalogue
from benthic.rules.aquatica.commands import Command
from benthic.rules.aquatica.content import PACKS
from benthic.rules.aquatica.describe import describe, describe_all
from benthic.rules.aquatica.determinize import determinize
from benthic.rules.aquatica.events import Event
from benthic.rules.aquatica.evolve import evolve
from benthic.rules.aquatica.prompts import prompt_details, prompt_kind
from benthic.rules.aquatica.state import State
from benthic.rules.aquatica.upcast import UPCASTERS
from benthic.rules.aquatica.viewtypes import AquaticaView
from benthic.rules.core import Engine, FinalScores, GameConfig, Prompt, Secret, reads_no_content
from benthic.rules.presentation import Description


def _prompt(state: State) -> Prompt | None:
    found = prompt_kind(state)
    if found is None:
        return None
    return Prompt(found[0], found[1], prompt_details(state, found[0]))


class AquaticaEngine(Engine[State, Command, Event]):
    game_type: ClassVar[str] = "aquatica"
    version: ClassVar[str] = "aquatica-engine/2"
    engine_version: ClassVar[int] = 2
    upcasters = UPCASTERS
    content_packs = PACKS
    # Undo (RULES.md, Undo): the effects of a character already played (resources, payments, locations taken
    # from the open row, recruits from the open row, mantas, depths, goals, scoring a location) reveal nothing;
    # playing a character from the hand shows it, and draws, row refills, scouting, taking cards back, discards
    # from the hand, Kings, Ichthyanders and every turn or end boundary reveal.
    events_revealing_nothing = frozenset({
        "main_action_completed", "resource_gained", "effect_skipped", "effect_resolved", "option_chosen",
        "acquisition_started", "recruit_started", "manta_flipped", "depth_exploited", "payment_completed",
        "location_acquired", "character_recruited", "character_row_shifted", "location_raised",
        "location_fully_risen", "wild_manta_gained", "wild_manta_unavailable", "location_scored", "mantas_readied",
        "card_to_discard", "card_returned_to_hand", "goal_claimed",
    })
    min_seats: ClassVar[int] = setup.MIN_SEATS
    max_seats: ClassVar[int] = setup.MAX_SEATS
    command_type: ClassVar[Any] = Command
    event_type: ClassVar[Any] = Event
    state_type: ClassVar[type] = State
    view_type: ClassVar[Any] = AquaticaView
    # R22 caps a game at 60 rounds; a random 4-player game stays far below this many commands.
    playout_bound: ClassVar[int] = 12_000

    def start(self, config: GameConfig) -> list[Any]:
        return setup.start(config)

    def initial_state(self) -> State:
        return State()

    def evolve(self, state: State, event: Any) -> State:
        return evolve(state, event)

    def decide(self, state: State, seat: int, command: Any) -> list[Any]:
        return deciding.decide(state, seat, command)

    def prompt(self, state: State) -> Prompt | None:
        return _prompt(state)

    @reads_no_content
    def is_over(self, state: State) -> bool:
        return state.phase == "ended"

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        return legal.legal_commands(state, seat)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return views.view(state, seat)

    def redact(self, event: Any, seat: int | None) -> dict[str, Any] | None:
        return views.redact(event, seat)

    def secrets(self, state: State) -> list[Secret]:
        return views.secrets(state)

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return determinize(state, seat, rng)

    def final_scores(self, state: State) -> FinalScores:
        return scoring.final_scores(state)

    def heuristic(self, state: State, seat: int) -> float:
        return scoring.heuristic(state, seat)

    def catalogue(self) -> dict[str, Any]:
        return catalogue(self.version, PACKS.key)  # the pack in use: the default unless switched

    def describe(self, state: State, command: Any, seat: int | None = None) -> Description:
        return describe(state, command, seat)

    def describe_all(self, state: State, commands: Sequence[Any], seat: int | None = None) -> list[Description]:
        return describe_all(state, commands, seat)
