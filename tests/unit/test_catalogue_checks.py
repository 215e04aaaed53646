"""The structural checks of catalogues and the load-time checks of the layout data: broken data is refused
with a message naming what is wrong."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from benthic.rules import get_engine
from benthic.rules.presentation import CatalogueError, check_catalogue, generic_description, named_ids_in


def _catalogue() -> dict[str, Any]:
    return copy.deepcopy(get_engine("underwater_cities").catalogue())


@pytest.mark.parametrize(("break_it", "message"), [
    (lambda c: c["components"]["c017"].update(text=""), "an effect needs a text"),
    (lambda c: c["components"]["c017"].update(name=""), "needs a name"),
    (lambda c: c["components"]["c017"].update(id="c018"), "differs from its key"),
    (lambda c: c["boards"]["main_side_34"]["spaces"]["G2"].update(x=220), "overlap"),
    (lambda c: c["boards"]["main_side_34"]["spaces"]["G2"].update(x=5000), "outside the view_box"),
    (lambda c: c["boards"]["main_side_34"]["spaces"].update(c017={**c["boards"]["main_side_34"]["spaces"]["G1"],
                                                                   "id": "c017", "y": 300}), "also a component"),
    (lambda c: c["boards"]["player_board_1"]["connections"].append({"a": "C12", "b": "nowhere"}), "unknown spaces"),
    (lambda c: c["tracks"]["era"]["spaces"].append(c["tracks"]["era"]["spaces"][0]), "distinct ids"),
    (lambda c: c["options"][0].pop("values"), "values"),
    (lambda c: c.pop("terms"), "section 'terms'"),
])
def test_broken_catalogues_are_refused(break_it: Any, message: str) -> None:
    catalogue = _catalogue()
    check_catalogue(catalogue)
    break_it(catalogue)
    with pytest.raises(CatalogueError, match=message):
        check_catalogue(catalogue)


def test_a_board_of_another_kind_may_not_reuse_a_space_id() -> None:
    catalogue = _catalogue()
    catalogue["boards"]["player_board_1"]["spaces"]["AA"] = {
        **catalogue["boards"]["player_board_1"]["spaces"]["C12"], "id": "AA", "x": 40, "y": 40, "w": 10, "h": 10}
    with pytest.raises(CatalogueError, match="space of a main_board board"):
        check_catalogue(catalogue)


def _broken_layout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: Any, edit: Any) -> None:
    """The module's content directory, copied with a broken layout.json, in place of the real one."""
    monkeypatch.undo()
    shutil.copytree(module.CONTENT_DIR, tmp_path / "content")
    layout = json.loads((tmp_path / "content" / "layout.json").read_text())
    edit(layout)
    (tmp_path / "content" / "layout.json").write_text(json.dumps(layout))
    monkeypatch.setattr(module, "CONTENT_DIR", tmp_path / "content")


def test_layouts_are_checked_against_the_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benthic.rules.underwater_cities import catalogue as uc_catalogue
    from benthic.rules.underwater_cities import content as uc_content

    _broken_layout(tmp_path, monkeypatch, uc_content, lambda lay: lay["main_board"]["slots"].pop("Y5"))
    with pytest.raises(CatalogueError, match=r"slots \['Y5'\] of side_\w+ have no position"):
        uc_catalogue.load_layout(uc_content.content())
    _broken_layout(tmp_path / "2", monkeypatch, uc_content, lambda lay: lay["player_board"]["building_offsets"]
                   .pop("4"))
    with pytest.raises(CatalogueError, match="no offset for building site"):
        uc_catalogue.load_layout(uc_content.content())


def test_nautilus_and_aquatica_layouts_are_checked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from benthic.rules.aquatica import catalogue as aq_catalogue
    from benthic.rules.aquatica import content as aq_content
    from benthic.rules.nautilus import catalogue as na_catalogue
    from benthic.rules.nautilus import content as na_content

    _broken_layout(tmp_path / "n", monkeypatch, na_content, lambda lay: lay["supply"]["stacks"].pop("echo"))
    with pytest.raises(CatalogueError, match="a supply position for each stack"):
        na_catalogue.load_layout(na_content.CONTENT)
    _broken_layout(tmp_path / "a", monkeypatch, aq_content, lambda lay: lay["player_board"].pop("king"))
    with pytest.raises(CatalogueError, match="layout.json"):
        aq_catalogue.load_layout()


def test_raw_ids_and_generic_labels() -> None:
    named = {"c017": "Small Grant", "G1": "G1"}
    assert named_ids_in("Play c017 on G3.", named) == ["c017"]
    assert named_ids_in("Play Small Grant on G3", named) == []
    assert generic_description("play_card", {"type": "play_card", "card": "k7"}).label == 'Play card: card "k7"'
    assert len(generic_description("x", {"type": "x", "a": "y" * 500}).label) == 120
