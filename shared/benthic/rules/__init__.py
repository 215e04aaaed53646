"""The rules engines and their registry: ``get_engine(game_type)`` and ``game_types()``.

An engine is a package ``benthic.rules.<game_type>`` exposing ``ENGINE`` (an ``Engine`` instance).
A game type is registered once its package exists, so each engine lands on its own.
"""

from __future__ import annotations

import importlib
import importlib.util
from functools import cache

from benthic.rules.core import (
    Bot,
    CommandFormatError,
    Engine,
    FinalScores,
    GameConfig,
    Prompt,
    RuleViolation,
    SeatResult,
    Secret,
    rng_for,
)

__all__ = [
    "Bot",
    "CommandFormatError",
    "Engine",
    "FinalScores",
    "GameConfig",
    "Prompt",
    "RuleViolation",
    "SeatResult",
    "Secret",
    "UnknownGameType",
    "game_types",
    "get_engine",
    "rng_for",
]

KNOWN_GAME_TYPES = ("underwater_cities", "nautilus", "aquatica")


class UnknownGameType(LookupError):
    pass


@cache
def game_types() -> tuple[str, ...]:
    """The registered game types (those whose engine package is installed)."""
    return tuple(g for g in KNOWN_GAME_TYPES if importlib.util.find_spec(f"benthic.rules.{g}") is not None)


@cache
def get_engine(game_type: str) -> Engine:
    if game_type not in game_types():
        raise UnknownGameType(f"unknown game type {game_type!r}; known: {', '.join(game_types())}")
    engine = importlib.import_module(f"benthic.rules.{game_type}").ENGINE
    if not isinstance(engine, Engine) or engine.game_type != game_type:
        raise TypeError(f"benthic.rules.{game_type}.ENGINE is not the {game_type} engine")
    return engine
