"""The games the tests run over, taken from the registry (``benthic.rules``), never named: a game added there (its
package and its line in ``KNOWN_GAME_TYPES``) is in every list of the tests at once, and a test that needs something
of each game (a golden corpus, a hidden swap, a variant pack) fails for the new one until it has it."""

from __future__ import annotations

from benthic.rules import KNOWN_GAME_TYPES, game_types

# The platform's own games, in the registry's order: the installed engine packages of benthic.rules (not the extra
# engines an embedding or a bench registers, such as the counter game of bench/counter_engine.py).
BUILT_IN: tuple[str, ...] = tuple(g for g in game_types() if g in KNOWN_GAME_TYPES)
