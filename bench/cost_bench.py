"""The cost of one accepted move (issue 35): CPU per move of every server process beside the rules engine's own.

Identical seeded games of every game type (and the counter game of bench/counter_engine.py) are first played in this
process through the engine API (a seeded random choice among the legal commands: the plan), timing the engine's own
work on each move in CPU time: ``decide``, the fold of its events, the legal commands of the mover and their labels
(what the ``?include=legal`` answer carries), the legal commands and labels of the seats to move next, and every
seat's and the spectator's view.  Then the real platform (``LocalPlatform``: a private Redis, every service as a
process) is given the same games (created by the operator with the same seeds) and the same commands, once over HTTP
(``POST /games/{id}/commands?include=legal``) and once over the play socket (``WS /games/{id}/play``), ``--games``
games of a type played at once, each seat moving as soon as its turn comes.

Measured per process: user + system CPU (/proc/<pid>/stat) from the first move until every consumer is idle again
(the projection, notifier, scoring, bots and archiver have folded what the moves produced), over the moves accepted;
Redis' CPU per command (``INFO commandstats``, reset before each window; scripts as ``evalsha``).  Idle CPU (ms per
second with no load) of every process, measured before the games.

``--profile``: one more HTTP pass with py-spy sampling the command service (``py-spy record --format raw
--nonblocking``; the bench's ``pip install '.[bench]'`` pins it), its samples aggregated into the stages of a move
(benthic's own functions name them: bench/cost_bench.py STAGES), and Redis' slow log at threshold 0 naming each
script's share.  py-spy reads the process' memory from outside (no pause with --nonblocking) at ``--rate`` Hz; its
own CPU and the command service's CPU per move with and without it are reported beside the stages.

Prints JSON on stdout (for bench/run.py), the table on stderr with each figure beside bench/cost_baseline.json
(``!`` marks one more than 20% above it: a report, not an assertion), writes bench/results/cost-*.json;
``--write-baseline`` makes this run the baseline.

    python -m bench.cost_bench [--games 8] [--moves 80] [--transports http,ws] [--profile] [--write-baseline]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import uvloop
from redis import Redis

from bench.common import BENCH_LIMITS, CpuWindow, env_overrides
from bench.counter_engine import ENGINE as COUNTER
from bench.loadclient import LoadClient
from bench.peer_bench import idle_cpu_ms_per_s
from benthic.i18n import localized_labels
from benthic.local.localplatform import LocalPlatform
from benthic.local.signals import stop_servers_on_signals
from benthic.rules import GameConfig, game_types, get_engine, register_engine

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "bench" / "results"
BASELINE = ROOT / "bench" / "cost_baseline.json"
COUNTER_ENGINE = "bench.counter_engine:ENGINE"
GROWTH_FLAG = 1.2  # a figure more than 20% above its baseline is flagged


# --- the plan and the engine's own cost ----------------------------------------------------------
def _engine(game_type: str) -> Any:
    if game_type == "counter":
        try:
            return get_engine("counter")
        except LookupError:
            register_engine(COUNTER)
            return COUNTER
    return get_engine(game_type)


def plan_games(game_type: str, games: int, seats: int, moves: int) -> list[dict[str, Any]]:
    """``games`` seeded games of ``game_type``: each a seed and its first ``moves`` (seat, command) choices."""
    engine = _engine(game_type)
    plans = []
    for index in range(games):
        seed = 35_000 + index
        rng = random.Random(f"cost:{game_type}:{seed}")
        options = {"moves": moves} if game_type == "counter" else {}
        state = engine.replay(engine.start(GameConfig(seats=seats, seed=seed, options=options)))
        steps: list[tuple[int, Any]] = []
        while len(steps) < moves and (prompt := engine.prompt(state)) is not None:
            seat = prompt.seats[0] if len(prompt.seats) == 1 else rng.choice(prompt.seats)
            command = rng.choice(engine.legal_commands(state, seat))
            steps.append((seat, command))
            state = engine.fold(state, engine.decide(state, seat, command))
        plans.append({"seed": seed, "options": options, "steps": steps})
    return plans


def engine_cost(game_type: str, plans: list[dict[str, Any]], seats: int, rounds: int = 3) -> dict[str, Any]:
    """The engine's CPU per move on the planned moves, µs (the best of ``rounds`` replays: the engine's own cost,
    not the machine's neighbours')."""
    engine = _engine(game_type)
    clock = time.thread_time
    best: dict[str, float] = {}
    moves = sum(len(p["steps"]) for p in plans)
    for _ in range(rounds):
        spent: Counter[str] = Counter()
        for plan in plans:
            state = engine.replay(engine.start(GameConfig(seats=seats, seed=plan["seed"], options=plan["options"])))
            for seat, command in plan["steps"]:
                t0 = clock()
                events = engine.decide(state, seat, command)
                t1 = clock()
                state = engine.fold(state, events)
                t2 = clock()
                prompt = engine.prompt(state)
                legal = engine.legal_commands(state, seat)
                t3 = clock()
                if legal:
                    localized_labels(engine.describe_all(state, legal, seat), "en")
                t4 = clock()
                nxt = 0.0
                for other in (prompt.seats if prompt is not None else ()):
                    if other == seat:
                        continue
                    t = clock()
                    theirs = engine.legal_commands(state, other)
                    if theirs:
                        localized_labels(engine.describe_all(state, theirs, other), "en")
                    nxt += clock() - t
                t5 = clock()
                for viewer in (*range(seats), None):
                    engine.view(state, viewer)
                t6 = clock()
                spent.update({"decide": t1 - t0, "fold": t2 - t1, "legal": t3 - t2, "labels": t4 - t3,
                              "next_seats_legal_labels": nxt, "views": t6 - t5})
        for name, seconds in spent.items():
            best[name] = min(best.get(name, float("inf")), seconds)
    per = {name: round(seconds * 1e6 / moves, 1) for name, seconds in best.items()}
    answer = per["decide"] + per["fold"] + per["legal"] + per["labels"]
    return {"moves": moves, "us_per_move": per, "answer_us": round(answer, 1),
            "full_us": round(answer + per["next_seats_legal_labels"] + per["views"], 1)}


# --- the platform's cost -------------------------------------------------------------------------
async def _create(client: LoadClient, operator: str, game_type: str, seats: int, plan: dict[str, Any],
                  tag: str) -> tuple[str, dict[int, str], int]:
    players = [{"player_id": f"cost-{tag}-{i}", "name": f"Cost {i + 1}"} for i in range(seats)]
    created = await client._call("POST", "/games", operator, {  # noqa: SLF001 - the load client's one call
        "game_type": game_type, "seats": players, "options": plan["options"], "seed": plan["seed"], "rated": False})
    game_id = created["game_id"]
    tokens = {}
    for seat in created["seats"]:
        tokens[seat["seat"]] = seat.get("token") or (await client.seat_token(game_id, seat["player_id"]))["token"]
    version = (await client.legal(game_id, tokens[0]))["version"]
    return game_id, tokens, version


def _settle(window: CpuWindow, quiet_s: float = 0.4, limit_s: float = 10.0) -> None:
    """Wait until no process has spent CPU for ``quiet_s`` beyond its idle rate (the consumers are done)."""
    deadline = time.monotonic() + limit_s
    last = window._sample()  # noqa: SLF001
    while time.monotonic() < deadline:
        time.sleep(quiet_s)
        now = window._sample()  # noqa: SLF001
        busy = sum(now[name] - last[name] for name in now if name != "load_client")
        last = now
        if busy < 0.02 * quiet_s * len(now) + 0.011:  # a tick or so: idle loops only
            return


def _commandstats(redis: Redis) -> dict[str, dict[str, float]]:
    stats = redis.info("commandstats")
    return {name.removeprefix("cmdstat_"): {"calls": v["calls"], "usec": v["usec"]} for name, v in stats.items()}


async def _play(platform: LocalPlatform, game_type: str, seats: int, plans: list[dict[str, Any]], transport: str,
                tag: str, redis: Redis) -> dict[str, Any]:
    client = LoadClient(platform.command_url, platform.mint)
    operator = f"{platform.operator_token}"
    made = [await _create(client, operator, game_type, seats, plan, f"{tag}-{i}") for i, plan in enumerate(plans)]
    sockets: dict[tuple[int, int], Any] = {}
    if transport == "ws":
        for i, (game_id, tokens, _) in enumerate(made):
            for seat, token in tokens.items():
                sockets[(i, seat)] = await client.socket(game_id, token)
    await asyncio.sleep(1.0)  # the creations projected, scored, notified: not in the window
    await asyncio.to_thread(_settle, CpuWindow(platform.pids()))
    window = CpuWindow({**platform.pids(), "load_client": os.getpid()}, alone=frozenset({"load_client"}))
    redis.config_resetstat()
    errors: list[str] = []
    accepted = 0

    async def lane(i: int) -> None:
        nonlocal accepted
        game_id, tokens, version = made[i]
        for seat, command in plans[i]["steps"]:
            body = _builtins(game_type, command)
            try:
                if transport == "ws":
                    answer = await sockets[(i, seat)].play(body, uuid.uuid4().hex, version, include_legal=True)
                else:
                    answer = await client.play(game_id, tokens[seat], body, expected_version=version,
                                               include_legal=True)
            except Exception as error:  # noqa: BLE001 - counted and reported
                errors.append(repr(error)[:200])
                return
            version = answer["last_version"]
            accepted += 1

    window.start()
    await asyncio.gather(*(lane(i) for i in range(len(made))))
    played_s = time.monotonic() - window.started
    await asyncio.to_thread(_settle, window)
    cpu = window.stop()
    stats = _commandstats(redis)
    for socket in sockets.values():
        await socket.aclose()
    await client.aclose()
    servers = {name: s for name, s in cpu.items() if name != "load_client"}
    per_move = {name: round(s * 1e6 / accepted, 1) if accepted else None for name, s in servers.items()}
    per_move["total"] = round(sum(servers.values()) * 1e6 / accepted, 1) if accepted else None
    redis_commands = {name: round(v["usec"] / accepted, 2) for name, v in sorted(
        stats.items(), key=lambda kv: -kv[1]["usec"]) if accepted and v["usec"] / accepted >= 0.5}
    return {"transport": transport, "moves": accepted, "played_s": round(played_s, 2),
            "window_s": round(window.stopped - window.started, 2), "cpu_us_per_move": per_move,
            "load_client_us_per_move": round(cpu["load_client"] * 1e6 / accepted, 1) if accepted else None,
            "redis_commands_us_per_move": redis_commands,
            "redis_calls_per_move": {name: round(v["calls"] / accepted, 2) for name, v in stats.items()
                                     if accepted and v["calls"] / accepted >= 0.05},
            "errors": errors[:5], "error_count": len(errors)}




def _builtins(game_type: str, command: Any) -> Any:
    engine = _engine(game_type)
    return engine.command_to_builtins(command)


# --- the profile of the command service ----------------------------------------------------------
# A sample's stage: the outermost frame naming one of these (function name, then a piece of its file's path).
STAGES: list[tuple[str, tuple[str, str]]] = [
    ("credential check", ("_seat_claim", "services/command/app.py")),
    ("credential check", ("verify", "benthic/trust/auth.py")),
    ("credential check", ("_verify", "services/command/play_socket.py")),
    ("rate limit", ("hit", "benthic/trust/ratelimit.py")),
    ("decode (request body, parameters)", ("decode_command", "benthic/rules/core.py")),
    ("state load", ("load", "benthic/store/loader.py")),
    ("state load", ("cached", "benthic/store/loader.py")),
    ("state load", ("load", "benthic/play/path.py")),
    ("state load", ("meta", "services/command/")),
    ("state load", ("game_type", "services/command/")),
    ("state load", ("is_running", "services/command/")),
    ("decide + fold", ("_decide", "benthic/play/path.py")),
    ("decide + fold", ("fold", "benthic/rules/core.py")),
    ("decide + fold", ("is_over", "benthic/rules/core.py")),
    ("decide + fold", ("advance", "benthic/game/lifecycle.py")),
    ("decide + fold", ("remember", "benthic/store/loader.py")),
    ("append + WAIT (client side)", ("append", "benthic/store/eventstore.py")),
    ("legal + labels", ("after_command", "services/command/legal.py")),
    ("legal + labels", ("legal_commands", "services/command/legal.py")),
    ("answer assembly", ("_accepted", "services/command/service.py")),
    ("answer assembly", ("_redacted", "benthic/play/path.py")),
    ("middlewares (metrics, admission, log context, body limits)", ("_acting", "services/command/app.py")),
]
MIDDLEWARE_PATHS = ("benthic/service/http.py", "benthic/service/admission.py", "benthic/service/headlimits.py",
                    "benthic/runtime/telemetry", "prometheus_client", "structlog")
DECODE = ("to_kwargs", "extractor", "parse_values", "decode", "get_request_data")
ENCODE = ("to_response", "to_asgi_response", "start_response", "encode", "render", "serialize")
OWNERS = ("benthic/", "services/", "litestar/", "uvicorn/", "redis/", "msgspec", "prometheus_client", "structlog")
REDIS_PATHS = ("redis/", "benthic/store/pipelining.py", "hiredis")


def _frame(text: str) -> tuple[str, str]:
    """``function (path:line)`` -> (function, path)."""
    name, _, rest = text.partition(" (")
    return name, rest.rsplit(":", 1)[0]


WEAK = frozenset({"answer assembly"})  # a stage that holds others (the answer computes the next legal commands)


def stage_of(stack: list[tuple[str, str]]) -> str:
    """The stage of one sample (its frames, root first): the outermost frame naming a stage, a weak one only when
    no frame under it names another."""
    weak = None
    for name, path in stack:
        for stage, (function, piece) in STAGES:
            if name == function and piece in path:
                if stage not in WEAK:
                    return stage
                weak = weak or stage
    if weak is not None:
        return weak
    owner = next((p for _, p in reversed(stack) if any(x in p for x in OWNERS)), "")  # the leaf-most non-stdlib
    if any(piece in owner for piece in MIDDLEWARE_PATHS) or any(
            piece in p for _, p in stack for piece in MIDDLEWARE_PATHS[4:]):
        return "middlewares (metrics, admission, log context, body limits)"
    if any(piece in p for _, p in stack for piece in REDIS_PATHS):
        return "Redis client (pipelined round trips of every stage)"
    framework = [n for n, p in stack if "litestar" in p or "msgspec" in p]
    if any(word in n for n in framework for word in DECODE):
        return "decode (request body, parameters)"
    if any(word in n for n in framework for word in ENCODE):
        return "encode + send (answer)"
    if any("websocket" in p or "wsproto" in p or "play_socket" in p for _, p in stack):
        return "WebSocket frames"
    if stack and stack[-1][1].startswith("asyncio/runners"):
        return "event loop (uvloop: polling, callbacks)"
    return "HTTP server + framework (uvicorn, Litestar routing)"


def aggregate_raw(text: str) -> dict[str, int]:
    """py-spy's raw (collapsed) output: one ``frame;frame;... count`` line per distinct stack, root first."""
    stages: Counter[str] = Counter()
    for line in text.splitlines():
        stack_text, _, count = line.rpartition(" ")
        if not stack_text or not count.isdigit():
            continue
        frames = [_frame(f) for f in stack_text.split(";")]
        stages[stage_of(frames)] += int(count)
    return dict(stages)


