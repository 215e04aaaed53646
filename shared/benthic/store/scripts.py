"""Lua scripts live in ``.lua`` files beside the function that packs their keys and arguments."""

from __future__ import annotations

from importlib.resources import files


def load_lua(package: str, name: str) -> str:
    """The source of ``<name>.lua`` in ``package`` (installed with the package data)."""
    return files(package).joinpath(f"{name}.lua").read_text(encoding="utf-8")


def text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
