"""Golden games: complete recorded games that every later release must replay exactly (docs/UPGRADES.md).

A corpus file holds one game per JSON line (gzip): its setup (game type, seats, seed, options), the engine
version that recorded it, every event (JSON), every decision (the seat, the command and the index of its first
event) and compact expected digests: a hash chain over the encoded state after every event (with checkpoints
to find where two runs part), a hash chain over every viewer's view at checkpoints, and the final scores.

``check`` replays a game of the engine's current version and compares everything: each decision must decide
exactly its recorded events, every state, view and the final scores must be identical.  A game recorded by
an older engine version is folded through the engine's upcasters and must end with the same final scores.

This module only uses the engine contract (it also records games with older engine versions, see
scripts/golden_games.py), and needs nothing but ``benthic.rules``, msgspec and the standard library.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import random
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import msgspec

from benthic.rules import GameConfig, get_engine
from benthic.rules.bots import GreedyBot, RandomBot

VIEW_EVERY = 100  # views are hashed at every 100th event and at the end
CHECKPOINT_EVERY = 250  # the state chain is kept at every 250th event, to find where two runs part

_json = msgspec.json.Encoder()


class Case(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """A game of the corpus: who plays what, and how the bots choose (one bot name per seat)."""

    id: str
    game_type: str
    seats: int
    seed: int
    options: dict[str, Any] = {}
    bots: tuple[str, ...] = ()  # "random" | "greedy" per seat; default: all random


def engine_version_of(engine: Any) -> int:
    return int(getattr(engine, "engine_version", 1))


def _builtins(value: Any) -> Any:
    return json.loads(_json.encode(value))


def _bot(name: str) -> Any:
    return GreedyBot() if name == "greedy" else RandomBot()


def record(case: Case, digests: bool = True) -> dict[str, Any]:
    """Play ``case`` with its bots (a seeded RNG: the same engine always plays the same game)."""
    engine = get_engine(case.game_type)
    rng = random.Random(f"golden:{case.id}")
    bots = [_bot(case.bots[s] if s < len(case.bots) else "random") for s in range(case.seats)]
    events = list(engine.start(GameConfig(seats=case.seats, seed=case.seed, options=dict(case.options))))
    state = engine.replay(events)
    decisions: list[list[Any]] = []
    for _ in range(engine.playout_bound):
        prompt = engine.prompt(state)
        if prompt is None:
            break
        seat = prompt.seats[0] if len(prompt.seats) == 1 else rng.choice(prompt.seats)
        command = bots[seat].choose(engine, state, seat, rng)
        new = engine.decide(state, seat, command)
        decisions.append([len(events), seat, engine.command_to_builtins(command)])
        state = engine.fold(state, new)
        events.extend(new)
    else:
        raise RuntimeError(f"{case.id}: no end within {engine.playout_bound} commands")
    line: dict[str, Any] = {
        **msgspec.to_builtins(case),
        "engine_version": engine_version_of(engine),
        "events": [_builtins(e) for e in events],
        "decisions": decisions,
        "final_scores": _builtins(engine.final_scores(state)),
    }
    if digests:
        line["expected"] = Replay(engine, line).run()
    return line


class Replay:
    """One replay of a recorded game by the current engine, computing the digests ``record`` stores."""

    def __init__(self, engine: Any, line: dict[str, Any]) -> None:
        self.engine = engine
        self.line = line
        self.version = int(line["engine_version"])
        self.viewers: list[int | None] = [None, *range(int(line["seats"]))]
        self.problems: list[str] = []

    def run(self, redecide: bool = True) -> dict[str, Any]:
        engine, line = self.engine, self.line
        raw = [_json.encode(e) for e in line["events"]]
        decisions = {int(d[0]): (int(d[1]), d[2]) for d in line.get("decisions", [])} if redecide else {}
        states = hashlib.blake2b(digest_size=16)
        views = hashlib.blake2b(digest_size=16)
        checkpoints: list[list[Any]] = []
        state = engine.initial_state()
        for index, data in enumerate(raw):
            if index in decisions:
                self._redecide(state, index, *decisions[index], raw)
            state = engine.evolve(state, engine.decode_event(data, self.version))
            states.update(engine.encode_state(state))
            count = index + 1
            if count % VIEW_EVERY == 0 or count == len(raw):
                for viewer in self.viewers:
                    views.update(_json.encode(engine.view(state, viewer)))
            if count % CHECKPOINT_EVERY == 0:
                checkpoints.append([count, states.hexdigest()])
        if not engine.is_over(state):
            self.problems.append("the game does not end")
        self.final_scores = _builtins(engine.final_scores(state)) if engine.is_over(state) else None
        return {"events": len(raw), "states": states.hexdigest(), "views": views.hexdigest(),
                "checkpoints": checkpoints}

    def _redecide(self, state: Any, index: int, seat: int, command: dict[str, Any], raw: list[bytes]) -> None:
        engine = self.engine
        try:
            new = engine.decide(state, seat, engine.decode_command(command))
        except Exception as error:  # noqa: BLE001 - a refused recorded decision is a finding, not a crash
            self.problems.append(f"event {index}: seat {seat}'s {command} is refused now: {error}")
            return
        now = [_json.encode(e) for e in new]
        if now != raw[index : index + len(now)]:
            self.problems.append(f"event {index}: seat {seat}'s {command['type']} decides other events now")


def check(line: dict[str, Any]) -> list[str]:
    """What differs when the current engine replays ``line`` (empty: nothing)."""
    engine = get_engine(line["game_type"])
    current = engine_version_of(engine)
    recorded = int(line["engine_version"])
    if recorded > current:
        return [f"recorded by engine version {recorded}, newer than this engine's {current}"]
    replay = Replay(engine, line)
    try:
        got = replay.run(redecide=recorded == current)
    except Exception as error:  # noqa: BLE001 - reported per game
        return [f"replay failed: {type(error).__name__}: {error}"]
    problems = list(replay.problems)
    if replay.final_scores != line["final_scores"]:
        problems.append(f"final scores {replay.final_scores} != recorded {line['final_scores']}")
    expected = line.get("expected")
    if recorded == current and expected is not None:
        if got["events"] != expected["events"]:
            problems.append(f"{got['events']} events != {expected['events']}")
        if got["states"] != expected["states"]:
            pairs = zip(expected["checkpoints"], got["checkpoints"], strict=False)
            parted = next((c for c, g in pairs if c != g), None)
            where = f"by event {parted[0]}" if parted else "after the last checkpoint"
            problems.append(f"the states differ ({where})")
        if got["views"] != expected["views"]:
            problems.append("the views differ")
    return problems


def write(path: Path, lines: Iterable[dict[str, Any]]) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    count = 0
    # mtime=0: the same games give the same bytes (the corpus is in git)
    with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, compresslevel=9) as out:
        for line in lines:
            out.write(json.dumps(line, separators=(",", ":")).encode() + b"\n")  # key order kept: dicts in events
            count += 1
    return count


def read(path: Path) -> Iterator[dict[str, Any]]:
    with gzip.open(path, "rb") as lines:
        for line in lines:
            if line.strip():
                yield json.loads(line)


def corpus_files(root: Path, game_type: str | None = None) -> list[Path]:
    """``root/<game>/v<N>.jsonl.gz`` files, oldest version first."""
    pattern = f"{game_type or '*'}/v*.jsonl.gz"
    return sorted(root.glob(pattern), key=lambda p: (p.parent.name, int(p.name[1:].split(".")[0])))
