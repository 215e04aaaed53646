"""docs/LAYOUT.md names every module (``.py``, ``.lua``, ``.json``) of each folder of ``shared/benthic`` and of each
service, in that folder's block, and names none that does not exist: a new module fails here until the map says what
it is.  (The games' own packages are not listed module by module: docs/ENGINE_CONTRACT.md describes them.)"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "LAYOUT.md"
SUFFIXES = (".py", ".lua", ".json")
FOLDERS = sorted(
    [p for p in (ROOT / "shared" / "benthic").iterdir() if (p / "__init__.py").exists()]
    + [p for p in (ROOT / "services").iterdir() if (p / "__init__.py").exists()]
)
NAME = re.compile(r"\b([a-z_0-9]+\.(?:py|lua|json))\b")


def blocks() -> dict[str, str]:
    """The text of each folder's block: from its ``name/`` at the start of a line to the next such line."""
    found: dict[str, str] = {}
    current = None
    for line in DOC.read_text().splitlines():
        head = re.match(r"^([a-z_0-9]+)/\s", line)
        if head:
            current = head[1]
            found[current] = ""
        elif line.startswith(("```", "#")) or re.match(r"^\S", line):
            current = None
        if current:
            found[current] += line + "\n"
    return found


BLOCKS = blocks()


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_module_of_the_folder_is_named(folder: Path) -> None:
    block = BLOCKS.get(folder.name)
    assert block is not None, f"{DOC.name} has no block for {folder.relative_to(ROOT)}/"
    modules = {p.name for p in folder.iterdir() if p.suffix in SUFFIXES and p.name != "__init__.py"}
    missing = sorted(modules - set(NAME.findall(block)))
    assert not missing, f"{DOC.name}: {folder.name}/ does not name {missing}"
    unknown = sorted(set(NAME.findall(block)) - modules - {"__init__.py"})
    assert not unknown, f"{DOC.name}: {folder.name}/ names modules it does not have: {unknown}"


def test_the_top_level_modules_are_named() -> None:
    text = DOC.read_text()
    for module in sorted(p.name for p in (ROOT / "shared" / "benthic").glob("*.py") if p.name != "__init__.py"):
        assert re.search(rf"^{re.escape(module)}\s", text, re.MULTILINE), f"{DOC.name} does not name {module}"
