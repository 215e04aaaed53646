"""What the labels add to a `/legal` answer: for a few hundred states of random playouts per game type and
seat count, the time of ``describe_all`` over the prompted seat's legal commands next to the time of
``legal_commands`` itself and of the commands' JSON forms the route also builds (same process, same states,
interleaved), as ratios and in µs.  Prints JSON.

    python -m bench.describe_bench [--games nautilus] [--states 300] [--repeat 5]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from benthic.rules import GameConfig, game_types, get_engine


def sample_states(game: str, seats: int, count: int) -> list[tuple[Any, int]]:
    """``count`` (state, prompted seat) pairs spread over random playouts."""
    engine = get_engine(game)
    out: list[tuple[Any, int]] = []
    seed = 0
    while len(out) < count:
        seed += 1
        rng = random.Random(seed)
        state = engine.replay(engine.start(GameConfig(seats=seats, seed=seed)))
        while (prompt := engine.prompt(state)) is not None and len(out) < count:
            seat = rng.choice(prompt.seats)
            legal = engine.legal_commands(state, seat)
            if rng.random() < 0.25:
                out.append((state, seat))
            state = engine.fold(state, engine.decide(state, seat, rng.choice(legal)))
    return out


def bench(game: str, seats: int, states: int, repeat: int) -> dict[str, Any]:
    engine = get_engine(game)
    samples = sample_states(game, seats, states)
    engine.catalogue()  # built once per process, outside the measurement
    legal_t: list[float] = []
    describe_t: list[float] = []
    json_t: list[float] = []
    commands = 0
    clock = time.perf_counter
    for state, seat in samples:
        best_legal = best_describe = best_json = float("inf")
        for _ in range(repeat):  # the best of a few runs: least disturbed by the other processes
            t0 = clock()
            legal = engine.legal_commands(state, seat)
            t1 = clock()
            engine.describe_all(state, legal, seat)
            t2 = clock()
            [engine.command_to_builtins(c) for c in legal]
            t3 = clock()
            best_legal = min(best_legal, t1 - t0)
            best_describe = min(best_describe, t2 - t1)
            best_json = min(best_json, t3 - t2)
        legal_t.append(best_legal)
        describe_t.append(best_describe)
        json_t.append(best_json)
        commands += len(legal)
    total_legal, total_describe = sum(legal_t), sum(describe_t)
    ratios = [d / max(lg, 1e-9) for d, lg in zip(describe_t, legal_t, strict=True)]
    return {
        "game": game, "seats": seats, "states": len(samples), "commands_per_state": round(commands / len(samples), 1),
        "legal_median_us": round(statistics.median(legal_t) * 1e6, 1),
        "describe_median_us": round(statistics.median(describe_t) * 1e6, 1),
        "describe_per_command_us": round(total_describe / max(commands, 1) * 1e6, 2),
        "json_forms_median_us": round(statistics.median(json_t) * 1e6, 1),
        "ratio_total": round(total_describe / total_legal, 2),
        "ratio_to_json_forms": round(total_describe / sum(json_t), 2),
        "ratio_median": round(statistics.median(ratios), 2),
        "ratio_p90": round(sorted(ratios)[int(len(ratios) * 0.9)], 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", default=",".join(game_types()))
    parser.add_argument("--states", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    results = []
    for game in args.games.split(","):
        engine = get_engine(game)
        for seats in sorted({engine.min_seats, 2 if engine.min_seats <= 2 <= engine.max_seats else engine.min_seats,
                             engine.max_seats}):
            results.append(bench(game, seats, args.states, args.repeat))
    print(json.dumps({"describe": results}, indent=1))


if __name__ == "__main__":
    main()
