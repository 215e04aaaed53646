"""Write docs/OPERATIONS.md's table "What follows what" from benthic.feed.system (tests/unit/test_system.py checks
it): ``python scripts/system_table.py``."""

from __future__ import annotations

from pathlib import Path

from benthic.feed.system import markdown

DOC = Path(__file__).resolve().parents[1] / "docs" / "OPERATIONS.md"
BEGIN = "<!-- the system table: written by scripts/system_table.py from shared/benthic/feed/system.py -->"
END = "<!-- end of the system table -->"


def rendered(text: str) -> str:
    head, rest = text.split(BEGIN, 1)
    _old, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{markdown()}{END}{tail}"


if __name__ == "__main__":
    DOC.write_text(rendered(DOC.read_text()))
