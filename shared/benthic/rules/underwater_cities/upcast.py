"""Events recorded by earlier engine versions, turned into events of this version (docs/UPGRADES.md).

``UPCASTERS[v]`` turns the JSON form of one event of version ``v`` into its form in version ``v + 1``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.rules.core import Upcaster
from benthic.rules.packs import LEGACY


def v1_to_v2(event: dict[str, Any]) -> dict[str, Any]:
    """Version 2 records the content pack in `game_started` (version 1 games all used the built-in pack
    1.0.0).  Its rule change (slot usability counts the matched card resolved first, RULES.md choice 18)
    only accepts more commands: it changes no recorded event."""
    if event["type"] == "game_started":
        return {**event, "content": msgspec.to_builtins(LEGACY)}
    return event


UPCASTERS: dict[int, Upcaster] = {1: v1_to_v2}
