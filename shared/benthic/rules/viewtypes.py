"""The parts every game's view shares, as types: the engines' ``view_type`` Structs (one per game, in
``<game>/viewtypes.py``) describe the JSON their ``view`` returns, field by field, for the read API's OpenAPI
(``benthic.game.gameschemas``); the tests check every view of random games against them."""

from __future__ import annotations

from typing import Any

import msgspec


class ViewPrompt(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """Who must decide what now (public)."""

    kind: str
    seats: list[int]
    details: dict[str, Any]


def matches(view: dict[str, Any], view_type: Any) -> Any:
    """``view`` as its type reads its JSON (raises msgspec.ValidationError where they differ)."""
    return msgspec.json.decode(msgspec.json.encode(view), type=view_type)
