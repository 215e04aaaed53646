"""Content data (spec §3): component counts, the §3.3 check totals, the effect vocabulary, load-time checks."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest

from benthic.rules.aquatica.content import CONTENT_DIR, Catalog, ContentError
from benthic.rules.aquatica.effects import Empty, Gain, Raise, effect_name
from tests.unit.aquatica.helpers import CAT

LOCATIONS = list(CAT.locations.values())


def depth_code(depth: object) -> str:
    if isinstance(depth, Gain):
        code = f"{depth.amount}{depth.resource[0]}"
        if depth.only_for_type:
            code += "[" + {"shark_bay": "SB", "sunken_ships": "SS", "ocean_volcanoes": "OV",
                           "decayed_civilizations": "DC"}[depth.only_for_type] + "]"
        return code
    if isinstance(depth, Raise):
        return f"R{depth.amount}"
    return {"score": "SC", "scout": "SCT", "take_back": "TB", "recruit": "RC", "ready_all_mantas": "RDY",
            "empty": "—"}[effect_name(depth)]  # type: ignore[arg-type]


def test_location_totals_match_spec_check_table() -> None:
    assert len(LOCATIONS) == 56
    assert Counter(loc.id[:2] for loc in LOCATIONS) == {"SB": 14, "SS": 14, "OV": 14, "DC": 14}
    for prefix in ("SB", "SS", "OV", "DC"):
        per_count = Counter(len(loc.depths) for loc in LOCATIONS if loc.id.startswith(prefix))
        assert per_count == {0: 1, 1: 2, 2: 4, 3: 4, 4: 3}, prefix
    assert sum(len(loc.depths) for loc in LOCATIONS) == 136
    mantas = Counter(loc.wild_manta for loc in LOCATIONS if loc.wild_manta)
    assert sum(mantas.values()) == 29
    assert Counter(loc.id[:2] for loc in LOCATIONS if loc.wild_manta) == {"SB": 7, "SS": 7, "OV": 7, "DC": 8}
    assert mantas == {"W_COIN2": 7, "W_POWER2": 7, "W_RAISE1": 6, "W_SCORE": 5, "W_TAKEBACK": 4}
    assert Counter(loc.coin_price for loc in LOCATIONS) == {2: 9, 3: 8, 4: 7, 5: 8, 6: 7, 7: 8, 8: 8, 9: 1}
    assert {loc.power_price for loc in LOCATIONS} == set(range(3, 11))
    assert Counter(loc.prosperity for loc in LOCATIONS) == {1: 9, 2: 14, 3: 7, 4: 10, 5: 15, 6: 1}
    assert sum(loc.prosperity for loc in LOCATIONS) == 179
    icons = Counter(depth_code(d) for loc in LOCATIONS for d in loc.depths)
    assert icons == {
        "—": 20, "2p": 19, "2c": 17, "1c": 14, "R1": 10, "SC": 10, "1p": 8, "TB": 6, "3p": 5, "3c": 5, "RC": 4,
        "R2": 3, "2p[SS]": 3, "2p[OV]": 3, "RDY": 3, "SCT": 2, "2p[SB]": 2, "2p[DC]": 2,
    }


def test_location_price_rules() -> None:
    premium = {"shark_bay": 1, "ocean_volcanoes": 1, "sunken_ships": 2, "decayed_civilizations": 2}
    for loc in LOCATIONS:
        assert loc.power_price == loc.coin_price + premium[loc.type], loc.id
    points_only = [loc.id for loc in LOCATIONS if not loc.depths]
    assert points_only == ["SB01", "SS01", "OV01", "DC01"]
    assert all(CAT.locations[x].wild_manta is None for x in points_only)


def test_spec_example_location_sb09() -> None:
    sb09 = CAT.locations["SB09"]
    assert (sb09.name, sb09.type, sb09.coin_price, sb09.power_price, sb09.prosperity) == (
        "Mako Run", "shark_bay", 6, 7, 4)
    assert [depth_code(d) for d in sb09.depths] == ["1p", "—", "3p"]
    assert sb09.wild_manta == "W_RAISE1" and isinstance(sb09.depths[1], Empty)


def test_characters_kings_and_mantas() -> None:
    assert len(CAT.starting_ids[0]) == 6 and CAT.starting_ids[2][0] == "S2-MATRONA"
    assert len(CAT.ocean_ids) == 27
    assert Counter(mark for _, mark in CAT.ocean_ids) == {None: 9, "A": 9, "O": 9}
    assert CAT.king_ids == tuple(f"K{n}" for n in range(1, 9))
    assert [k for k in CAT.king_ids if CAT.card[k].after_play == "remove_from_game"] == ["K5", "K6"]
    assert {k: CAT.card[k].setup.kind for k in CAT.king_ids if CAT.card[k].setup} == {  # type: ignore[union-attr]
        "K7": "W_COIN2", "K8": "W_POWER2"}
    assert sum(CAT.wild_counts) == 31 and dict(zip(CAT.wild_kinds, CAT.wild_counts, strict=True)) == {
        "W_COIN2": 8, "W_POWER2": 8, "W_RAISE1": 6, "W_SCORE": 5, "W_TAKEBACK": 4}
    assert CAT.trained_ids[3] == ("T3-C2", "T3-C1", "T3-P2", "T3-P1")
    conquer_templates = {CAT.card[c].id for c in CAT.conquer_cards}
    assert conquer_templates == {"LEGIONARY", "SEAHORSE", "GRABBER", "MANTAS_LEADER", "MEG", "BARRACUDA_RIDER",
                                 "K1", "K2", "K6"}


def test_goals_and_tokens() -> None:
    assert CAT.goal_data.printed.first == ("G_HAND10", "G_SAMETYPE4", "G_SCORED3", "G_TIRED5")
    assert CAT.goal_data.printed.updated == ("G_HAND8", "G_BOARD5", "G_SCORED3", "G_WILD2")
    sides = [g for t in CAT.tokens.values() for g in (t.front, t.back)]
    assert len(sides) == len(set(sides)) == 12


def _broken_copy(tmp_path: Path, name: str, edit) -> Path:  # type: ignore[no-untyped-def]
    target = tmp_path / "content"
    shutil.copytree(CONTENT_DIR, target)
    data = json.loads((target / name).read_text())
    edit(data)
    (target / name).write_text(json.dumps(data))
    return target


@pytest.mark.parametrize(("name", "edit", "message"), [
    ("locations.json", lambda d: d["locations"].pop(), "56 Locations"),
    ("locations.json", lambda d: d["locations"][1]["depths"].append({"type": "buy"}), "cannot be a Depth"),
    ("locations.json", lambda d: d["locations"][1].update(wild_manta="W_NOPE"), "unknown Wild Manta"),
    ("locations.json", lambda d: d["locations"][1].update(extra=1), "unknown field"),
    ("mantas.json", lambda d: d["kinds"][4].update(count=9), "31 Wild Mantas"),
    ("characters.json", lambda d: d["characters"].pop(), "Kings numbered"),
    ("goals.json", lambda d: d["tokens"][0].update(back="G_SAMETYPE4"), "12 distinct"),
    ("board.json", lambda d: d.update(goal_track_points=[1, 2, 3, 4, 5]), "decreasing"),
    ("solo.json", lambda d: d["ranks"]["first"][1].update(min=22), "contiguous"),
])
def test_load_time_checks_reject_bad_content(tmp_path: Path, name: str, edit, message: str) -> None:  # type: ignore[no-untyped-def]
    Catalog(CONTENT_DIR)  # the shipped data passes
    with pytest.raises(ContentError, match=message):
        Catalog(_broken_copy(tmp_path, name, edit))
