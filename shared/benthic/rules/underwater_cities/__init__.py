"""Underwater Cities (Delicious Games, 2018) rules engine: spec ``shared/rules/underwater_cities.md``."""

from .engine import UnderwaterCitiesEngine

ENGINE = UnderwaterCitiesEngine()

__all__ = ["ENGINE", "UnderwaterCitiesEngine"]
