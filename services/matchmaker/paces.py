"""The paces a ticket or an invitation asks for: clock presets (paces.json), each the game's ``clock`` option, with
the house bot taking over a seat whose clock runs out (the default ``on_expiry``)."""

from __future__ import annotations

from importlib.resources import files
from typing import Any

import msgspec

from benthic.errors import ApiError

PACES: dict[str, dict[str, Any]] = msgspec.json.decode(files(__package__).joinpath("paces.json").read_bytes())
PLATFORM_KEYS = ("clock", "on_expiry")


def game_options(options: dict[str, Any], pace: str) -> dict[str, Any]:
    """The game's options: the ticket's (the engine's, and ``undo``) with the pace's clock."""
    if pace not in PACES:
        raise ApiError(422, "unknown_pace", f"unknown pace {pace!r}; paces: {', '.join(PACES)}", {"paces": list(PACES)})
    set_by_pace = [k for k in PLATFORM_KEYS if k in options]
    if set_by_pace:
        raise ApiError(422, "invalid_option", f"{', '.join(set_by_pace)}: the pace sets the clock; choose a pace")
    return {**options, "clock": PACES[pace]["clock"]}
