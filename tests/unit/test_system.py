"""The system table (benthic.feed.system) is what runs and what the docs say: every service that reads a stream has
its row and builds its consumer from it with the row's mechanism; docs/OPERATIONS.md holds the table as rendered;
the README's picture of a move shows each follower beside its stream."""

from __future__ import annotations

import re
from pathlib import Path

from benthic.feed import system
from benthic.runtime.config import Settings
from scripts.system_table import BEGIN, DOC, END, rendered

ROOT = Path(__file__).resolve().parents[2]
MECHANISMS = {system.FEED_CONSUMER: "FeedConsumer(", system.FASTSTREAM: "GroupSubscription("}


def _source(service: str) -> str:
    return "\n".join(p.read_text() for p in sorted((ROOT / "services" / service).glob("*.py")))


def test_every_consumer_a_service_builds_is_a_row_of_the_table_built_from_that_row() -> None:
    builders = {s.name for s in (ROOT / "services").iterdir() if s.is_dir()
                and any(m in _source(s.name) for m in MECHANISMS.values())}
    assert builders == {row.service for row in system.FOLLOWERS}, "a service reads a stream the table does not name"
    for row in system.FOLLOWERS:
        source = _source(row.service)
        assert f'follower("{row.service}")' in source, f"{row.service} does not build its consumer from its row"
        assert MECHANISMS[row.mechanism] in source, f"{row.service} does not read with {row.mechanism}"
        others = set(MECHANISMS.values()) - {MECHANISMS[row.mechanism]}
        assert not any(other in source for other in others), f"{row.service} reads with two mechanisms"
        assert not re.search(r'\bGROUP = "', source), f"{row.service} names its group beside the table"


def test_groups_are_one_per_service_and_keys_follow_the_settings() -> None:
    assert len({row.group for row in system.FOLLOWERS}) == len(system.FOLLOWERS)
    settings = Settings(partitions=3, integration_stream="custom:integration")
    assert system.follower("scoring").stream.keys(settings) == ["{p0}:lifecycle", "{p1}:lifecycle", "{p2}:lifecycle"]
    assert system.follower("notifier").stream.keys(settings) == ["{webhooks:custom:integration}:events"]
    assert system.INTEGRATION.keys(settings) == ["custom:integration"]
    assert system.follower("bots").feed(7) == "{p7}:managed"


def test_operations_md_holds_the_table_as_rendered() -> None:
    text = DOC.read_text()
    assert BEGIN in text and END in text
    assert rendered(text) == text, "docs/OPERATIONS.md's system table is stale: run python scripts/system_table.py"


def test_the_readmes_picture_shows_every_follower_beside_its_stream() -> None:
    readme = (ROOT / "README.md").read_text()
    picture = readme.split("## How a move flows", 1)[1].split("```", 2)[1]
    for row in system.FOLLOWERS:
        stream_lines = [i for i, line in enumerate(picture.splitlines()) if row.stream.pattern in line]
        assert stream_lines, f"the picture does not show {row.stream.pattern}"
        # the follower is on its stream's line, or on a line of the fan-out just below it
        near = picture.splitlines()[stream_lines[0]:stream_lines[0] + 4]
        shown = rf"▶\s*{row.service}\b|{row.service} service ◀"
        assert any(re.search(shown, line) for line in near), (
            f"the picture does not show {row.service} following {row.stream.pattern}")
