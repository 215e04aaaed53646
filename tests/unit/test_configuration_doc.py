"""docs/CONFIGURATION.md documents every field of ``benthic.runtime.config.Settings`` exactly once, by the variable
``from_env`` reads it from, with the default the field has; and every variable its tables name is a setting, or is
listed under "Other environment variables" (those that are not fields of Settings).  So the table cannot drift
from the code again: a new field fails here until it has its row, a removed one until its row goes."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import msgspec
import pytest

from benthic.runtime.config import Settings, from_env

DOC = Path(__file__).resolve().parents[2] / "docs" / "CONFIGURATION.md"
OTHER = "## Other environment variables"
ROW = re.compile(r"^\| `([A-Z0-9_]+)`(?: / `([A-Z0-9_]+)`)? \| ([^|]*) \| (.+) \|$")
FIELDS = {field.name: field for field in msgspec.structs.fields(Settings)}


def variable(name: str) -> str:
    """The environment variable ``from_env`` reads a field from."""
    return "REDIS_URL" if name == "redis_url" else f"BENTHIC_{name.upper()}"


def rows(text: str) -> list[tuple[str, str, str]]:
    """(variable, default cell, section) of every row of every table, a row naming two variables counted twice."""
    found: list[tuple[str, str, str]] = []
    section = ""
    for line in text.splitlines():
        if line.startswith("## "):
            section = line
        if line.startswith("| `"):
            match = ROW.match(line)
            assert match, f"a table row of {DOC.name} that is not | `VARIABLE` | default | meaning |: {line[:80]}"
            found.extend((name, match[3].strip(), section) for name in match.groups()[:2] if name)
    return found


DOCUMENTED = rows(DOC.read_text())
SETTING_ROWS = {name: default for name, default, section in DOCUMENTED if section != OTHER}


def test_every_setting_is_documented_exactly_once() -> None:
    counts = Counter(name for name, _, _ in DOCUMENTED)
    twice = sorted(name for name, count in counts.items() if count > 1)
    assert not twice, f"documented more than once in {DOC.name}: {twice}"
    missing = sorted(variable(name) for name in FIELDS if variable(name) not in SETTING_ROWS)
    assert not missing, f"settings of benthic.runtime.config.Settings missing from {DOC.name}: {missing}"


def test_every_documented_setting_exists() -> None:
    known = {variable(name) for name in FIELDS}
    unknown = sorted(set(SETTING_ROWS) - known)
    assert not unknown, f"{DOC.name} names what Settings lacks (list those under {OTHER!r}): {unknown}"
    others = sorted(name for name, _, section in DOCUMENTED if section == OTHER and name in known)
    assert not others, f"fields of Settings listed under {OTHER!r}: {others}"


def test_the_documented_variables_are_the_ones_read() -> None:
    """The names are not only spelt like settings: setting each documented variable changes its field."""
    for name, field in FIELDS.items():
        default = field.default
        if isinstance(default, bool):
            raw, expected = ("false", False) if default else ("true", True)
        elif isinstance(default, int | float):
            raw, expected = "7", type(default)(7)
        elif isinstance(default, str):
            raw, expected = "documented-value", "documented-value"
        else:  # token_keys, content_dirs: parsed values
            continue
        settings = from_env({variable(name): raw})
        assert getattr(settings, name) == expected, f"{variable(name)}={raw} did not set Settings.{name}"


def _default(cell: str) -> str | None:
    """The default a cell states: its first code span, or None for an empty default (a cell starting with —)."""
    if cell.startswith("—"):
        return None
    span = re.match(r"`([^`]*)`", cell)
    assert span, f"a default that is neither `value` nor —: {cell!r}"
    return span[1]


@pytest.mark.parametrize("name", sorted(FIELDS))
def test_the_documented_default_is_the_fields(name: str) -> None:
    default = FIELDS[name].default
    assert variable(name) in SETTING_ROWS, f"{variable(name)} is not documented in {DOC.name}"
    stated = _default(SETTING_ROWS[variable(name)])
    if stated is None:
        assert default in ("", ()), f"{variable(name)}: documented as empty, but its default is {default!r}"
    elif isinstance(default, bool):
        assert stated == str(default).lower(), f"{variable(name)}: documented {stated}, default {default}"
    elif isinstance(default, int | float):
        assert type(default)(stated) == default, f"{variable(name)}: documented {stated}, default {default}"
    else:
        assert stated == default, f"{variable(name)}: documented {stated!r}, default {default!r}"
