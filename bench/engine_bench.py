"""Engine micro-benchmark: µs per decide / evolve / legal_commands (median, p99), replay time of a finished
game and complete random playouts per second, per game type and seat count.  Prints JSON.

decide and legal_commands are also timed in thread CPU time (``*_cpu``): on a loaded machine a call that the
scheduler preempts takes a whole time slice of wall time (about 4 ms here), so once about 1% of the calls are
preempted the wall p99 measures the scheduler; the CPU p99 is the engine's own cost.  ``--slowest N`` lists the
N costliest calls (CPU time) with their seed, step and prompt kind, to replay and profile.

    python -m bench.engine_bench [--games nautilus,aquatica] [--seats 2,4] [--seconds 20] [--slowest 10]
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from typing import Any

from benthic.rules import GameConfig, game_types, get_engine
from benthic.rules.bots import RandomBot


def _quantiles(samples: list[float]) -> dict[str, float]:
    samples = sorted(samples)
    if not samples:
        return {"median_us": 0.0, "p99_us": 0.0, "n": 0}
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    return {"median_us": round(statistics.median(samples) * 1e6, 2), "p99_us": round(p99 * 1e6, 2),
            "n": len(samples)}


def bench_game(game: str, seats: int, seconds: float, slowest: int = 0) -> dict[str, Any]:
    engine = get_engine(game)
    bot = RandomBot()
    decide_t: list[float] = []
    evolve_t: list[float] = []
    legal_t: list[float] = []
    decide_cpu: list[float] = []
    legal_cpu: list[float] = []
    calls: list[tuple[float, str, int, int, str, str]] = []  # (cpu s, op, seed, step, prompt kind, command)
    cpu = time.thread_time
    replay_t: list[float] = []
    events_per_game: list[int] = []
    commands_per_game: list[int] = []
    playout_wall: list[float] = []
    deadline = time.perf_counter() + seconds
    seed = 0
    clock = time.perf_counter
    while clock() < deadline or not playout_wall:
        seed += 1
        rng = random.Random(seed)
        t_game = clock()
        events = engine.start(GameConfig(seats=seats, seed=seed))
        state = engine.replay(events)
        commands = 0
        while (prompt := engine.prompt(state)) is not None:
            seat = rng.choice(prompt.seats)
            c0 = cpu()
            t0 = clock()
            legal = engine.legal_commands(state, seat)
            t1 = clock()
            c1 = cpu()
            command = bot_choice(bot, legal, rng)
            c2 = cpu()
            t2 = clock()
            new = engine.decide(state, seat, command)
            t3 = clock()
            c3 = cpu()
            for event in new:
                t4 = clock()
                state = engine.evolve(state, event)
                evolve_t.append(clock() - t4)
            legal_t.append(t1 - t0)
            decide_t.append(t3 - t2)
            legal_cpu.append(c1 - c0)
            decide_cpu.append(c3 - c2)
            if slowest:
                name = engine.command_name(command)
                calls.append((c1 - c0, "legal_commands", seed, commands, prompt.kind, name))
                calls.append((c3 - c2, "decide", seed, commands, prompt.kind, name))
                if len(calls) > 4 * slowest + 10_000:
                    calls = sorted(calls, reverse=True)[: 2 * slowest]
            events.extend(new)
            commands += 1
        playout_wall.append(clock() - t_game)
        t5 = clock()
        engine.replay(events)
        replay_t.append(clock() - t5)
        events_per_game.append(len(events))
        commands_per_game.append(commands)
    # Playouts/s without the per-call timers: replay the measured games' command counts at full speed.
    t_plain = clock()
    plain_games = 0
    while clock() - t_plain < max(1.0, seconds / 4) or plain_games == 0:
        rng = random.Random(10_000 + plain_games)
        events = engine.start(GameConfig(seats=seats, seed=10_000 + plain_games))
        state = engine.replay(events)
        while (prompt := engine.prompt(state)) is not None:
            seat = rng.choice(prompt.seats)
            state = engine.fold(state, engine.decide(state, seat, bot.choose(engine, state, seat, rng)))
        plain_games += 1
    plain_rate = plain_games / (clock() - t_plain)
    result = {
        "game": game,
        "seats": seats,
        "games": len(playout_wall),
        "decide": _quantiles(decide_t),
        "decide_cpu": _quantiles(decide_cpu),
        "evolve": _quantiles(evolve_t),
        "legal_commands": _quantiles(legal_t),
        "legal_commands_cpu": _quantiles(legal_cpu),
        "replay_finished_game_ms": {
            "median": round(statistics.median(replay_t) * 1e3, 2),
            "max": round(max(replay_t) * 1e3, 2),
        },
        "events_per_game_median": statistics.median(events_per_game),
        "commands_per_game_median": statistics.median(commands_per_game),
        "random_playouts_per_s": round(plain_rate, 2),
    }
    if slowest:
        result["slowest"] = [
            {"cpu_us": round(t * 1e6, 1), "op": op, "seed": sd, "step": step, "prompt": kind, "command": name}
            for t, op, sd, step, kind, name in sorted(calls, reverse=True)[:slowest]
        ]
    return result


def bot_choice(bot: RandomBot, legal: list[Any], rng: random.Random) -> Any:
    del bot
    return rng.choice(legal)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", default=",".join(game_types()))
    parser.add_argument("--seats", default="2,4")
    parser.add_argument("--seconds", type=float, default=15.0)
    parser.add_argument("--slowest", type=int, default=0, help="list the N costliest decide/legal calls")
    args = parser.parse_args()
    results = []
    for game in [g for g in args.games.split(",") if g]:
        engine = get_engine(game)
        for seats in (int(s) for s in args.seats.split(",")):
            if engine.min_seats <= seats <= engine.max_seats:
                results.append(bench_game(game, seats, args.seconds, args.slowest))
    print(json.dumps({"engine_bench": results}, indent=2))


if __name__ == "__main__":
    main()
