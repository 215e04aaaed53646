"""Content loading (spec §3): every file decodes into the Structs of the effect vocabulary, the exact counts
and the load-time checks hold, and a broken file is refused with a ContentError naming the problem."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from benthic.rules.underwater_cities import content as content_module
from benthic.rules.underwater_cities.content import ContentError, check_card_counts, content, load_content
from benthic.rules.underwater_cities.effects import STRUCTURE_KINDS, All, BuildUpgrade, UseAction


def test_content_loads_with_exact_counts() -> None:
    data = content()
    assert len([c for c in data.cards.values() if c.deck == "era1"]) == 66
    assert len(data.era_decks[2]) == 57 and len(data.era_decks[3]) == 57
    assert len(data.specials_three) == 10 and len(data.specials_one_two) == 15
    assert "PA" in data.cards
    assert sorted(data.boards) == list(range(1, 9))
    assert len(data.metropolises) == 16 and len(data.contracts) == 8
    assert set(data.sides) == {"side_34", "side_2"} and all(len(s) == 16 for s in data.sides.values())
    check_card_counts(tuple(data.cards.values()))


def test_slot_effects_are_the_spec_dsl() -> None:
    data = content()
    a1 = data.slot_effects["A1"]
    assert a1 == All(parts=(UseAction(1), BuildUpgrade(kinds=STRUCTURE_KINDS)))
    assert data.sides["side_34"]["R1"].code == "A1" and data.sides["side_2"]["R1"].code == "A19"
    assert data.sides["side_2"]["R4"].code == "A3"


def test_basic_boards_share_the_bonus_multiset() -> None:
    data = content()
    multisets = []
    for board_id in (1, 2, 3, 4):
        rec = data.board_records[board_id]
        bonuses = sorted(x.bonus for x in (*rec.city_sites, *rec.tunnel_sites, *rec.building_sites) if x.bonus)
        multisets.append(bonuses)
    assert all(m == multisets[0] for m in multisets) and len(multisets[0]) == 9


def test_card_counts_check_rejects_a_missing_card() -> None:
    cards = tuple(c for c in content().cards.values() if c.id != "c001")
    with pytest.raises(ContentError, match="era1"):
        check_card_counts(cards)


def _copy(tmp_path: Path) -> Path:
    target = tmp_path / "content"
    shutil.copytree(content_module.CONTENT_DIR, target)
    return target


def _mutate(tmp_path: Path, name: str, change: Callable[[Any], None]) -> Path:
    target = _copy(tmp_path)
    data = json.loads((target / name).read_text())
    change(data)
    (target / name).write_text(json.dumps(data))
    return target


def _two_starts(d: Any) -> None:
    d["boards"][0]["city_sites"][0]["start"] = True


def _one_brown_tunnel(d: Any) -> None:
    d["boards"][2]["tunnel_sites"] = [t for t in d["boards"][2]["tunnel_sites"] if t["id"] != "T:C21-MB"]


def _unknown_op(d: Any) -> None:
    d["cards"][1]["effect"] = {"op": "teleport", "n": 1}


def _upgrade_a_city(d: Any) -> None:
    d["cards"][1]["effect"] = {"op": "upgrade", "kinds": ["city"], "n": 1}


def _four_green(d: Any) -> None:
    d["sides"]["side_2"]["slots"][5]["colour"] = "green"


def _drop_card(d: Any) -> None:
    d["cards"] = [c for c in d["cards"] if c["id"] != "c050"]


def _bad_quantity(d: Any) -> None:
    d["tiles"][0]["end_scoring"]["q"] = {"q": "connected_buildings"}


@pytest.mark.parametrize(("name", "change", "match"), [
    ("player_boards.json", _two_starts, "exactly one start site"),
    ("player_boards.json", _one_brown_tunnel, "MB needs 2 tunnel sites"),
    ("cards.json", _unknown_op, "cards.json"),
    ("cards.json", _upgrade_a_city, "only structures are upgraded"),
    ("cards.json", _drop_card, "era1"),
    ("main_board.json", _four_green, "5 slots per colour"),
    ("metropolises.json", _bad_quantity, "connected_buildings"),
])
def test_broken_content_is_refused(tmp_path: Path, name: str, change: Callable[[Any], None], match: str) -> None:
    target = _mutate(tmp_path, name, change)
    with pytest.raises(ContentError, match=match):
        load_content(target)
