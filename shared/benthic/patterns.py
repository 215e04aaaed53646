r"""The patterns of the wire's strings (ids, names, secrets): each matches a whole string, and the same strings in
Python's ``re`` (msgspec and Litestar check a pattern with ``re.search``) as in ECMA-262, the dialect of the
OpenAPI documents that clients validate with.

``^...$`` is not enough: Python's ``$`` also matches just before a final newline, so ``^[a-z]+$`` accepts
``"alice\n"``.  ``\Z`` is Python's true end but an ECMA-262 client reads it as a ``Z``; ``$(?!\n)`` is the true
end in both (ECMA-262's ``$`` is one already, and there the lookahead never fails).
"""

from __future__ import annotations

END = r"$(?!\n)"


def whole(body: str) -> str:
    """The pattern of a string that is ``body`` from its start to its true end: ``whole("[a-z]{1,8}")``."""
    return "^" + body + END
