"""Underwater Cities card balance report: how often the greedy bot that claims a card wins, compared with
the average, over as many 4-player greedy-bot games as fit in the time budget.

    python -m bench.uc_balance --minutes 10 [--workers 2] [--seats 4] [--min-samples 30]

JSON on stdout, a summary table on stderr.  Only the engine contract is used: ``get_engine``,
``GameConfig``, ``GreedyBot``, ``play_out``, ``final_scores`` and the events (``card_claimed`` for
permanent / action / production / end-scoring cards; for instant cards, which are never claimed,
``card_played`` with ``matched`` true, i.e. played with their effect).

For a card c: n = seats (game × seat) that claimed c, w = their wins (rank 1; k seats tied at rank 1 each
win 1/k), win rate p = w / n, ratio = p / (1 / seats) (the average seat wins 1/seats of the games).  The
95 % interval is Wilson's on p, divided by 1/seats.  A card is flagged when n ≥ min-samples and the whole
interval lies above 1.5 × the average (low end of the ratio interval > 1.5).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time
import traceback
from collections import defaultdict
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import msgspec

from benthic.rules.bots import GreedyBot

GAME = "underwater_cities"
CARDS_JSON = (Path(__file__).resolve().parents[1] / "shared" / "benthic" / "rules" / GAME / "content" / "cards.json")
Z95 = 1.959963984540054
FLAG_RATIO = 1.5


# --------------------------------------------------------------------------------------------------------------
# statistics (pure)
# --------------------------------------------------------------------------------------------------------------
def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval of a proportion (fractional successes allowed, e.g. shared wins)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def win_shares(results: list[tuple[int, int]]) -> dict[int, float]:
    """seat → share of the win from [(seat, rank), ...]: the k seats at rank 1 each get 1/k."""
    best = min(rank for _, rank in results)
    winners = [seat for seat, rank in results if rank == best]
    return {seat: (1.0 / len(winners) if seat in winners else 0.0) for seat, _ in results}


def aggregate(games: list[dict[str, Any]], seats: int, min_samples: int,
              catalogue: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """Per-card statistics from game records {"claims": {seat: [card ids]}, "win_share": {seat: share}}."""
    n: dict[str, int] = defaultdict(int)
    wins: dict[str, float] = defaultdict(float)
    for g in games:
        shares = {int(k): v for k, v in g["win_share"].items()}
        for seat, cards in g["claims"].items():
            for card in set(cards):
                n[card] += 1
                wins[card] += shares.get(int(seat), 0.0)
    base = 1.0 / seats
    rows = []
    for card in sorted(n, key=lambda c: catalogue.get(c, {}).get("number") or 0):
        lo, hi = wilson(wins[card], n[card])
        meta = catalogue.get(card, {})
        rate = wins[card] / n[card]
        rows.append({
            "id": card, "number": meta.get("number"), "name": meta.get("name"), "deck": meta.get("deck"),
            "colour": meta.get("colour"), "type": meta.get("type"),
            "n": n[card], "wins": round(wins[card], 3), "win_rate": round(rate, 4),
            "ratio": round(rate / base, 3), "ratio_ci95": [round(lo / base, 3), round(hi / base, 3)],
            "reported": n[card] >= min_samples,
            "flagged": n[card] >= min_samples and lo / base > FLAG_RATIO,
        })
    return {
        "average_win_rate": base,
        "cards": rows,
        "flagged": [r["id"] for r in rows if r["flagged"]],
        "below_min_samples": [r["id"] for r in rows if not r["reported"]],
        "never_claimed": sorted((c for c in catalogue if c not in n and c != "PA"),
                                key=lambda c: catalogue[c].get("number") or 0),
    }


# --------------------------------------------------------------------------------------------------------------
# playing games (engine contract only)
# --------------------------------------------------------------------------------------------------------------
class VUGreedyBot(GreedyBot):
    """Supplementary bot (``--bot vu_greedy``): the generic greedy one-step look-ahead, rating a state by
    ``engine.heuristic`` (the final score if the game ended now) plus what the public view says the seat
    still has to come: resources while they can be spent, pieces that will produce, claimed cards valued by
    ``bench.uc_card_values`` (§3.7.6 VU) for the time left, cards in hand.  Uses only the engine contract
    (``legal_commands``, ``decide``, ``fold``, ``heuristic``, ``prompt``, ``view``)."""

    name = "vu_greedy"
    tie_tolerance = 1e-9

    def __init__(self, catalogue_records: list[dict[str, Any]]) -> None:
        from bench import uc_card_values as cv

        self._cv = cv
        self._cards = {c["id"]: c for c in catalogue_records}
        self._vu = {c["id"]: cv.card_value(c) for c in catalogue_records}
        board = json.loads((CARDS_JSON.parent / "main_board.json").read_text(encoding="utf-8"))
        codes = board["slot_effects"]
        # slot id → effect node; the two sides share slot ids with different effects, keep both by side
        self._slot_effects_by_side = {
            side: {slot["id"]: codes[slot["effect"]]["effect"] for slot in spec["slots"]}
            for side, spec in board["sides"].items()}
        self._slot_effects: dict[str, Any] = {}

    def _card_future(self, card_id: str, rounds_left: int, prods_left: int, eras_left: int) -> float:
        card = self._cards.get(card_key(card_id))
        if card is None:
            return 1.0
        vu, t = self._vu[card["id"]], card["type"]
        if t == "permanent":
            era = self._cv.card_era(card)
            return vu * min(1.0, 3 * rounds_left / self._cv.REMAINING_TURNS[era])
        if t == "production":
            return vu * prods_left
        if t == "action":
            return 0.7 * vu * eras_left
        if t == "end_scoring":
            return 0.5 * vu
        return 0.0

    # --- value of what is still to be resolved in the seat's own turn (one-step look-ahead sees a played
    #     card or a chosen slot only as pending effects, so they are rated by their VU)
    _DEFAULTS = {
        "build": {"n": 1, "cost": "usual", "discount": None, "site": "regular"},
        "upgrade": {"n": 1, "cost": "usual"}, "use_action": {"n": 1}, "restore_action": {"n": 1},
        "pay": {"max_times": 1}, "per": {"max": None}, "gain_distinct": {"n": 2}, "fed": {"steps": 1},
        "perform_slot": {"colored_only": False, "scope": "available"},
    }

    def _normalise(self, node: Any, remaining: int | None = None) -> Any:
        if not isinstance(node, dict) or "op" not in node:
            return node
        out = {**self._DEFAULTS.get(node["op"], {}), **node}
        if remaining is not None and "n" in out and node["op"] in ("build", "upgrade", "use_action", "restore_action"):
            out["n"] = remaining
        for key in ("parts", "options"):
            if key in out:
                out[key] = [self._normalise(x) for x in out[key]]
        if "then" in out:
            out["then"] = self._normalise(out["then"])
        return out

    def _node_vu(self, node: Any, era: int, remaining: int | None = None) -> float:
        try:
            return float(self._cv.effect_vu(self._normalise(node, remaining), era))
        except Exception:
            return 1.0

    def _pending(self, view: dict[str, Any], seat: int, era: int, rounds_left: int, prods_left: int) -> float:
        turn = view.get("turn") or {}
        if turn.get("seat") != seat:
            return 0.0
        total = 0.0
        for frame in view.get("frames") or ():
            active = frame.get("active") or {}
            for part in frame.get("parts") or ():
                if part.get("resolved") or not part.get("usable"):
                    continue
                if active and active.get("part") == part.get("index"):
                    total += self._node_vu(active.get("node"), era, active.get("remaining"))
                else:
                    total += self._node_vu(part.get("node"), era)
        blocks = list(turn.get("blocks_left") or ())
        if turn.get("stage") == "choose_order":
            blocks = ["card", "slot"]
        for block in blocks:
            if block == "card" and turn.get("matched"):
                card = self._cards.get(card_key(turn.get("card_id")))
                if card is not None:
                    if card["type"] == "instant":
                        total += self._vu[card["id"]] - (card.get("cost") or 0)
                    else:
                        future = self._card_future(card["id"], rounds_left, prods_left, prods_left)
                        total += future - (card.get("cost") or 0)
            elif block == "slot":
                effect = self._slot_effects.get(turn.get("slot_id"))
                if effect is not None:
                    total += self._node_vu(effect, era)
        return 0.9 * total

    def value(self, engine: Any, state: Any, seat: int) -> float:
        base = engine.heuristic(state, seat)
        if engine.prompt(state) is None:
            return base
        view = engine.view(state, seat)
        me = next(p for p in view["players"] if p["seat"] == seat)
        rnd, era = int(view.get("round") or 1), int(view.get("era") or 1)
        rounds_left = max(0, 10 - rnd + 1)
        prods_left = max(0, 4 - era)
        eras_left = prods_left
        w = {1: 0.8, 2: 0.6}.get(era, 0.35)
        res = me["resources"]
        bonus = w * (sum(v for k, v in res.items() if k != "biomatter") + 2 * res.get("biomatter", 0))
        connected = set(me.get("connected_cities") or ())
        for site, piece in (me.get("pieces") or {}).items():
            kind, up = piece["kind"], piece.get("upgraded")
            if kind == "tunnel":
                bonus += 0.8 + (1.0 + (1.0 if up else 0.0)) * prods_left * 0.5
            elif kind in ("farm", "desal", "lab"):
                city = site.split(":")[1] if site.startswith("B:") else ""
                bonus += 0.4 + ((1.0 + (1.0 if up else 0.0)) * prods_left if city in connected else 0.2)
            elif kind in ("city_nonsym", "city_sym"):
                bonus += 1.0 + (2.0 * prods_left if kind == "city_sym" and site in connected else 0.0)
        for card_id in me.get("tableau") or ():
            if not str(card_id).startswith("PA"):
                bonus += self._card_future(card_id, rounds_left, prods_left, eras_left)
        bonus += 0.6 * me.get("hand_count", 0)
        self._slot_effects = self._slot_effects_by_side.get(view.get("main_side"), {})
        bonus += self._pending(view, seat, era, rounds_left, prods_left)
        return base + bonus


def load_catalogue() -> dict[str, dict[str, Any]]:
    doc = json.loads(CARDS_JSON.read_text(encoding="utf-8"))
    return {c["id"]: {k: c.get(k) for k in ("number", "name", "deck", "colour", "type")} for c in doc["cards"]}


def card_key(card_id: Any) -> str:
    """Normalise an engine card id to the catalogue id ('c017', 'PA')."""
    if isinstance(card_id, int):
        return f"c{card_id:03d}"
    s = str(card_id)
    if s.isdigit():
        return f"c{int(s):03d}"
    return s


def claims_from_events(events: list[Any], catalogue: dict[str, dict[str, Any]]) -> dict[int, list[str]]:
    claims: dict[int, list[str]] = defaultdict(list)
    for event in events:
        d = msgspec.to_builtins(event)
        if not isinstance(d, dict):
            continue
        kind = d.get("type")
        if kind == "card_claimed":
            card = card_key(d["card_id"])
            if not card.startswith("PA"):
                claims[int(d["seat"])].append(card)
        elif kind == "card_played" and d.get("matched"):
            card = card_key(d["card_id"])
            if catalogue.get(card, {}).get("type") == "instant":
                claims[int(d["seat"])].append(card)
    return claims


def play_game(seed: int, seats: int, catalogue: dict[str, dict[str, Any]], bot: str = "greedy") -> dict[str, Any]:
    from benthic.rules import GameConfig, get_engine
    from benthic.rules.bots import RandomBot, play_out

    engine = get_engine(GAME)
    t0 = time.perf_counter()
    events = engine.start(GameConfig(seats=seats, seed=seed))
    if bot == "vu_greedy":
        records = json.loads(CARDS_JSON.read_text(encoding="utf-8"))["cards"]
        bots = {seat: VUGreedyBot(records) for seat in range(seats)}
    else:
        bots = {seat: (GreedyBot() if bot == "greedy" else RandomBot()) for seat in range(seats)}
    state, events, commands = play_out(engine, events, bots, random.Random(seed))
    scores = engine.final_scores(state)
    shares = win_shares([(r.seat, r.rank) for r in scores.results])
    return {
        "seed": seed,
        "commands": commands,
        "seconds": round(time.perf_counter() - t0, 3),
        "claims": {str(k): v for k, v in claims_from_events(events, catalogue).items()},
        "win_share": {str(k): v for k, v in shares.items()},
        "scores": {str(r.seat): r.score for r in scores.results},
    }


def run_worker(worker: int, workers: int, deadline: float, seats: int, seed_base: int,
               max_games: int | None, bot: str = "greedy") -> dict[str, Any]:
    catalogue = load_catalogue()
    games: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    k = 0
    while time.time() < deadline and (max_games is None or len(games) + len(errors) < max_games):
        seed = seed_base + worker + k * workers
        k += 1
        try:
            games.append(play_game(seed, seats, catalogue, bot))
        except Exception as exc:  # an engine error must not end the run; it is reported
            errors.append({"seed": seed, "error": f"{type(exc).__name__}: {exc}",
                           "trace": traceback.format_exc(limit=6)})
            if len(errors) >= 20 and not games:
                break
    return {"games": games, "errors": errors}


def summary_table(report: dict[str, Any], out=sys.stderr) -> None:
    agg = report["aggregate"]
    print(f"uc_balance: {report['games']} games ({report['seats']} {report['bot']} bots), {report['errors']} errors, "
          f"{report['seconds']:.0f} s, {report['workers']} workers; average win rate {agg['average_win_rate']:.3f}; "
          f"cards with n >= {report['min_samples']}: {sum(r['reported'] for r in agg['cards'])}", file=out)
    rows = sorted((r for r in agg["cards"] if r["reported"]), key=lambda r: -r["ratio_ci95"][0])
    print(f"{'card':6} {'name':32} {'col':6} {'type':11} {'n':>5} {'win%':>6} {'ratio':>6} {'95% CI':>15}  flag",
          file=out)
    for r in rows[:25]:
        lo, hi = r["ratio_ci95"]
        print(f"{r['id']:6} {str(r['name'])[:32]:32} {str(r['colour'])[:6]:6} {str(r['type']):11} {r['n']:5d} "
              f"{100 * r['win_rate']:6.1f} {r['ratio']:6.2f} [{lo:5.2f}, {hi:5.2f}]  {'FLAG' if r['flagged'] else ''}",
              file=out)
    print(f"flagged (95% interval wholly above {FLAG_RATIO}x average): {agg['flagged'] or 'none'}", file=out)
    print(f"below {report['min_samples']} samples: {len(agg['below_min_samples'])} cards; never claimed: "
          f"{len(agg['never_claimed'])} cards", file=out)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--seats", type=int, default=4)
    ap.add_argument("--min-samples", type=int, default=30)
    ap.add_argument("--seed-base", type=int, default=1)
    ap.add_argument("--max-games", type=int, default=None, help="per worker (for smoke runs)")
    ap.add_argument("--bot", choices=("greedy", "vu_greedy", "random"), default="greedy",
                    help="the bot of every seat: greedy = benthic.rules.bots.GreedyBot (the report's definition); "
                         "vu_greedy = greedy with a card-aware rating (supplementary); random = a quick screen")
    ap.add_argument("--games-out", type=Path, default=None, help="also write the per-game records (JSON)")
    args = ap.parse_args(argv)

    start = time.time()
    deadline = start + 60 * args.minutes
    if args.workers <= 1:
        parts = [run_worker(0, 1, deadline, args.seats, args.seed_base, args.max_games, args.bot)]
    else:
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            futures = [pool.submit(run_worker, w, args.workers, deadline, args.seats, args.seed_base,
                                   args.max_games, args.bot) for w in range(args.workers)]
            parts = [f.result() for f in futures]
    games = [g for p in parts for g in p["games"]]
    errors = [e for p in parts for e in p["errors"]]
    catalogue = load_catalogue()
    report = {
        "game": GAME,
        "seats": args.seats,
        "bot": args.bot,
        "workers": args.workers,
        "seconds": round(time.time() - start, 1),
        "games": len(games),
        "errors": len(errors),
        "error_samples": errors[:3],
        "min_samples": args.min_samples,
        "flag_ratio": FLAG_RATIO,
        "mean_seconds_per_game": round(sum(g["seconds"] for g in games) / len(games), 3) if games else None,
        "mean_commands_per_game": round(sum(g["commands"] for g in games) / len(games), 1) if games else None,
        "mean_winning_score": (round(sum(max(g["scores"].values()) for g in games) / len(games), 1)
                               if games else None),
        "aggregate": aggregate(games, args.seats, args.min_samples, catalogue),
    }
    if args.games_out:
        args.games_out.write_text(json.dumps(games))
    json.dump(report, sys.stdout, indent=1)
    sys.stdout.write("\n")
    summary_table(report)
    return 0 if games else 1


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
