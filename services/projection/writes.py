"""Packing the keys and arguments of the read-model write scripts (``write_read_model.lua``, ``write_views.lua``)."""

from __future__ import annotations

from typing import Any

from benthic.game.keys import GameKeys
from benthic.store.scripts import load_lua
from services.projection.readmodel import STATUSES, ReadModel

SOURCE = load_lua(__package__, "write_read_model")
VIEWS_SOURCE = load_lua(__package__, "write_views")


def write_call(keys: GameKeys, game_id: str, game_type: str, model: ReadModel) -> tuple[list[str], list[Any]]:
    args: list[Any] = [model.version, model.status, game_id, model.updated_ms, keys.updates]
    for field, value in model.fields:
        args.extend((field, value))
    return [keys.read_model, keys.meta, *(keys.lobby(game_type, s) for s in STATUSES)], args


def views_call(keys: GameKeys, version: int, views: list[tuple[str, bytes]]) -> tuple[list[str], list[Any]]:
    args: list[Any] = [version]
    for field, value in views:
        args.extend((field, value))
    return [keys.read_model], args
