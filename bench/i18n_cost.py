"""The cost of languages: µs per history entry (redacted event + sentence) and per legal-commands answer
(describe + labels), in English, in Portuguese, and without sentences (what a history entry cost before), over
random games of every type.  ``.venv/bin/python bench/i18n_cost.py``; not part of the tests."""

from __future__ import annotations

import time
from typing import Any

import msgspec

from benthic.game.events import Envelope
from benthic.game.gamestate import Folded
from benthic.game.history import history_entry
from benthic.rules import game_types, get_engine
from services.command.legal import legal_commands
from tests.engine_harness import random_game


def _per_call_us(work: Any, items: list[Any], rounds: int = 5) -> float:
    best = float("inf")
    for _ in range(rounds):
        start = time.perf_counter()
        for item in items:
            work(item)
        best = min(best, time.perf_counter() - start)
    return best / len(items) * 1e6


def measure(game: str) -> None:
    engine = get_engine(game)
    envelopes, states = [], []
    for n, (state, seat, _command, events, _after) in enumerate(random_game(engine, 3, 77)):
        if n % 5 == 0:
            states.append((state, seat))
        for event in events:
            envelopes.append(Envelope(len(envelopes) + 1, "", msgspec.json.encode(event), ts_ms=1,
                                      engine_version=engine.engine_version))
    names = ["Ana", "Bruno", "Carla"]
    en = _per_call_us(lambda e: history_entry(engine, e, 0, None, "en", names), envelopes)
    pt = _per_call_us(lambda e: history_entry(engine, e, 0, None, "pt", names), envelopes)
    sentence = type(engine).sentence
    type(engine).sentence = lambda self, shown: None  # type: ignore[method-assign]
    bare = _per_call_us(lambda e: history_entry(engine, e, 0, None, "en", names), envelopes)
    type(engine).sentence = sentence  # type: ignore[method-assign]
    legal_en = _per_call_us(lambda s: legal_commands(engine, "g", s[1], Folded(1, s[0]), True, "en"), states)
    legal_pt = _per_call_us(lambda s: legal_commands(engine, "g", s[1], Folded(1, s[0]), True, "pt"), states)
    labels = sum(len(engine.legal_commands(s, seat)) for s, seat in states) / len(states)
    print(f"{game:18} history entry: {bare:6.1f} µs without a sentence, {en:6.1f} en, {pt:6.1f} pt "
          f"({len(envelopes)} entries) | legal answer: {legal_en:7.1f} µs en, {legal_pt:7.1f} pt "
          f"({labels:.0f} labels on average, {len(states)} states)")


def main() -> None:
    for game in game_types():
        measure(game)


if __name__ == "__main__":
    main()
