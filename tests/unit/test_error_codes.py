"""The error codes: every code the services' source can answer is listed in benthic.service.errorcodes (so routes can
declare it and the OpenAPI documents it), and docs/ERRORS.md lists every one with its status."""

from __future__ import annotations

import re
from pathlib import Path

from benthic.service.errorcodes import ERROR_CODES, RULE

ROOT = Path(__file__).resolve().parents[2]
SOURCES = [*(ROOT / "services").rglob("*.py"), *(ROOT / "shared" / "benthic").glob("*.py")]
# Where the source spells a refusal: ApiError(status, "code", ...), unauthorized("code", ...), an
# IdentityError/TokenError code, the HTTP fallbacks of benthic.service.http.
PATTERNS = (
    re.compile(r"ApiError\(\s*(\d{3}),\s*\"([a-z_]+)\""),
    re.compile(r"unauthorized\(\s*\"([a-z_]+)\""),
    re.compile(r"IdentityError\(\s*\"([a-z_]+)\""),
    re.compile(r"TokenError\([^)]*\"([a-z_]+)\"\)"),
    re.compile(r"_error\(\s*(\d{3}),\s*\"([a-z_]+)\""),
)


def test_every_code_in_the_source_is_listed() -> None:
    listed = {(e.status, e.code) for e in ERROR_CODES}
    codes = {e.code for e in ERROR_CODES}
    found = set()
    for source in SOURCES:
        text = source.read_text()
        for pattern in PATTERNS:
            for match in pattern.finditer(text):
                groups = match.groups()
                found.add((source.name, *groups))
                if len(groups) == 2:
                    assert (int(groups[0]), groups[1]) in listed, (source, groups)
                else:
                    assert groups[0] in codes, (source, groups)
    assert len(found) > 30


def test_the_errors_page_lists_every_code_with_its_status() -> None:
    page = (ROOT / "docs" / "ERRORS.md").read_text()
    rows = set(re.findall(r"^\| (\d{3}) \| `([a-z_]+)` \|", page, flags=re.MULTILINE))
    expected = {(str(e.status), e.code) for e in ERROR_CODES if e.code != RULE}
    assert rows == expected, (rows - expected, expected - rows)
    assert "| 422 | *the rule's code* |" in page
