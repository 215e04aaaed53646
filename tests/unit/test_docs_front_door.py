"""The README stays a front door (at most 200 lines, none over 160 characters; the reference lives in docs/), and
the README and the pages of docs/ point at things that exist: every relative link names a file of the repository (and,
for a heading anchor of a Markdown page, a heading of that page), and every test, bench, script or source file they
name by path is there (the guarantees table in docs/GUARANTEES.md names the tests that show each promise)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]
GENERATED = ("bench/results/", "tests/artifacts/")  # written by the benches and the tests, not committed
LINK = re.compile(r"\]\(([^)\s]+)\)")
# A path the text names in code: tests/..., bench/..., scripts/..., services/..., shared/..., deploy/..., examples/...
PATH = re.compile(r"`((?:tests|bench|scripts|services|shared|deploy|examples|k8s)/[A-Za-z0-9_./-]+\.[a-z]+)")


def test_the_readme_is_a_front_door() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines: move reference to docs/"
    long = [n for n, line in enumerate(lines, 1) if len(line) > 160]
    assert not long, f"README.md lines over 160 characters: {long}"


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces as hyphens."""
    anchors = set()
    for line in page.read_text().splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"[^\w\- ]", "", title).replace(" ", "-"))
    return anchors


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_links_point_at_what_exists(page: Path) -> None:
    broken = []
    for target in LINK.findall(page.read_text()):
        if re.match(r"[a-z]+:", target):  # http(s), mailto: not ours to check
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in _anchors(file):
            broken.append(target)
    assert not broken, f"{page.relative_to(ROOT)}: links to nothing: {broken}"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_named_files_exist(page: Path) -> None:
    named = {p for p in PATH.findall(page.read_text()) if "<" not in p and "*" not in p}
    missing = sorted(p for p in named if not (ROOT / p).exists() and not p.startswith(GENERATED))
    assert not missing, f"{page.relative_to(ROOT)} names files that do not exist: {missing}"
