"""Live deltas micro-benchmark: the CPU cost of one view patch (``shared/benthic/views/deltas.py``) and the bytes
of a delta frame against the full view, per game type, over whole random games (every seat's view and the
spectator's at every version, built as the projection builds them).  Prints JSON.

    python -m bench.delta_bench [--games nautilus,aquatica] [--seed 1]

``patch_us``: the median / p99 thread CPU time of one ``delta_frame`` (decode both bodies, diff, encode), paid
once per (game, viewer, version) by the hub whatever the number of clients; ``full_bytes`` / ``delta_bytes``:
the mean data bytes of one frame per viewer and version, as the SSE stream carries them.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Iterator
from typing import Any

from benthic.rules import GameConfig, game_types, get_engine
from benthic.rules.bots import RandomBot
from benthic.views.deltas import delta_frame
from benthic.views.readmodel import build_views, unpack_view


def view_versions(game: str, seed: int) -> Iterator[tuple[int, dict[int | None, bytes]]]:
    """(version, {viewer: view JSON}) after the start and after each command of a random game to its end."""
    engine = get_engine(game)
    seats = max(2, engine.min_seats)
    rng, bot = random.Random(seed), RandomBot()
    events = engine.start(GameConfig(seats=seats, seed=seed))
    state, version = engine.replay(events), len(events)
    viewers: list[int | None] = [None, *range(seats)]
    while True:
        over = engine.prompt(state) is None
        built = build_views(engine, "bench", version, "finished" if over else "running", state, None, viewers)
        yield version, {v: unpack_view(body) for v, (_, body) in zip(viewers, built, strict=True)}
        if over:
            return
        prompt = engine.prompt(state)
        assert prompt is not None
        seat = rng.choice(prompt.seats)
        new = engine.decide(state, seat, bot.choose(engine, state, seat, rng))
        state, version = engine.fold(state, new), version + len(new)


def bench_game(game: str, seed: int) -> dict[str, Any]:
    cpu: list[float] = []
    full: list[int] = []
    delta: list[int] = []
    previous: tuple[int, dict[int | None, bytes]] | None = None
    moves = 0
    for version, views in view_versions(game, seed):
        if previous is not None:
            moves += 1
            for viewer, body in views.items():
                start = time.thread_time()
                frame = delta_frame(previous[0], previous[1][viewer], version, body)
                cpu.append(time.thread_time() - start)
                full.append(len(body))
                delta.append(len(frame))
        previous = (version, views)
    cpu.sort()
    return {
        "game": game, "moves": moves, "patches": len(cpu),
        "patch_us": {"median": round(statistics.median(cpu) * 1e6, 1),
                     "p99": round(cpu[min(len(cpu) - 1, int(len(cpu) * 0.99))] * 1e6, 1)},
        "full_bytes": round(statistics.mean(full)), "delta_bytes": round(statistics.mean(delta)),
        "ratio": round(statistics.mean(delta) / statistics.mean(full), 3),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", default=",".join(game_types()))
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(json.dumps([bench_game(game, args.seed) for game in args.games.split(",")], indent=2))


if __name__ == "__main__":
    main()
