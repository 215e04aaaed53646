"""The Nautilus engine behind the Benthic engine contract (docs/ENGINE_CONTRACT.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from benthic.rules.core import Engine, FinalScores, GameConfig, Prompt, RuleViolation, Secret, rng_for
from benthic.rules.nautilus import decide as deciding
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus import views
from benthic.rules.nautilus.catalogue import catalogue
from benthic.rules.nautilus.commands import Command
from benthic.rules.nautilus.content import CONTENT as C
from benthic.rules.nautilus.describe import describe, describe_all
from benthic.rules.nautilus.evolve import evolve
from benthic.rules.nautilus.flow import Emitter
from benthic.rules.nautilus.heuristic import heuristic
from benthic.rules.nautilus.legal import legal_commands
from benthic.rules.nautilus.scoring import final_scores
from benthic.rules.nautilus.state import State
from benthic.rules.presentation import Description

OPTION_CHOICES: dict[str, tuple[Any, ...]] = {
    "allow_withdraw_in_place": (True, False),
    "tiebreak": ("shared", "most_nemo"),
    "assignment_cashing": ("prompt", "auto_optimal"),
    "auto_pass": (True, False),
}


def parse_options(raw: dict[str, Any], seats: int) -> ev.Options:
    """§4.1: every option by its spec name; anything else is ``invalid_option``."""
    unknown = sorted(set(raw) - set(ev.Options.__struct_fields__))
    if unknown:
        raise RuleViolation("invalid_option", f"§4.1: unknown options {unknown}")
    for name, allowed in OPTION_CHOICES.items():
        if name in raw and not any(type(raw[name]) is type(a) and raw[name] == a for a in allowed):
            raise RuleViolation("invalid_option", f"§4.1: {name} must be one of {list(allowed)}")
    base = raw.get("base_placement", "first_game")
    if base not in ("first_game", "random"):
        if (
            not isinstance(base, (list, tuple))
            or len(base) != 2
            or not all(type(v) is int for v in base)
            or tuple(base) not in C.base_anchors
        ):
            raise RuleViolation(
                "invalid_option",
                f"§4.1: base_placement is first_game, random or an all-Lagoon anchor, not {base!r}",
            )
        base = (base[0], base[1])
    start = raw.get("start_seat", "random")
    if start != "random" and not (type(start) is int and 0 <= start < seats):
        raise RuleViolation("invalid_option", f"§4.1: start_seat is random or 0..{seats - 1}, not {start!r}")
    return ev.Options(
        base_placement=base,
        start_seat=start,
        **{name: raw.get(name, getattr(ev.Options(), name)) for name in OPTION_CHOICES},
    )


class NautilusEngine(Engine):
    game_type = "nautilus"
    version = "nautilus/1"
    min_seats = 2
    max_seats = 4
    command_type = Command
    event_type = ev.Event
    state_type = State
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
        placements = []
        for depth in C.depths:
            chips = list(C.chips_by_depth[depth])
            rng.shuffle(chips)
            spaces = [i for i, d in enumerate(C.find_space_depth) if d == depth]
            placements.extend(
                ev.Placement(cell=C.xy(C.find_space_cell[space]), chip=chip)
                for space, chip in zip(spaces, chips)
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
            ),
            ev.SeaFindsDealt(placements=tuple(placements)),
            *(ev.AssignmentDealt(seat=i, card=cards[i]) for i in range(n)),
            ev.RoundStarted(round=1, start_seat=start_seat, final_round=False),
            ev.TurnStarted(round=1, phase=1, seat=start_seat),
        ]
        em = Emitter(self.initial_state())
        for event in setup:
            em(event)
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

    def final_scores(self, state: State) -> FinalScores:
        return final_scores(state)

    def heuristic(self, state: State, seat: int) -> float:
        return heuristic(state, seat)

    def catalogue(self) -> dict[str, Any]:
        return catalogue(self.version)

    def describe(self, state: State, command: Any, seat: int | None = None) -> Description:
        return describe(state, command, seat)

    def describe_all(self, state: State, commands: Sequence[Any], seat: int | None = None) -> list[Description]:
        return describe_all(state, commands, seat)
