"""Aquatica (Cosmodrome Games, 2019), 1-4 players: the rules engine of spec ``shared/rules/aquatica.md``."""

from benthic.rules.aquatica.engine import AquaticaEngine

ENGINE = AquaticaEngine()

__all__ = ["ENGINE", "AquaticaEngine"]
