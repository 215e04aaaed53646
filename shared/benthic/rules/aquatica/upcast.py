"""Events recorded by earlier engine versions, turned into events of this version (docs/UPGRADES.md).

``UPCASTERS[v]`` turns the JSON form of one event of version ``v`` into its form in version ``v + 1``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.rules.core import Upcaster
from benthic.rules.packs import LEGACY


def v1_to_v2(event: dict[str, Any]) -> dict[str, Any]:
    """Version 2 records the content pack in `game_created` (version 1 games all used the built-in pack
    1.0.0) and adds options whose defaults are the version 1 rules."""
    if event["type"] == "game_created":
        return {**event, "content": msgspec.to_builtins(LEGACY)}
    return event


UPCASTERS: dict[int, Upcaster] = {1: v1_to_v2}
