"""The peer benchmark: server CPU per move, Benthic against boardgame.io 0.50 in memory.

The same trivial two-player counter game (seats alternate, one `increment` per turn, the game ends after
``--moves`` moves, nothing hidden) runs on both servers under the same closed-loop load: ``--games``
concurrent games, each seat moving as soon as it is its turn, finished games replaced by new ones.

- boardgame.io 0.50.2 (bench/peer/: the game, its server with the default in-memory storage and socket.io
  transport, and a Node load client creating matches through the lobby API and playing over socket.io).
  The pinned versions are installed with ``npm ci`` into bench/peer/node_modules; without node and npm, or
  when the install fails, that side is skipped with the reason.
- Benthic: the real platform (``LocalPlatform``: a private Redis with AOF everysec, the command, projection
  and scoring services as processes), the counter engine registered in every service through
  ``BENTHIC_EXTRA_ENGINES=bench.counter_engine:ENGINE``, driven over HTTP by the aiohttp load client of
  bench/e2e_bench.py (each move is a POST ``?include=legal``: its answer names the next seat).

Server CPU per move = user + system CPU time (/proc/<pid>/stat, the process and its descendants) of the
server processes during the measured window / moves answered in it.  The load generators' CPU is reported
apart.  Prints JSON on stdout (for bench/run.py), the table on stderr, and writes bench/results/peer-*.json.

    python -m bench.peer_bench [--games 200] [--moves 100] [--warmup 10] [--seconds 20] [--only benthic]
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx
import uvloop

from bench.common import BENCH_LIMITS, CpuWindow, env_overrides, histogram, histogram_quantile, latency_ms
from bench.loadclient import LoadClient
from benthic.clients.bots_http import start_bot_game
from benthic.local.devredis import free_port, stop_process
from benthic.local.localplatform import LocalPlatform
from benthic.local.signals import stop_servers_on_signals

ROOT = Path(__file__).resolve().parent.parent
PEER_DIR = ROOT / "bench" / "peer"
RESULTS_DIR = ROOT / "bench" / "results"
COUNTER_ENGINE = "bench.counter_engine:ENGINE"
PINNED = {"boardgame.io": "0.50.", "koa-compose": "4.1.0"}  # prefix of the version each must have


def idle_cpu_ms_per_s(pids: dict[str, int], seconds: float) -> dict[str, float]:
    """CPU each server process spends per second with no load (polling loops, timers): a share of every
    window's CPU that does not grow with the moves, so it weighs more per move when throughput is low."""
    if seconds <= 0:
        return {}
    window = CpuWindow(pids)
    window.start()
    time.sleep(seconds)
    cpu = window.stop()
    elapsed = window.stopped - window.started
    return {name: round(spent * 1000 / elapsed, 2) for name, spent in cpu.items()}


def _per_move_ms(cpu: dict[str, float], moves: int) -> dict[str, float | None]:
    return {name: round(seconds * 1000 / moves, 3) if moves else None for name, seconds in cpu.items()}


# --- boardgame.io ---------------------------------------------------------------------------------
class PeerUnavailable(Exception):
    """The boardgame.io side cannot run here (the message says why and what to install)."""


def _lock_digest() -> str:
    digest = hashlib.sha256()
    for name in ("package.json", "package-lock.json"):
        digest.update((PEER_DIR / name).read_bytes())
    return digest.hexdigest()


