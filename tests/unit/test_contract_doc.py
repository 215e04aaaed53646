"""docs/ENGINE_CONTRACT.md lists exactly the methods and class attributes of ``benthic.rules.core.Engine``,
with their parameters, so the document cannot drift from the class."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from benthic.rules.core import Engine

DOC = Path(__file__).resolve().parents[2] / "docs" / "ENGINE_CONTRACT.md"
ROW = re.compile(r"^\| `(?P<name>\w+)(?:\((?P<params>[^)]*)\))?` \|", re.M)


def _section(title: str) -> str:
    text = DOC.read_text(encoding="utf-8")
    start = text.index(f"### {title}")
    end = text.find("\n#", start + 1)
    return text[start : end if end != -1 else None]


def _rows(title: str) -> dict[str, tuple[str, ...] | None]:
    """name -> parameter names (None for a row without parentheses: an attribute or a property)."""
    rows: dict[str, tuple[str, ...] | None] = {}
    for m in ROW.finditer(_section(title)):
        params = m.group("params")
        rows[m.group("name")] = None if params is None else tuple(p.strip() for p in params.split(",") if p.strip())
    return rows


def _signature(name: str) -> tuple[str, ...] | None:
    member = inspect.getattr_static(Engine, name)
    if isinstance(member, property):
        return None
    return tuple(inspect.signature(member).parameters)[1:]  # without self


def _public_members() -> set[str]:
    return {
        name
        for name, member in vars(Engine).items()
        if not name.startswith("_") and (callable(member) or isinstance(member, property))
    }


def test_abstract_methods_table_matches_the_class() -> None:
    rows = _rows("Abstract methods")
    assert set(rows) == set(Engine.__abstractmethods__)
    for name, params in rows.items():
        assert params == _signature(name), name


def test_shared_methods_table_matches_the_class() -> None:
    rows = _rows("Shared by the base class")
    assert set(rows) == _public_members() - set(Engine.__abstractmethods__)
    for name, params in rows.items():
        assert params == _signature(name), name


def test_class_attributes_table_matches_the_class() -> None:
    rows = _rows("Class attributes")
    annotated = {name for name, hint in Engine.__annotations__.items() if "ClassVar" in str(hint)}
    assert set(rows) == annotated
    assert all(params is None for params in rows.values())