def _py_spy() -> str | None:
    found = shutil.which("py-spy") or shutil.which("py-spy", path=str(Path(sys.executable).parent))
    return found


def _script_names() -> dict[str, str]:
    """The sha1 of every Lua script the services run -> its name (what EVALSHA names in the slow log): the tree's
    files, the rate limiter's (the ``limits`` package's), the inline ones, each also fused
    (benthic.store.pipelining)."""
    import limits

    from benthic.play import players
    from benthic.store.pipelining import _FUSED
    from benthic.views import writes

    sources = {str(p.relative_to(ROOT)): p.read_text() for p in
               (*ROOT.glob("services/**/*.lua"), *ROOT.glob("shared/benthic/**/*.lua"))}
    sources.update({f"limits/{p.name}": p.read_text() for p in Path(limits.__file__).parent.glob("**/*.lua")})
    inline = {"benthic/play/players.py _RESERVE": getattr(players, "_RESERVE", None),
              "benthic/views/writes.py NOTIFY_SOURCE": getattr(writes, "NOTIFY_SOURCE", None)}
    sources.update({name: text for name, text in inline.items() if isinstance(text, str)})
    names = {}
    for name, text in sources.items():
        names[hashlib.sha1(text.encode()).hexdigest()] = name  # noqa: S324 - Redis' id of a script
        names[hashlib.sha1((_FUSED % text).encode()).hexdigest()] = f"{name} (fused)"  # noqa: S324
    return names


