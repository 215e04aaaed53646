"""Stored views: the version they show travels with them, and views stored by an earlier release still read."""

from __future__ import annotations

import zlib

from benthic.views.readmodel import pack_view, stored_version, unpack_view
from benthic.views.reads import _shows


def test_a_stored_view_carries_the_version_it_shows() -> None:
    stored = pack_view(b'{"version":12}', 12)
    assert stored_version(stored) == 12 and unpack_view(stored) == b'{"version":12}'
    assert _shows(stored, 12, "running") and not _shows(stored, 13, "running")


def test_a_view_stored_without_a_version_counts_only_once_the_game_is_finished() -> None:
    legacy = zlib.compress(b'{"version":9}', 1)
    assert stored_version(legacy) is None and unpack_view(legacy) == b'{"version":9}'
    assert _shows(legacy, 9, "finished") and not _shows(legacy, 9, "running")
