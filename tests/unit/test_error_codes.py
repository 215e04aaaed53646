"""The error codes: every code the services' source can answer is listed in benthic.errors (so routes can
declare it and the OpenAPI documents it), and docs/ERRORS.md lists every one with its status."""

from __future__ import annotations

import re
from pathlib import Path

from benthic.errors import ERROR_CODES, RULE

ROOT = Path(__file__).resolve().parents[2]
# Every module of the services and of the whole shared package, its subpackages included (service/, trust/, game/,
# ...): a flat glob of shared/benthic/*.py once checked only cli.py there.
SOURCES = sorted([*(ROOT / "services").rglob("*.py"), *(ROOT / "shared" / "benthic").rglob("*.py")])
# Where the source spells a refusal: ApiError(status, "code", ...) (the status a number or HTTP_<nnn>_...),
# unauthorized("code", ...), an IdentityError/TokenError code, the HTTP fallbacks of benthic.service.http.
PATTERNS = (
    re.compile(r"ApiError\(\s*(?:HTTP_)?(\d{3})(?:_[A-Z_]+)?,\s*\"([a-z_]+)\""),
    re.compile(r"unauthorized\(\s*\"([a-z_]+)\""),
    re.compile(r"IdentityError\(\s*\"([a-z_]+)\""),
    re.compile(r"TokenError\([^)]*\"([a-z_]+)\"\)"),
    re.compile(r"_error\(\s*(\d{3}),\s*\"([a-z_]+)\""),
    re.compile(r"^\s+(\d{3}), \"([a-z_]+)\",$", re.MULTILINE),  # ApiError(\n    503, "code",
)
# Sites the scan must find, in the subpackages a flat glob missed: (file, status or None, code).
KNOWN_SITES = {
    ("shared/benthic/service/http.py", "503", "durability_unconfirmed"),
    ("shared/benthic/errors.py", "503", "store_unavailable"),
    ("shared/benthic/service/http.py", "500", "internal_error"),
    ("shared/benthic/service/http.py", "400", "body_too_deep"),
    ("shared/benthic/trust/auth.py", None, "token_revoked"),
    ("shared/benthic/trust/auth.py", "403", "wrong_seat"),
    ("shared/benthic/trust/identity.py", None, "identity_provider_unavailable"),
    ("shared/benthic/trust/ratelimit.py", "429", "rate_limited"),
    ("services/command/seating.py", "400", "unknown_bot"),
    ("services/projection/app.py", "503", "too_many_live_clients"),
    ("shared/benthic/service/admission.py", "503", "overloaded"),
}
# Refusal sites found (file, line, groups) when this was written: 89 in 168 modules; the flat glob of shared/benthic
# this replaced found 57 in 35 modules, none of them in the shared package.
AT_LEAST_SITES = 80


def _refusal_sites() -> list[tuple[str, int, tuple[str, ...]]]:
    sites = []
    for source in SOURCES:
        text = source.read_text()
        for pattern in PATTERNS:
            for match in pattern.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                sites.append((source.relative_to(ROOT).as_posix(), line, match.groups()))
    return sites


def test_every_code_in_the_source_is_listed() -> None:
    listed = {(e.status, e.code) for e in ERROR_CODES}
    codes = {e.code for e in ERROR_CODES}
    sites = _refusal_sites()
    unlisted = [
        f"{path}:{line} {groups}" for path, line, groups in sites
        if ((int(groups[0]), groups[1]) not in listed if len(groups) == 2 else groups[0] not in codes)
    ]
    assert not unlisted, f"codes answered but not listed in benthic.errors: {unlisted}"
    found = {(path, groups[0] if len(groups) == 2 else None, groups[-1]) for path, _, groups in sites}
    assert KNOWN_SITES <= found, f"the scan no longer finds {sorted(KNOWN_SITES - found, key=str)}"
    assert len(sites) >= AT_LEAST_SITES, f"only {len(sites)} refusal sites found"


def test_the_errors_page_lists_every_code_with_its_status() -> None:
    page = (ROOT / "docs" / "ERRORS.md").read_text()
    rows = set(re.findall(r"^\| (\d{3}) \| `([a-z_]+)` \|", page, flags=re.MULTILINE))
    expected = {(str(e.status), e.code) for e in ERROR_CODES if e.code != RULE}
    assert rows == expected, (rows - expected, expected - rows)
    assert "| 422 | *the rule's code* |" in page
