"""Events recorded by earlier engine versions, turned into events of this version (docs/UPGRADES.md).

``UPCASTERS[v]`` turns the JSON form of one event of version ``v`` into its form in version ``v + 1``.
"""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.rules.core import Upcaster
from benthic.rules.nautilus.content import PACKS, Content
from benthic.rules.packs import LEGACY


def _legacy_depths(placements: list[dict[str, Any]], content: Content) -> list[dict[str, Any]]:
    return [{**p, "depth": content.find_space_depth[content.find_space_at[content.cell(*p["cell"])]]}
            for p in placements]


def v1_to_v2(event: dict[str, Any]) -> dict[str, Any]:
    """Version 2 records the content pack in `game_started` and each find space's depth in placements
    (version 1 games all used the built-in pack 1.0.0).  Its rule change (a Tempo move onto a find ends
    that sub's movement, RULES.md ambiguity 12) changes no recorded event."""
    kind = event["type"]
    if kind == "game_started":
        return {**event, "content": msgspec.to_builtins(LEGACY)}
    if kind == "sea_finds_dealt":
        return {**event, "placements": _legacy_depths(event["placements"], PACKS.get(LEGACY.key))}
    if kind == "game_ended":
        return {**event, "board_revealed": _legacy_depths(event["board_revealed"], PACKS.get(LEGACY.key))}
    return event


UPCASTERS: dict[int, Upcaster] = {1: v1_to_v2}
