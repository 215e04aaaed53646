"""The Nautilus engine behind the Benthic engine contract (docs/ENGINE_CONTRACT.md)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from benthic.rules import emitter
from benthic.rules.core import (
    Engine,
    FinalScores,
    GameConfig,
    Prompt,
    RuleViolation,
    Secret,
    reads_no_content,
    rng_for,
)
from benthic.rules.nautilus import decide as deciding
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus import views
from benthic.rules.nautilus.catalogue import catalogue
from benthic.rules.nautilus.commands import Command
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.content import PACKS
from benthic.rules.nautilus.describe import cell_id, cell_name, describe, describe_all
from benthic.rules.nautilus.determinize import determinize
from benthic.rules.nautilus.evolve import evolve
from benthic.rules.nautilus.flow import Emitter
from benthic.rules.nautilus.heuristic import heuristic
from benthic.rules.nautilus.legal import legal_commands
from benthic.rules.nautilus.options import parse_options
from benthic.rules.nautilus.scoring import final_scores
from benthic.rules.nautilus.state import State
from benthic.rules.nautilus.upcast import UPCASTERS
from benthic.rules.nautilus.viewtypes import NautilusView
from benthic.rules.presentation import Description, Message


class NautilusEngine(Engine[State, Command, ev.Event]):
    game_type = "nautilus"
    version = "nautilus/2"
    engine_version = 2
    upcasters = UPCASTERS
    content_packs = PACKS
    # Undo (RULES.md, Undo): money, stations, researchers, research tracks and submarines moving on open water are
    # public and certain; finds (revealed, peeked, recovered, removed), Atlantis, assignments, echo, the gorge and
    # every turn, round or end boundary reveal.
    events_revealing_nothing = frozenset({
        "nemo_transferred", "station_bought", "station_built", "stations_returned", "researcher_moved",
        "researcher_placed", "station_activated", "three_chip_moved", "research_track_changed", "sub_launched",
        "sub_moved", "sub_withdrawn", "option_declined",
    })
    min_seats = 2
    max_seats = 4
    command_type = Command
    event_type = ev.Event
    state_type = State
    view_type = NautilusView
    # §6.14: ≤ 230 rounds; per seat and round ≤ 6 Phase-1, 3 Phase-2 and 10 Phase-3 commands, plus ≤ 2
    # sub-prompt commands per recovered chip (60 chips) and one cash_assignment per seat: < 18,000.
    playout_bound = 30_000

    def start(self, config: GameConfig) -> list[Any]:
        n = config.seats
        if n not in C.player_counts:
            raise RuleViolation("invalid_player_count", f"§1.8: Nautilus is for 2 to 4 players, not {n}")
        options = parse_options(config.options, n)
        rng = rng_for(config.seed, 0)
        if options.base_placement == "first_game":
            base = C.first_game_base_anchor
        elif options.base_placement == "random":
            base = rng.choice(C.base_anchors)
        else:
            base = tuple(options.base_placement)  # type: ignore[assignment]
        placements: list[ev.Placement] = []
        for depth in C.depths:
            chips = list(C.chips_by_depth[depth])
            rng.shuffle(chips)
            spaces = [i for i, d in enumerate(C.find_space_depth) if d == depth]
            placements.extend(
                ev.Placement(cell=C.xy(C.find_space_cell[space]), chip=chip, depth=depth)
                for space, chip in zip(spaces, chips, strict=True)
            )
        cards = list(C.card_ids)
        rng.shuffle(cards)
        start_seat = rng.randrange(n) if options.start_seat == "random" else int(options.start_seat)
        counts = C.player_counts[n]
        setup: list[Any] = [
            ev.GameStarted(
                player_count=n,
                seats=tuple(ev.SeatColour(seat=i, colour=C.colours[i]) for i in range(n)),
                options=options,
                base_anchor=base,
                start_seat=start_seat,
                starting_nemo=counts.starting_nemo,
                stacks=dict(C.initial_stacks),
                atlantis_points=tuple(counts.atlantis_points),
                seed=config.seed,
                content=config.content or PACKS.default_ref,
            ),
            ev.SeaFindsDealt(placements=tuple(placements)),
            *(ev.AssignmentDealt(seat=i, card=cards[i]) for i in range(n)),
            ev.RoundStarted(round=1, start_seat=start_seat, final_round=False),
            ev.TurnStarted(round=1, phase=1, seat=start_seat),
        ]
        em: Emitter = emitter.Emitter(self.initial_state(), evolve)
        for event in setup:
            em.emit(event)
        deciding.auto_pass(em)
        return em.events

    def initial_state(self) -> State:
        return State()

    def evolve(self, state: State, event: Any) -> State:
        return evolve(state, event)

    def decide(self, state: State, seat: int, command: Any) -> list[Any]:
        return deciding.decide(state, seat, command)

    def prompt(self, state: State) -> Prompt | None:
        return views.prompt(state)

    @reads_no_content
    def is_over(self, state: State) -> bool:
        return state.ended

    def legal_commands(self, state: State, seat: int) -> list[Any]:
        return legal_commands(state, seat)

    def view(self, state: State, seat: int | None) -> dict[str, Any]:
        return views.view(state, seat)

    def redact(self, event: Any, seat: int | None) -> dict[str, Any] | None:
        return views.redact(event, seat)

    def secrets(self, state: State) -> list[Secret]:
        return views.secrets(state)

    def determinize(self, state: State, seat: int, rng: random.Random) -> State:
        return determinize(state, seat, rng)

    def final_scores(self, state: State) -> FinalScores:
        return final_scores(state)

    def heuristic(self, state: State, seat: int) -> float:
        return heuristic(state, seat)

    def catalogue(self) -> dict[str, Any]:
        return catalogue(self.version, PACKS.key)  # the pack in use: the default unless switched

    def place_names(self) -> Mapping[str, Message | str]:
        return _cell_names()

    def describe(self, state: State, command: Any, seat: int | None = None) -> Description:
        return describe(state, command, seat)

    def describe_all(self, state: State, commands: Sequence[Any], seat: int | None = None) -> list[Description]:
        return describe_all(state, commands, seat)


def _cell_names() -> dict[str, str]:
    """"x,y" -> the cell's name as the sea map's edges write it ("C-14"), for the history's sentences."""
    return {cell_id(C.xy(cell)): cell_name(C.xy(cell)) for cell in range(C.n_cells)}