def ensure_peer_installed() -> str:
    """``npm ci`` the pinned versions into bench/peer/node_modules unless that exact lock is installed;
    returns the path of node.  Raises PeerUnavailable when node or npm is missing or the install fails."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        raise PeerUnavailable(
            "boardgame.io peer skipped: node and npm are not on PATH (Debian: apt-get install nodejs npm)"
        )
    stamp = PEER_DIR / "node_modules" / ".benthic-lock-sha256"
    if not stamp.exists() or stamp.read_text().strip() != _lock_digest():
        done = subprocess.run(
            [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
            check=False, cwd=PEER_DIR, capture_output=True, text=True, timeout=600,
        )
        if done.returncode != 0:
            output = (done.stderr or done.stdout).splitlines()
            lines = [line for line in output if not line.removeprefix("npm error").strip().startswith("at ")]
            reason = " | ".join(lines)[:600]
            raise PeerUnavailable(f"boardgame.io peer skipped: npm ci in {PEER_DIR} failed: {reason}")
        stamp.write_text(_lock_digest())
    for package, prefix in PINNED.items():
        manifest = PEER_DIR / "node_modules" / package / "package.json"
        version = json.loads(manifest.read_text())["version"] if manifest.exists() else "missing"
        if not version.startswith(prefix):
            raise PeerUnavailable(f"boardgame.io peer skipped: {package} is {version}, the bench needs {prefix}")
    return node


def _wait_http(url: str, process: subprocess.Popen[Any], timeout: float, log: Path) -> None:
    deadline = time.monotonic() + timeout
    while True:
        if process.poll() is not None:
            raise RuntimeError(f"{url}: the server exited with {process.returncode}; see {log}")
        try:
            if httpx.get(url, timeout=1.0).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"{url} did not answer within {timeout}s; see {log}")
        time.sleep(0.1)


def run_boardgameio(
    node: str, games: int, moves: int, warmup: float, seconds: float, idle: float, log_dir: Path
) -> dict[str, Any]:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "NODE_ENV": "production"}  # boardgame.io logs every move outside production
    server_log = log_dir / "boardgameio-server.log"
    with open(server_log, "ab") as log:
        server = subprocess.Popen([node, "server.js", str(port)], cwd=PEER_DIR, env=env, stdout=log, stderr=log)
    load: subprocess.Popen[str] | None = None
    try:
        _wait_http(f"{url}/games", server, 30.0, server_log)
        idle_cpu = idle_cpu_ms_per_s({"server": server.pid}, idle)
        load_log = log_dir / "boardgameio-load.log"
        with open(load_log, "ab") as log:
            load = subprocess.Popen(
                [node, "load.js", "--url", url, "--games", str(games), "--moves", str(moves),
                 "--warmup", str(warmup), "--seconds", str(seconds)],
                cwd=PEER_DIR, env=env, stdout=subprocess.PIPE, stderr=log, text=True,
            )
        watchdog = threading.Timer(warmup + seconds + 120, load.kill)  # never hang the whole bench
        watchdog.start()
        window = CpuWindow({"server": server.pid, "load_client": load.pid})
        cpu: dict[str, float] = {}
        result: dict[str, Any] = {}
        assert load.stdout is not None
        for line in load.stdout:
            message = json.loads(line)
            if message["event"] == "window_start":
                window.start()
            elif message["event"] == "window_end":
                cpu = window.stop()
            elif message["event"] == "result":
                result = message
        load.wait()
        watchdog.cancel()
        if load.returncode != 0 or not result or not cpu:
            raise RuntimeError(f"the boardgame.io load client failed (exit {load.returncode}); see {load_log}")
    finally:
        if load is not None:
            stop_process(load, timeout=10)
        stop_process(server, timeout=10)
    result.pop("event")
    moves_done = result["moves"]
    return {
        "server": "boardgame.io 0.50 (in-memory storage, socket.io transport)",
        "versions": _installed_versions(),
        **result,
        "window_measured_s": round(window.stopped - window.started, 3),
        "server_cpu_s": {"server": round(cpu["server"], 3)},
        "server_cpu_ms_per_move": {"server": _per_move_ms(cpu, moves_done)["server"],
                                   "total": _per_move_ms(cpu, moves_done)["server"]},
        "idle_server_cpu_ms_per_s": idle_cpu,
        "load_client_cpu_s": round(cpu["load_client"], 3),
        "load_client_cpu_ms_per_move": _per_move_ms(cpu, moves_done)["load_client"],
    }


def _installed_versions() -> dict[str, str]:
    versions = {}
    for package in ("boardgame.io", "koa-compose", "socket.io", "socket.io-client", "koa"):
        manifest = PEER_DIR / "node_modules" / package / "package.json"
        if manifest.exists():
            versions[package] = json.loads(manifest.read_text())["version"]
    node = subprocess.run([shutil.which("node") or "node", "--version"], check=False, capture_output=True, text=True)
    versions["node"] = node.stdout.strip()
    return versions


# --- Benthic --------------------------------------------------------------------------------------
async def _benthic_load(
    platform: LocalPlatform, games: int, moves: int, warmup: float, seconds: float, transport: str = "http"
) -> dict[str, Any]:
    client = LoadClient(platform.command_url, platform.mint)
    # This process is the load generator and also the parent of the services: count it alone.
    window = CpuWindow({**platform.pids(), "load_client": os.getpid()}, alone=frozenset({"load_client"}))
    answered: list[tuple[float, float]] = []  # (monotonic time answered, seconds)
    finished = 0
    errors: list[str] = []
    started = time.monotonic()
    deadline = started + warmup + seconds

    async def lane(index: int) -> None:
        nonlocal finished
        serial = 0
        while time.monotonic() < deadline:
            serial += 1
            sockets: dict[int, Any] = {}
            try:
                # as a matchmaker creates games; each player then fetches its own seat token
                game_id, tokens = await start_bot_game(client, "counter", 2, name=f"load{index}-{serial}",
                                                       options={"moves": moves})
                if transport == "ws":
                    sockets = {seat: await client.socket(game_id, token) for seat, token in tokens.items()}
                version, seat = (await client.legal(game_id, tokens[0]))["version"], 0
                while time.monotonic() < deadline:
                    sent = time.perf_counter()
                    if transport == "ws":
                        answer = await sockets[seat].play({"type": "increment"}, expected_version=version,
                                                          include_legal=True)
                    else:
                        answer = await client.play(game_id, tokens[seat], {"type": "increment"},
                                                   expected_version=version, include_legal=True)
                    answered.append((time.monotonic(), time.perf_counter() - sent))
                    version = answer["last_version"]
                    if answer["prompt"] is None:
                        finished += 1
                        break
                    seat = answer["prompt"]["seats"][0]
            except Exception as error:  # noqa: BLE001 - report it, keep the load going
                errors.append(repr(error)[:200])
                await asyncio.sleep(0.1)
            finally:
                for socket in sockets.values():
                    await socket.aclose()

    async def lag_histogram() -> dict[float, float]:
        async with httpx.AsyncClient() as http:
            text = (await http.get(f"{platform.read_url}/metrics")).text
        return histogram(text, "benthic_projection_lag_seconds")

    async def measure() -> tuple[dict[str, float], dict[float, float]]:
        await asyncio.sleep(max(0.0, started + warmup - time.monotonic()))
        lag_before = await lag_histogram()
        window.start()
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        cpu = window.stop()
        lag_after = await lag_histogram()
        return cpu, {b: lag_after.get(b, 0.0) - lag_before.get(b, 0.0) for b in lag_after}

    measuring = asyncio.create_task(measure())
    await asyncio.gather(*(lane(i) for i in range(games)))
    cpu, lag = await measuring
    await client.aclose()
    latencies = [taken for at, taken in answered if window.started <= at <= window.stopped]
    moves_done = len(latencies)
    servers = {name: seconds for name, seconds in cpu.items() if name != "load_client"}
    per_move = _per_move_ms(servers, moves_done)
    total = sum(servers.values())
    p50, p99 = histogram_quantile(0.5, lag), histogram_quantile(0.99, lag)
    return {
        "server": "Benthic (command, projection, scoring services; Redis AOF everysec)",
        "transport": "WebSocket WS /games/{id}/play" if transport == "ws" else "HTTP POST /games/{id}/commands",
        "concurrent_games": games,
        "moves_per_game": moves,
        "warmup_s": warmup,
        "measured_s": seconds,
        "window_measured_s": round(window.stopped - window.started, 3),
        "moves": moves_done,
        "moves_per_s": round(moves_done / (window.stopped - window.started), 1),
        "move_latency_ms": latency_ms(latencies, (0.5, 0.9, 0.99)),
        "projection_lag_ms": {
            "p50": round(p50 * 1000, 1) if p50 is not None else None,
            "p99": round(p99 * 1000, 1) if p99 is not None else None,
            "events": lag.get(float("inf"), 0),
        },
        "games_finished": finished,
        "server_cpu_s": {name: round(seconds, 3) for name, seconds in servers.items()},
        "server_cpu_ms_per_move": {**per_move, "total": round(total * 1000 / moves_done, 3) if moves_done else None},
        "load_client_cpu_s": round(cpu["load_client"], 3),
        "load_client_cpu_ms_per_move": _per_move_ms({"c": cpu["load_client"]}, moves_done)["c"],
        "errors": errors[:10],
        "error_count": len(errors),
    }


def run_benthic(
    games: int, moves: int, warmup: float, seconds: float, idle: float, log_dir: Path, transport: str = "http"
) -> dict[str, Any]:
    overrides = {**BENCH_LIMITS, **env_overrides()}
    extra = [s for s in overrides.get("BENTHIC_EXTRA_ENGINES", "").split(",") if s and s != COUNTER_ENGINE]
    pythonpath = [str(ROOT), *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    env = {
        "BENTHIC_LOG_LEVEL": "warning",
        **overrides,
        "BENTHIC_EXTRA_ENGINES": ",".join([COUNTER_ENGINE, *extra]),
        "PYTHONPATH": os.pathsep.join(pythonpath),
    }
    with LocalPlatform(env=env, log_dir=str(log_dir / "benthic")) as platform:
        types = httpx.get(f"{platform.command_url}/game-types").json()
        if "counter" not in {t["game_type"] for t in types}:
            raise RuntimeError("the command service did not register the counter engine (BENTHIC_EXTRA_ENGINES)")
        idle_cpu = idle_cpu_ms_per_s(platform.pids(), idle)
        result = uvloop.run(_benthic_load(platform, games, moves, warmup, seconds, transport))
    return {**result, "idle_server_cpu_ms_per_s": idle_cpu}


# --- report ---------------------------------------------------------------------------------------
def _ratio(benthic: dict[str, Any], peer: dict[str, Any]) -> float | None:
    ours = benthic.get("server_cpu_ms_per_move", {}).get("total")
    theirs = peer.get("server_cpu_ms_per_move", {}).get("total")
    return round(ours / theirs, 2) if ours and theirs else None


def table(report: dict[str, Any]) -> str:
    peer = report["boardgame_io"]
    lines = [
        (f"peer benchmark: counter game, {report['concurrent_games']} concurrent games closed loop, "
         f"{report['moves_per_game']} moves per game, {report['window_s']:g} s window after "
         f"{report['warmup_s']:g} s warm-up"),
        f"{'':34}{'moves/s':>9}{'p50 ms':>9}{'p99 ms':>9}{'server CPU ms/move':>20}",
    ]

    def row(label: str, side: dict[str, Any], detail: str) -> None:
        if "skipped" in side or "error" in side:
            lines.append(f"{label:34}{side.get('skipped') or side.get('error')}")
            return
        latency = side["move_latency_ms"]
        lines.append(
            f"{label:34}{side['moves_per_s']:>9.1f}{latency['p50']:>9.2f}{latency['p99']:>9.2f}"
            f"{side['server_cpu_ms_per_move']['total']:>20.3f}  {detail}"
        )

    row("boardgame.io 0.50, in memory", peer, "(its server process)")
    ours = [(name, report[name]) for name in ("benthic", "benthic_ws") if name in report]
    for name, side in ours:
        per = side.get("server_cpu_ms_per_move", {})
        detail = "(" + ", ".join(f"{k} {v:.3f}" for k, v in per.items() if k != "total" and v is not None) + ")"
        row("Benthic, AOF everysec, " + ("WebSocket" if name == "benthic_ws" else "HTTP"), side, detail)
        ratio = report.get(f"ratio_{name}_to_boardgame_io")
        lines.append(f"server CPU per move, Benthic ({'WebSocket' if name == 'benthic_ws' else 'HTTP'}) / "
                     f"boardgame.io: {ratio if ratio is not None else 'n/a'} (target <= 1.0)")
    loads = [f"{name} {side['load_client_cpu_ms_per_move']:.3f}" for name, side in
             (("boardgame.io client", peer), *ours) if "load_client_cpu_ms_per_move" in side]
    if loads:
        lines.append("load generators' CPU ms/move (not server CPU): " + ", ".join(loads))
    idle = [f"{label} " + ", ".join(f"{k} {v:g}" for k, v in side["idle_server_cpu_ms_per_s"].items())
            for label, side in (("boardgame.io:", peer), *ours) if side.get("idle_server_cpu_ms_per_s")]
    if idle:
        lines.append("idle server CPU ms/s (before the load): " + "; ".join(idle))
    return "\n".join(lines)


def run(
    games: int, moves: int, warmup: float, seconds: float, idle: float = 5.0, only: str | None = None,
    transports: tuple[str, ...] = ("http", "ws"),
) -> dict[str, Any]:
    # A fresh directory per run: server logs, and the private Redis' AOF (a reused one would load old games).
    log_dir = Path(tempfile.mkdtemp(prefix="benthic-peer-"))
    report: dict[str, Any] = {
        "game": "counter (2 seats alternate; one increment per turn)",
        "concurrent_games": games, "moves_per_game": moves, "warmup_s": warmup, "window_s": seconds,
        "closed_loop": True, "idle_s": idle,
        "note": "the machine may be shared: absolute figures are indicative, compare the ratio of one run",
    }
    peer: dict[str, Any] = {"skipped": "not run (--only benthic)"}
    if only in (None, "boardgameio"):
        try:
            node = ensure_peer_installed()
            print("== peer: boardgame.io", file=sys.stderr, flush=True)
            peer = run_boardgameio(node, games, moves, warmup, seconds, idle, log_dir)
        except PeerUnavailable as unavailable:
            peer = {"skipped": str(unavailable)}
            print(str(unavailable), file=sys.stderr, flush=True)
        except Exception as error:  # noqa: BLE001 - the other side still runs
            peer = {"error": repr(error)[:500]}
    sides: dict[str, dict[str, Any]] = {}
    for transport in transports:
        side: dict[str, Any] = {"skipped": "not run (--only boardgameio)"}
        if only in (None, "benthic"):
            print(f"== peer: Benthic over {transport}", file=sys.stderr, flush=True)
            try:
                side = run_benthic(games, moves, warmup, seconds, idle, log_dir / transport, transport)
            except Exception as error:  # noqa: BLE001 - report what ran
                side = {"error": repr(error)[:500]}
        sides["benthic" if transport == "http" else f"benthic_{transport}"] = side
    report["boardgame_io"] = peer
    report.update(sides)
    if "error" in peer or any("error" in side for side in sides.values()):
        report["logs"] = str(log_dir)
    else:
        shutil.rmtree(log_dir, ignore_errors=True)
    for name, side in sides.items():
        report[f"ratio_{name}_to_boardgame_io"] = _ratio(side, peer)
    report["target"] = {"ratio_benthic_to_boardgame_io": "<= 1.0"}
    return report


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=200, help="concurrent games on each server")
    parser.add_argument("--moves", type=int, default=100, help="moves per game (then a new game starts)")
    parser.add_argument("--warmup", type=float, default=10.0, help="seconds of load before the window")
    parser.add_argument("--seconds", type=float, default=20.0, help="the measured window")
    parser.add_argument("--idle", type=float, default=5.0, help="seconds of idle CPU measured before the load")
    parser.add_argument("--only", choices=("benthic", "boardgameio"), help="run one side")
    parser.add_argument("--transports", default="http,ws",
                        help="how Benthic's players send their moves: http (POST), ws (the WebSocket), or both")
    args = parser.parse_args()
    transports = tuple(t for t in args.transports.split(",") if t in ("http", "ws"))
    report = run(args.games, args.moves, args.warmup, args.seconds, args.idle, args.only, transports)
    text = json.dumps({"peer_bench": report}, indent=2)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    (RESULTS_DIR / f"peer-{time.strftime('%Y%m%d-%H%M%S')}.json").write_text(text)
    (RESULTS_DIR / "peer-latest.json").write_text(text)
    print(table(report), file=sys.stderr, flush=True)
    print(text)


if __name__ == "__main__":
    main()
