"""Nautilus (Ditt, Kosmos 2002): the rules engine.  See RULES.md and ../../../../docs/ENGINE_CONTRACT.md."""

from benthic.rules.nautilus.engine import NautilusEngine

ENGINE = NautilusEngine()

__all__ = ["ENGINE", "NautilusEngine"]
