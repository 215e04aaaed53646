"""What the integration events add to the projection's Python work per commit: for every state of a few random
2-seat games per game type, the time of ``events_of_write`` (the turn from the prompt ``readmodel.build``
computed, the clock deadlines) and of encoding the events it reports, next to ``readmodel.build`` (the work a
write did before).  Prints µs per commit.  The Lua side (an ``XADD`` per event in the write script) is not
in these numbers.

    PYTHONPATH=shared:. .venv/bin/python bench/integration_events_bench.py
"""

from __future__ import annotations

import random
import time
from typing import Any

from benthic.feed.integration import encode_entry
from benthic.game.gamestate import Folded
from benthic.rules import GameConfig, game_types, get_engine
from benthic.rules.bots import RandomBot
from benthic.store import GameMeta, SeatInfo
from benthic.views import readmodel
from services.projection import integration


def _states(game_type: str, games: int = 3) -> list[Any]:
    engine = get_engine(game_type)
    states = []
    for seed in range(games):
        rng = random.Random(seed)
        state = engine.replay(engine.start(GameConfig(seats=2, seed=seed)))
        bot = RandomBot()
        while (prompt := engine.prompt(state)) is not None:
            states.append(state)
            seat = rng.choice(prompt.seats)
            state = engine.fold(state, engine.decide(state, seat, bot.choose(engine, state, seat, rng)))
    return states


def main() -> None:
    for game_type in game_types():
        engine = get_engine(game_type)
        folded = [Folded(i + 1, s) for i, s in enumerate(_states(game_type))]
        meta = GameMeta("g", game_type, 1, "running", [SeatInfo("a", "A"), SeatInfo("b", "B")], {}, 1, 1, rated=True)
        added = 0.0
        turn = b""
        for f in folded:
            prompt = engine.prompt(f.state)  # the projector has it from readmodel.build: not added work
            started = time.process_time()
            events, turn = integration.events_of_write(meta, f, prompt, 1, 1, "running", f.version - 1, "running",
                                                       turn)
            for event in events:
                encode_entry(event)
            added += time.process_time() - started
        added /= len(folded)
        started = time.process_time()
        for f in folded:
            readmodel.build(engine, meta, f, [], False)
        build = (time.process_time() - started) / len(folded)
        print(f"{game_type}: {len(folded)} states; integration events {added * 1e6:.1f} µs/commit; "
              f"readmodel.build {build * 1e6:.1f} µs/commit")


if __name__ == "__main__":
    main()