async def _profiled(platform: LocalPlatform, game_type: str, seats: int, plans: list[dict[str, Any]], rate: int,
                    redis: Redis, tag: str) -> dict[str, Any]:
    spy = _py_spy()
    if spy is None:
        return {"skipped": "py-spy is not installed (pip install -c constraints.txt -e '.[bench]')"}
    out = Path(tempfile.mkdtemp(prefix="benthic-cost-")) / "command.raw"
    command_pid = platform.pids()["command"]
    redis.config_set("slowlog-log-slower-than", 0)
    redis.config_set("slowlog-max-len", 1_000_000)
    redis.slowlog_reset()
    process = subprocess.Popen([spy, "record", "--format", "raw", "--nonblocking", "--rate", str(rate),
                                "--pid", str(command_pid), "--output", str(out)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    await asyncio.sleep(1.5)  # attached
    spy_cpu = CpuWindow({"py-spy": process.pid})
    spy_cpu.start()
    try:
        measured = await _play(platform, game_type, seats, plans, "http", tag, redis)
    finally:
        spent = spy_cpu.stop()["py-spy"]
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
    slowlog = redis.slowlog_get(1_000_000)
    redis.config_set("slowlog-log-slower-than", 10_000)
    redis.slowlog_reset()
    if not out.exists():
        err = process.stderr.read().decode()[-300:] if process.stderr else ""
        return {"skipped": f"py-spy wrote nothing: {err}"}
    stages = aggregate_raw(out.read_text(errors="replace"))
    total = sum(stages.values()) or 1
    command_us = measured["cpu_us_per_move"]["command"] or 0.0
    names = _script_names()
    scripts: Counter[str] = Counter()
    for entry in slowlog:
        args = [a.decode(errors="replace") if isinstance(a, bytes) else str(a) for a in entry["command"].split()]
        if not args:
            continue
        key = args[0].lower()
        if key in ("evalsha", "fcall") and len(args) > 1:
            key = names.get(args[1], f"evalsha {args[1][:10]}")
        scripts[key] += int(entry["duration"])
    moves = measured["moves"] or 1
    shutil.copy(out, RESULTS_DIR / f"cost-profile-{game_type}.raw")  # the samples, to look at
    shutil.rmtree(out.parent, ignore_errors=True)
    return {
        "game_type": game_type, "rate_hz": rate, "samples": sum(stages.values()),
        "command_cpu_us_per_move_profiled": command_us,
        "py_spy_cpu_us_per_move": round(spent * 1e6 / moves, 1),
        "stages_share": {s: round(n / total, 3) for s, n in sorted(stages.items(), key=lambda kv: -kv[1])},
        "stages_us_per_move": {s: round(command_us * n / total, 1) for s, n in
                               sorted(stages.items(), key=lambda kv: -kv[1])},
        "redis_us_per_move_by_script": {k: round(v / moves, 2) for k, v in scripts.most_common(12)},
        "redis_note": "from the slow log at threshold 0 (every command; its own cost is in Redis' CPU of this pass)",
    }


# --- the run -------------------------------------------------------------------------------------
def run(types: list[str], games: int, seats: int, moves: int, transports: list[str], profile: bool, rate: int,
        idle_s: float) -> dict[str, Any]:
    overrides = {**BENCH_LIMITS, **env_overrides()}
    extra = [s for s in overrides.get("BENTHIC_EXTRA_ENGINES", "").split(",") if s and s != COUNTER_ENGINE]
    pythonpath = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {"BENTHIC_LOG_LEVEL": "warning", **overrides, "BENTHIC_EXTRA_ENGINES": ",".join([COUNTER_ENGINE, *extra]),
           "PYTHONPATH": os.pathsep.join(pythonpath)}
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    report: dict[str, Any] = {"games_per_type": games, "seats": seats, "moves_per_game": moves,
                              "note": "CPU µs per accepted move; the machine may be shared: compare within a run"}
    plans = {t: plan_games(t, games, seats, moves) for t in types}
    report["engine"] = {t: engine_cost(t, plans[t], seats) for t in types}
    log_dir = Path(tempfile.mkdtemp(prefix="benthic-cost-"))
    with LocalPlatform(env=env, log_dir=str(log_dir)) as platform:
        redis = Redis.from_url(str(platform.redis_url))
        time.sleep(2.0)
        report["idle_cpu_ms_per_s"] = idle_cpu_ms_per_s(platform.pids(), idle_s)
        platform_cost: dict[str, dict[str, Any]] = {}
        for game_type in types:
            for transport in transports:
                print(f"== cost: {game_type} over {transport}", file=sys.stderr, flush=True)
                platform_cost.setdefault(game_type, {})[transport] = uvloop.run(
                    _play(platform, game_type, seats, plans[game_type], transport, f"{game_type}-{transport}", redis))
        report["platform"] = platform_cost
        if profile:
            report["profile"] = {}
            for game_type in ("counter", "nautilus") if "nautilus" in types else types[:1]:
                print(f"== cost: {game_type} over http, profiled", file=sys.stderr, flush=True)
                try:
                    report["profile"][game_type] = uvloop.run(
                        _profiled(platform, game_type, seats, plans[game_type], rate, redis, f"{game_type}-spy"))
                except Exception as error:  # noqa: BLE001 - the measured passes stand without it
                    report["profile"][game_type] = {"error": repr(error)[:300]}
        redis.close()
    shutil.rmtree(log_dir, ignore_errors=True)
    report["ratio_platform_to_engine"] = {
        t: {tr: round(m["cpu_us_per_move"]["total"] / report["engine"][t]["full_us"], 2)
            for tr, m in platform_cost[t].items() if m["cpu_us_per_move"]["total"]} for t in types}
    return report


# --- the report beside the baseline --------------------------------------------------------------
def flat(report: dict[str, Any]) -> dict[str, float]:
    """The figures compared with the baseline: ``<game>/<transport>/<process>``, engine and profile stages."""
    figures: dict[str, float] = {}
    for game_type, by in report.get("platform", {}).items():
        for transport, measured in by.items():
            for process, us in measured["cpu_us_per_move"].items():
                if us is not None:
                    figures[f"{game_type}/{transport}/{process}"] = us
    for game_type, cost in report.get("engine", {}).items():
        figures[f"{game_type}/engine/answer"] = cost["answer_us"]
        figures[f"{game_type}/engine/full"] = cost["full_us"]
    for game_type, profiled in report.get("profile", {}).items():
        for stage, us in profiled.get("stages_us_per_move", {}).items():
            figures[f"{game_type}/command stage/{stage}"] = us
    for process, ms in report.get("idle_cpu_ms_per_s", {}).items():
        figures[f"idle ms/s/{process}"] = ms
    return figures


def compare(report: dict[str, Any], baseline: dict[str, Any] | None) -> tuple[str, list[str]]:
    now = flat(report)
    before = flat(baseline) if baseline else {}
    lines = [f"{'figure (CPU µs per accepted move)':64}{'now':>10}{'baseline':>10}{'ratio':>8}"]
    grown = []
    for key, value in now.items():
        base = before.get(key)
        ratio = value / base if base else None
        flag = ratio is not None and ratio > GROWTH_FLAG and value - (base or 0) > 5
        if flag:
            grown.append(key)
        lines.append(f"{key:64}{value:>10.1f}{base if base is not None else float('nan'):>10.1f}"
                     f"{ratio if ratio is not None else float('nan'):>8.2f}{'  ! grew > 20%' if flag else ''}")
    for game_type, ratios in report.get("ratio_platform_to_engine", {}).items():
        lines.append(f"platform / engine (full), {game_type}: "
                     + ", ".join(f"{t} {r:.2f}x" for t, r in ratios.items()) + " (target <= 2x)")
    return "\n".join(lines), grown


def main() -> None:
    stop_servers_on_signals()
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--types", default="", help="game types (default: every installed one, and counter)")
    parser.add_argument("--games", type=int, default=8, help="games of each type played at once")
    parser.add_argument("--seats", type=int, default=2)
    parser.add_argument("--moves", type=int, default=80, help="moves of each game")
    parser.add_argument("--transports", default="http,ws")
    parser.add_argument("--profile", action="store_true", help="one more HTTP pass under py-spy")
    parser.add_argument("--rate", type=int, default=500, help="py-spy's samples per second")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds of idle CPU measured before the games")
    parser.add_argument("--baseline", default=str(BASELINE))
    parser.add_argument("--write-baseline", action="store_true", help="this run becomes the baseline")
    args = parser.parse_args()
    types = [t for t in args.types.split(",") if t] or [*game_types(), "counter"]
    report = run(types, args.games, args.seats, args.moves, [t for t in args.transports.split(",") if t],
                 args.profile, args.rate, args.idle)
    baseline_path = Path(args.baseline)
    try:
        baseline = json.loads(baseline_path.read_text()).get("cost_bench")
    except (OSError, ValueError):  # none (yet), or not one
        baseline = None
    table, grown = compare(report, baseline)
    report["grown_over_20_percent"] = grown
    text = json.dumps({"cost_bench": report}, indent=2)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / f"cost-{time.strftime('%Y%m%d-%H%M%S')}.json").write_text(text)
    (RESULTS_DIR / "cost-latest.json").write_text(text)
    if args.write_baseline:
        baseline_path.write_text(text + "\n")
    print(table, file=sys.stderr, flush=True)
    print(text)


if __name__ == "__main__":
    main()
