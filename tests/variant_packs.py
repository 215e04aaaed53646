"""A second content pack per game for the tests: a modified copy of the built-in pack, built on demand.

``build_variant(game, directory)`` copies the built-in pack into ``directory/<game>-variant`` with a new
manifest (id ``test-variant``) and the changes below, each visible in play, and returns the folder.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benthic.rules import get_engine

VARIANT_ID = "test-variant"
VARIANT_VERSION = "2.1.0"


def _nautilus(files: dict[str, Any]) -> None:
    files["tables.json"]["player_counts"]["2"]["starting_nemo"] = 71
    files["tables.json"]["research_station_price"] = 2
    files["assignments.json"]["cards"][0]["id"] = "A1-variant"


def _underwater_cities(files: dict[str, Any]) -> None:
    files["info.json"]["starting_resources"]["credit"] = 9
    files["info.json"]["feeding"]["unfed_city_penalty"] = 5


def _aquatica(files: dict[str, Any]) -> None:
    files["board.json"]["goal_track_points"] = [9, 7, 5, 3, 1]
    files["rulesets.json"]["defaults"]["max_rounds"] = 33
    for location in files["locations.json"]["locations"]:
        location["prosperity"] += 1


CHANGES: dict[str, Callable[[dict[str, Any]], None]] = {
    "nautilus": _nautilus,
    "underwater_cities": _underwater_cities,
    "aquatica": _aquatica,
}

# What a game of the variant shows at once (game, seats) -> check of a fresh spectator view
FIRST_VIEW_CHECKS: dict[str, Callable[[dict[str, Any]], bool]] = {
    "nautilus": lambda view: all(seat["nemo"] == 71 for seat in view["seats"]),
    "underwater_cities": lambda view: all(p["resources"]["credit"] >= 9 for p in view["players"]),
    "aquatica": lambda view: view["rules"]["max_rounds"] == 33,
}


def build_variant(game: str, directory: Path, version: str = VARIANT_VERSION) -> Path:
    packs = get_engine(game).content_packs
    assert packs is not None
    source = packs.builtin.path
    target = directory / f"{game}-{VARIANT_ID}-{version}"
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("archive"))
    files = {name: json.loads((target / name).read_text(encoding="utf-8")) for name in packs.files}
    assert game in CHANGES, f"tests/variant_packs.py: CHANGES has no variant of {game}'s content pack"
    CHANGES[game](files)
    for name, data in files.items():
        (target / name).write_text(json.dumps(data, indent=1), encoding="utf-8")
    manifest = json.loads((target / "pack.json").read_text(encoding="utf-8"))
    manifest.update(id=VARIANT_ID, version=version, title=f"{game}: test variant",
                    licence="Test data derived from Benthic's proposed components.")
    (target / "pack.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
    return target
