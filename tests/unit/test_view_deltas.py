"""The live deltas' patches (shared/benthic/views/deltas.py): over whole random games of every type, each view's
patch turns the view before into exactly the view after (types included: 1 is not 1.0 nor true), for every
viewer; and the cases the views hold: a value set to null, keys removed, arrays shortened."""

from __future__ import annotations

from typing import Any

import jsonpatch
import msgspec
import pytest

from bench.delta_bench import view_versions
from benthic.rules import game_types
from benthic.views.deltas import Delta, delta_frame, empty_delta, view_patch


def _typed(value: Any) -> Any:
    """``value`` with every scalar tagged with its type, so == compares types too."""
    if isinstance(value, dict):
        return {k: _typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_typed(v) for v in value]
    return (type(value).__name__, value)


def _apply(before: bytes, patch: list[dict[str, Any]]) -> Any:
    return jsonpatch.apply_patch(msgspec.json.decode(before), patch)


@pytest.mark.parametrize("game_type", game_types())
@pytest.mark.parametrize("seed", [1, 2])
def test_every_patch_of_a_whole_game_rebuilds_the_next_view_exactly(game_type: str, seed: int) -> None:
    previous: tuple[int, dict[int | None, bytes]] | None = None
    checked = 0
    for version, views in view_versions(game_type, seed):
        if previous is not None:
            for viewer, body in views.items():
                frame = msgspec.json.decode(delta_frame(previous[0], previous[1][viewer], version, body))
                assert (frame["version"], frame["base"]) == (version, previous[0])
                assert _typed(_apply(previous[1][viewer], frame["patch"])) == _typed(msgspec.json.decode(body))
                checked += 1
        previous = (version, views)
    assert checked > 10


def test_null_removed_keys_and_shorter_arrays() -> None:
    before = msgspec.json.encode({"version": 3, "prompt": {"seats": [0, 1]}, "hand": ["a", "b", "c"], "x": 1})
    after = msgspec.json.encode({"version": 4, "prompt": None, "hand": ["c"], "x": 1.0, "y": True})
    patch = view_patch(before, after)
    assert _typed(_apply(before, patch)) == _typed(msgspec.json.decode(after))
    assert view_patch(after, after) == []


@pytest.mark.parametrize(("before", "after", "patch"), [
    ({"a": 1}, {"a": True}, [{"op": "replace", "path": "/a", "value": True}]),
    ({"a": [1, 2]}, {"a": [1.0, 2]}, [{"op": "replace", "path": "/a/0", "value": 1.0}]),
    ({"a": {"x": 0, "y": 1}}, {"a": {"y": 1, "x": False}}, [{"op": "replace", "path": "/a/x", "value": False}]),
    ({"a/b": 1, "m~n": [0]}, {"a/b": 2, "m~n": []}, [{"op": "replace", "path": "/a~1b", "value": 2},
                                                     {"op": "remove", "path": "/m~0n/0"}]),
    ({"l": ["x", "a", "b", "y"]}, {"l": ["x", "y"]}, [{"op": "remove", "path": "/l/1"},
                                                      {"op": "remove", "path": "/l/1"}]),
    ({"l": ["x", "y"]}, {"l": ["x", "a", "b", "y"]}, [{"op": "add", "path": "/l/1", "value": "a"},
                                                      {"op": "add", "path": "/l/2", "value": "b"}]),
])
def test_types_escapes_and_the_middle_of_arrays(before: Any, after: Any, patch: list[dict[str, Any]]) -> None:
    """JSON's types are kept apart (1, 1.0, true, 0, false), keys are escaped (RFC 6901), and an array changed in
    its middle is patched there, its head and tail left alone."""
    assert view_patch(msgspec.json.encode(before), msgspec.json.encode(after)) == patch
    assert _typed(_apply(msgspec.json.encode(before), patch)) == _typed(after)


def test_a_step_is_computed_once_and_then_forgets_its_bodies() -> None:
    step = Delta(3, b'{"version":3,"a":[1]}', 4, b'{"version":4,"a":[1,2]}')
    assert not step.computed
    frame = step.frame()
    assert step.computed and step.frame() is frame
    assert msgspec.json.decode(frame) == {
        "version": 4, "base": 3, "patch": [{"op": "replace", "path": "/version", "value": 4},
                                           {"op": "add", "path": "/a/1", "value": 2}]}
    assert msgspec.json.decode(empty_delta(7)) == {"version": 7, "base": 7, "patch": []}
