"""The rules engines and their registry: ``get_engine(game_type)`` and ``game_types()``.

An engine is a package ``benthic.rules.<game_type>`` exposing ``ENGINE`` (an ``Engine`` instance).
A game type is registered once its package exists, so each engine lands on its own.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from functools import cache

from benthic.rules.core import (
    AnyEngine,
    Bot,
    CommandFormatError,
    ContentPackUnavailable,
    Engine,
    EngineVersionUnsupported,
    FinalScores,
    GameConfig,
    GameNotSupported,
    Prompt,
    RuleViolation,
    SeatResult,
    Secret,
    rng_for,
)
from benthic.rules.presentation import Description, Label, Message

__all__ = [
    "AnyEngine",
    "Bot",
    "CommandFormatError",
    "ContentPackUnavailable",
    "Description",
    "Label",
    "Message",
    "Engine",
    "EngineVersionUnsupported",
    "FinalScores",
    "GameConfig",
    "GameNotSupported",
    "Prompt",
    "RuleViolation",
    "SeatResult",
    "Secret",
    "UnknownGameType",
    "game_types",
    "get_engine",
    "register_engine",
    "rng_for",
]

KNOWN_GAME_TYPES = ("underwater_cities", "nautilus", "aquatica")


class UnknownGameType(LookupError):
    pass


_EXTRA: dict[str, AnyEngine] = {}


def register_engine(engine: AnyEngine) -> None:
    """Register an engine from outside this package (an embedding application, or a test)."""
    _EXTRA[engine.game_type] = engine
    game_types.cache_clear()


def _load_plugins() -> None:
    """Engines named in ``BENTHIC_EXTRA_ENGINES`` ("module:attribute,..."), e.g. a third-party game."""
    for spec in filter(None, (s.strip() for s in os.environ.get("BENTHIC_EXTRA_ENGINES", "").split(","))):
        module, _, attribute = spec.partition(":")
        engine = getattr(importlib.import_module(module), attribute)
        _EXTRA.setdefault(engine.game_type, engine() if isinstance(engine, type) else engine)


@cache
def game_types() -> tuple[str, ...]:
    """The registered game types (the engine packages that are installed, then registered extras)."""
    _load_plugins()
    installed = tuple(g for g in KNOWN_GAME_TYPES if importlib.util.find_spec(f"benthic.rules.{g}") is not None)
    return installed + tuple(g for g in _EXTRA if g not in installed)


def get_engine(game_type: str) -> AnyEngine:
    game_types()
    if game_type in _EXTRA:
        return _EXTRA[game_type]
    return _installed_engine(game_type)


@cache
def _installed_engine(game_type: str) -> AnyEngine:
    if game_type not in game_types():
        raise UnknownGameType(f"unknown game type {game_type!r}; known: {', '.join(game_types())}")
    engine = importlib.import_module(f"benthic.rules.{game_type}").ENGINE
    if not isinstance(engine, Engine) or engine.game_type != game_type:
        raise TypeError(f"benthic.rules.{game_type}.ENGINE is not the {game_type} engine")
    return engine
