"""How much stronger the search bot is than the greedy one: two-seat games of every game type, ``mcts``
(at ``--level``) against ``greedy``, the search bot on seat 0 in even games and seat 1 in odd ones (seeds
0, 1, ...; each engine draws who starts from the seed).  Reports wins / draws / losses of the search bot
(same rank = draw) with 95% Wilson intervals, and the milliseconds per decision of both bots (decisions with
more than one legal command; median and p95).  JSON on stdout, progress on stderr.

    python -m bench.bot_strength --games 200 --level 2 --workers 2
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import statistics
import sys
import time
from typing import Any

from benthic.rules import GameConfig, game_types, get_engine
from benthic.rules.bots import make_bot

GAMES = ("underwater_cities", "nautilus", "aquatica")


def play(job: tuple[str, int, int]) -> dict[str, Any]:
    """One game: returns the search bot's seat and outcome and the think times of both bots (ms)."""
    game_type, index, level = job
    engine = get_engine(game_type)
    search_seat = index % 2
    bots = {search_seat: make_bot("mcts", level), 1 - search_seat: make_bot("greedy")}
    rng = random.Random(f"bot_strength:{game_type}:{index}")
    state = engine.replay(engine.start(GameConfig(seats=2, seed=index)))
    times: dict[str, list[float]] = {"mcts": [], "greedy": []}
    for _ in range(engine.playout_bound):
        prompt = engine.prompt(state)
        if prompt is None:
            break
        seat = prompt.seats[0] if len(prompt.seats) == 1 else rng.choice(prompt.seats)
        several = len(engine.legal_commands(state, seat)) > 1
        started = time.perf_counter()
        command = bots[seat].choose(engine, state, seat, rng)
        if several:
            times[bots[seat].name].append((time.perf_counter() - started) * 1000)
        state = engine.fold(state, engine.decide(state, seat, command))
    else:
        raise RuntimeError(f"{game_type} game {index}: no end within {engine.playout_bound} commands")
    ranks = {r.seat: r.rank for r in engine.final_scores(state).results}
    mine, theirs = ranks[search_seat], ranks[1 - search_seat]
    outcome = "win" if mine < theirs else "draw" if mine == theirs else "loss"
    return {"game_type": game_type, "index": index, "outcome": outcome, "times": times}


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (round(max(0.0, centre - half), 3), round(min(1.0, centre + half), 3))


def _ms(values: list[float]) -> dict[str, float]:
    if not values:
        return {"median": 0.0, "p95": 0.0, "decisions": 0}
    ordered = sorted(values)
    return {"median": round(statistics.median(ordered), 2), "p95": round(ordered[int(0.95 * (len(ordered) - 1))], 2),
            "decisions": len(ordered)}


def summarize(game_type: str, rows: list[dict[str, Any]]) -> dict[str, Any]:
    n = len(rows)
    counts = {k: sum(1 for r in rows if r["outcome"] == k) for k in ("win", "draw", "loss")}
    return {
        "games": n,
        "wins": counts["win"],
        "draws": counts["draw"],
        "losses": counts["loss"],
        "win_rate": round(counts["win"] / n, 3) if n else 0.0,
        "win_rate_95": wilson(counts["win"], n),
        "loss_rate_95": wilson(counts["loss"], n),
        "ms_per_decision": {
            "mcts": _ms([t for r in rows for t in r["times"]["mcts"]]),
            "greedy": _ms([t for r in rows for t in r["times"]["greedy"]]),
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="games per game type")
    parser.add_argument("--level", type=int, default=2, help="the search bot's level (1..3)")
    parser.add_argument("--workers", type=int, default=2, help="processes (at most 2 on a shared machine)")
    parser.add_argument("--types", nargs="*", default=[g for g in GAMES if g in game_types()])
    args = parser.parse_args()
    jobs = [(g, i, args.level) for g in args.types for i in range(args.games)]
    started = time.monotonic()
    rows: dict[str, list[dict[str, Any]]] = {g: [] for g in args.types}
    with multiprocessing.get_context("spawn").Pool(max(1, min(args.workers, 2))) as pool:
        for done, row in enumerate(pool.imap_unordered(play, jobs, chunksize=1), start=1):
            rows[row["game_type"]].append(row)
            if done % 20 == 0 or done == len(jobs):
                print(f"   {done}/{len(jobs)} games, {time.monotonic() - started:.0f}s", file=sys.stderr, flush=True)
    result = {
        "level": args.level,
        "games_per_type": args.games,
        "seats": 2,
        "workers": max(1, min(args.workers, 2)),
        "seconds": round(time.monotonic() - started, 1),
        "by_game": {g: summarize(g, rows[g]) for g in args.types},
    }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
