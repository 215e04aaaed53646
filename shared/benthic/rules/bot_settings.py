"""The bots' tuning per game type, read once from ``bot_settings.json`` beside this module."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any, Literal

import msgspec

FILE = Path(__file__).with_name("bot_settings.json")


class BotSettings(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    greedy_determinizations: int
    levels: tuple[int, int, int]  # search iterations of the mcts levels 1, 2, 3
    candidates: int
    rollout_depth: int
    horizon: Literal["turn", "round"]
    rollout_sample: int
    exploration: float
    win_bonus: float

    def __post_init__(self) -> None:
        positive = {"greedy_determinizations": self.greedy_determinizations, "candidates": self.candidates,
                    "rollout_sample": self.rollout_sample, **{f"levels[{i}]": n for i, n in enumerate(self.levels)}}
        bad = sorted(name for name, value in positive.items() if value < 1)
        if bad or self.rollout_depth < 0 or self.exploration < 0:
            raise ValueError(f"{FILE.name}: {', '.join(bad) or 'rollout_depth or exploration'} out of range")


class _File(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    about: str
    default: dict[str, Any]
    games: dict[str, dict[str, Any]]


@functools.cache
def _file() -> _File:
    return msgspec.json.decode(FILE.read_bytes(), type=_File)


@functools.cache
def bot_settings(game_type: str) -> BotSettings:
    """The settings of ``game_type`` (the defaults for a game the file does not name)."""
    data = _file()
    return msgspec.convert({**data.default, **data.games.get(game_type, {})}, BotSettings)
