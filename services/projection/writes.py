"""Packing the read-model write script's keys and arguments (``write_read_model.lua``)."""

from __future__ import annotations

from typing import Any

from benthic.keys import GameKeys
from benthic.store.scripts import load_lua

from services.projection.readmodel import STATUSES, ReadModel

SOURCE = load_lua(__package__, "write_read_model")


def write_call(keys: GameKeys, game_id: str, game_type: str, model: ReadModel) -> tuple[list[str], list[Any]]:
    args: list[Any] = [model.version, model.status, game_id, model.updated_ms, keys.updates]
    for field, value in model.fields:
        args.extend((field, value))
    return [keys.read_model, keys.meta, *(keys.lobby(game_type, s) for s in STATUSES)], args
