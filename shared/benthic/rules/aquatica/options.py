"""Game options (spec §4 configuration, §9.1 rule flags): a printing preset plus individual overrides,
resolved into the ``Rules`` every game state carries."""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from benthic.rules.aquatica.content import catalog
from benthic.rules.core import RuleViolation


class GoalTokenChoice(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A goal token the players put on a goal track, and its side (spec §11 Q8)."""

    token: str
    side: Literal["front", "back"]


class Rules(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """The resolved flags of one game (§9.1, and the open alternatives of §11 as options)."""

    printing: Literal["first", "updated"] = "first"
    printed_goals: Literal["first", "updated"] = "first"
    scout_rule: Literal["first", "updated"] = "first"
    matrona_never_discarded: bool = False
    two_player_matrona_row_discard: bool = False
    solo_trigger: Literal["matrona", "matrona_or_scout"] = "matrona"
    solo_ranks: Literal["first", "updated"] = "first"
    mode: Literal["basic", "advanced"] = "basic"
    variable_goals: bool = False
    king_draft: bool = False
    use_kings: bool = True
    manta_once_per_turn: Literal["resource", "all"] = "resource"
    grabber_typed_chain: bool = False
    first_seat: int | None = None
    max_rounds: Annotated[int, msgspec.Meta(ge=1)] = 60
    components: Literal["first", "updated"] = "first"  # Q4: the printing's Ocean sets and goal tokens
    healer_replays: bool = False  # Q2: the Healer replays a discarded card instead of taking it back (R29)
    goal_tokens: tuple[GoalTokenChoice, ...] = ()  # Q8: the players' 4 goal tokens, in track order


OPTION_NAMES = frozenset(Rules.__struct_fields__)


def resolve_options(options: dict[str, Any], seats: int) -> Rules:
    """The Rules of a new game: defaults < the `printing` preset < `mode` < explicit flags (§9.1)."""
    unknown = sorted(set(options) - OPTION_NAMES)
    if unknown:
        raise RuleViolation("invalid_flag", f"§9.1: unknown option(s) {unknown}; known: {sorted(OPTION_NAMES)}")
    data = catalog().rulesets
    printing = options.get("printing", data.default_preset)
    if not isinstance(printing, str) or printing not in data.presets:
        raise RuleViolation("invalid_flag", f"§9.1: printing must be one of {sorted(data.presets)}, not {printing!r}")
    merged: dict[str, Any] = msgspec.to_builtins(data.defaults)
    merged.update(msgspec.to_builtins(data.presets[printing]))
    merged["printing"] = printing
    if options.get("mode") == "advanced":  # §9.1: `advanced` sets both flags; an explicit flag still wins
        merged.update(variable_goals=True, king_draft=True)
    merged.update(options)
    try:
        rules = msgspec.convert(merged, Rules, strict=True)
    except msgspec.ValidationError as exc:
        raise RuleViolation("invalid_flag", f"§9.1: {exc}") from None
    if rules.first_seat is not None and not 0 <= rules.first_seat < seats:
        raise RuleViolation("invalid_flag", f"§4 step 1 / R28: first_seat must be a seat 0..{seats - 1}")
    if rules.goal_tokens:
        _check_goal_tokens(rules)
    return rules


def _check_goal_tokens(rules: Rules) -> None:
    """§11 Q8: the players choose 4 distinct tokens of their printing's components, for Advanced goals."""
    rule = "§11 Q8 goal_tokens"
    if not rules.variable_goals:
        raise RuleViolation("invalid_flag", f"{rule}: chosen goal tokens need variable goals (mode advanced)")
    available = catalog().setup.components[rules.components].goal_tokens
    tokens = [choice.token for choice in rules.goal_tokens]
    tracks = catalog().board.goal_tracks
    if len(tokens) != tracks or len(set(tokens)) != tracks or not set(tokens) <= set(available):
        raise RuleViolation("invalid_flag", f"{rule}: {tracks} distinct tokens of {sorted(available)}, "
                                            f"each with its side, not {tokens}")
