"""§4.1: the game's options by their spec names, and their validation at start."""

from __future__ import annotations

from typing import Any

from benthic.rules.core import RuleViolation
from benthic.rules.nautilus import events as ev
from benthic.rules.nautilus.content import CONTENT as C

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
