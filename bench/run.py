"""``make bench``: every benchmark in turn, each in its own process, results merged into
bench/results/<timestamp>.json (and latest.json).  BENTHIC_BENCH_QUICK=1 shortens every run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benthic.local.signals import stop_servers_on_signals

QUICK = os.environ.get("BENTHIC_BENCH_QUICK") == "1"

STEPS = [
    ("engines", ["-m", "bench.engine_bench", "--seconds", "3" if QUICK else "20"]),
    ("describe", ["-m", "bench.describe_bench", "--states", "60" if QUICK else "300"]),
    ("store", ["-m", "bench.store_bench", "--seconds", "3" if QUICK else "15"]),
    # The cost of one accepted move (issue 35): CPU per move of every process beside the engine's own, over HTTP
    # and the play socket, the command service's stages (py-spy), each beside bench/cost_baseline.json.
    ("cost", ["-m", "bench.cost_bench", "--games", "8" if QUICK else "16", "--moves", "40" if QUICK else "100",
              "--profile"]),
    ("e2e", ["-m", "bench.e2e_bench", "--seconds", "10" if QUICK else "60", "--games", "20" if QUICK else "200"]),
    # Server CPU per move against boardgame.io 0.50 in memory (skips that side without node and npm).
    ("peer", ["-m", "bench.peer_bench", "--warmup", "3" if QUICK else "10", "--seconds", "5" if QUICK else "20",
              "--games", "20" if QUICK else "200"]),
    # The matchmaker: pairing per wave for 1,000 / 10,000 / 100,000 waiting tickets, a whole wave in the service,
    # its CPU per move and idle beside the other services'.
    ("matchmaker", ["-m", "bench.matchmaker_bench", "--sizes", "1000,10000" if QUICK else "1000,10000,100000",
                    "--wave-sizes", "300" if QUICK else "1000,10000", "--games", "6" if QUICK else "30"]),
    ("archive", ["-m", "bench.archive_bench", "--games", "5" if QUICK else "30"]),
    # schemathesis against both APIs, longer than the bounded run of make test.
    ("api_fuzz", ["-m", "bench.api_fuzz", "--examples", "20" if QUICK else "100"]),
    # Redis bytes per event of live 4-seat games (every viewer's view stored: the worst case).
    ("footprint", ["-m", "bench.footprint_bench", "--games", "1" if QUICK else "3"]),
    # SSE fan-out: thousands of live streams on one projection process while commands are played.
    ("live", ["-m", "bench.live_bench", "--streams", "300" if QUICK else "5000", "--seconds", "10" if QUICK else "60"]),
    # Many concurrent games, closed loop: accepted commands/s and errors against the 200-game figure.
    ("e2e_2000", ["-m", "bench.e2e_bench", "--rates", "0", "--transports", "http", "--seconds", "10" if QUICK else "60",
                  "--games", "200" if QUICK else "2000"]),
    ("e2e_10000", ["-m", "bench.e2e_bench", "--rates", "0", "--transports", "http",
                   "--seconds", "10" if QUICK else "90", "--games", "400" if QUICK else "10000"]),
    # Finished games leave Redis: memory over >= 1,000 finished games with archiving on.
    ("soak", ["-m", "bench.soak_bench", "--games", "30" if QUICK else "1000"]),
    # Bot-only games of mixed types played to the end by the bots service (games/s, bot move lag).
    ("bots", ["-m", "bench.bots_bench", "--games", "30" if QUICK else "500"]),
    # The search bot against the greedy one, 2 seats, per game type (docs/BENCHMARKS.md).
    ("bot_strength", ["-m", "bench.bot_strength", "--games", "10" if QUICK else "200", "--workers", "2"]),
    # Durability: the Redis primary killed -9 under load, over and over (primary + 2 replicas + 3 Sentinels, acks
    # after WAIT 1): no acknowledged command lost, kill -> first ack; then the CPU and p99 cost of ACK_REPLICAS=1.
    ("failover", ["-m", "bench.failover_bench", "--failovers", "5" if QUICK else "100", "--games", "12",
                  "--rate", "100", "--pairs", "1" if QUICK else "2", "--seconds", "10" if QUICK else "30",
                  "--paced-rate", "400"]),
    # Population: N live games played open loop at human pace (think ~Exp(20 s)), 5% watched over SSE.
    ("population", ["-m", "bench.population_bench", "--games", "300" if QUICK else "10000",
                    "--think-s", "5" if QUICK else "20", "--seconds", "30" if QUICK else "600",
                    "--warmup", "10" if QUICK else "30"]),
    # Population: where it bends (20,000 games), the overload steps (0.5x-4x the saturation rate, admission control),
    # and the capacity model's backing run (command and projection doubled over a 3-master Redis Cluster).
    ("population_20000", ["-m", "bench.population_bench", "--games", "600" if QUICK else "20000", "--create-rate",
                          "80", "--seconds", "30" if QUICK else "240", "--warmup", "10" if QUICK else "30"]),
    ("population_ramp", ["-m", "bench.population_bench", "--ramp", "--games", "300" if QUICK else "2000",
                         "--step-s", "15" if QUICK else "60"]),
    ("population_cluster", ["-m", "bench.population_bench", "--cluster", "--replicas", "1", "--games",
                            "300" if QUICK else "5000", "--seconds", "30" if QUICK else "300"]),
]
OPTIONAL = [
    # The Underwater Cities balance report (10 minutes of 4-player greedy games), when its engine exists.
    ("uc_balance", ["-m", "bench.uc_balance", "--minutes", "1" if QUICK else "10", "--workers", "2"]),
]


STEP_STOP_S = 120.0  # a bench stopped midway stops the servers it started within this time, or is killed


def _step(command: list[str]) -> subprocess.CompletedProcess[str]:
    """One bench to its end.  Stopped meanwhile (Ctrl-C, SIGTERM), the bench is asked to stop (SIGTERM: it stops
    the servers it started) where ``subprocess.run`` would kill it and leave them running."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as process:
        try:
            stdout, stderr = process.communicate()
        except BaseException:
            process.terminate()
            try:
                process.wait(STEP_STOP_S)
            except subprocess.TimeoutExpired:
                process.kill()
            raise
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def main() -> None:
    stop_servers_on_signals()  # a SIGTERM stops the bench running, and its servers
    out_dir = Path("bench/results")
    out_dir.mkdir(parents=True, exist_ok=True)
    results: dict[str, object] = {"started": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "quick": QUICK}
    steps = list(STEPS)
    for name, args in OPTIONAL:
        module = args[1].replace(".", "/") + ".py"
        if Path(module).exists():
            steps.append((name, args))
    for name, args in steps:
        print(f"== {name}: python {' '.join(args)}", file=sys.stderr, flush=True)
        started = time.monotonic()
        done = _step([sys.executable, *args])
        sys.stderr.write(done.stderr[-4000:])
        if done.returncode != 0:
            results[name] = {"error": f"exit {done.returncode}", "stderr": done.stderr[-2000:]}
        else:
            results[name] = json.loads(done.stdout)
        print(f"   {name} took {time.monotonic() - started:.0f}s", file=sys.stderr, flush=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    text = json.dumps(results, indent=2)
    (out_dir / f"{stamp}.json").write_text(text)
    (out_dir / "latest.json").write_text(text)
    print(text)


if __name__ == "__main__":
    main()
