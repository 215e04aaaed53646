"""What changed between two versions of a view: an RFC 6902 JSON Patch, as the live routes send it.

A delta frame is ``{"version": V, "base": V0, "patch": [...]}``: applied to the view body of version V0 (the
whole body ``GET .../view`` answers, its ``version`` and ``status`` included) it gives the body of version V.

The diff is ours, of ``add``, ``remove`` and ``replace`` only: ``jsonpatch.make_patch`` (the usual Python
library) sometimes emits ``move`` operations whose ``from`` an earlier operation has shifted, so its patch
builds a wrong view (python-json-patch issues #124, #138, #179, open; tests/unit/test_view_deltas.py found it
on our views), and an RFC 7386 merge patch cannot set a value to null (a view's ``prompt`` is null at the end)
and resends whole arrays.  Arrays are diffed by their common head and tail, then element by element.
"""

from __future__ import annotations

from typing import Any

import msgspec

_encoder = msgspec.json.Encoder()
Operation = dict[str, Any]


def _same(a: Any, b: Any) -> bool:
    """Equal as JSON: 1, 1.0 and true are three different values.  Python's ``==`` (fast, in C) says they are
    equal, their encodings do not; two equal dicts whose keys come in another order count as different (the
    diff then goes into them: a longer patch, never a wrong one)."""
    return bool(a == b) and (not isinstance(a, dict | list | bool | float) and type(a) is type(b)
                             or _encoder.encode(a) == _encoder.encode(b))


def _token(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")  # RFC 6901


def _diff(a: Any, b: Any, path: str, ops: list[Operation]) -> None:
    if _same(a, b):
        return  # most of a view is as it was: one comparison in C, not a walk
    if type(a) is not type(b) or not isinstance(a, dict | list):
        ops.append({"op": "replace", "path": path, "value": b})
    elif isinstance(a, dict):
        for key in a:
            if key not in b:
                ops.append({"op": "remove", "path": f"{path}/{_token(key)}"})
        for key, value in b.items():
            if key in a:
                _diff(a[key], value, f"{path}/{_token(key)}", ops)
            else:
                ops.append({"op": "add", "path": f"{path}/{_token(key)}", "value": value})
    else:
        _diff_array(a, b, path, ops)


def _diff_array(a: list[Any], b: list[Any], path: str, ops: list[Operation]) -> None:
    shortest = min(len(a), len(b))
    head = 0
    while head < shortest and _same(a[head], b[head]):
        head += 1
    tail = 0
    while tail < shortest - head and _same(a[len(a) - 1 - tail], b[len(b) - 1 - tail]):
        tail += 1
    middle_a, middle_b = len(a) - head - tail, len(b) - head - tail
    for i in range(head, head + min(middle_a, middle_b)):
        _diff(a[i], b[i], f"{path}/{i}", ops)
    for _ in range(middle_a - middle_b):  # a's surplus, at the same index each time
        ops.append({"op": "remove", "path": f"{path}/{head + middle_b}"})
    for i in range(head + middle_a, head + middle_b):  # b's surplus, in order
        ops.append({"op": "add", "path": f"{path}/{i}", "value": b[i]})


def view_patch(before: bytes, after: bytes) -> list[Operation]:
    """The RFC 6902 operations that turn the view JSON ``before`` into ``after``."""
    ops: list[Operation] = []
    _diff(msgspec.json.decode(before), msgspec.json.decode(after), "", ops)
    return ops


def delta_frame(base: int, before: bytes, version: int, after: bytes) -> bytes:
    """The JSON of a delta frame from version ``base`` (body ``before``) to ``version`` (body ``after``)."""
    return _encoder.encode({"version": version, "base": base, "patch": view_patch(before, after)})


def empty_delta(version: int) -> bytes:
    """The delta frame of a client that already has ``version``: nothing to change."""
    return _encoder.encode({"version": version, "base": version, "patch": []})


class Delta:
    """The step of one (game, viewer) from the hub's previous view to its newest: its frame is computed at most
    once, by the first client that needs it, and the same bytes go to every client on that base."""

    __slots__ = ("_after", "_before", "_frame", "base", "version")

    def __init__(self, base: int, before: bytes, version: int, after: bytes) -> None:
        self.base = base
        self.version = version
        self._before: bytes | None = before
        self._after: bytes | None = after
        self._frame: bytes | None = None

    @property
    def computed(self) -> bool:
        return self._frame is not None

    def frame(self) -> bytes:
        if self._frame is None:
            assert self._before is not None and self._after is not None
            self._frame = delta_frame(self.base, self._before, self.version, self._after)
            self._before = self._after = None  # the bodies are no longer needed: the hub keeps the newest
        return self._frame
