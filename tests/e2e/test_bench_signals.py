"""A benchmark stopped midway by a signal (SIGTERM from a supervisor or ``kill``, SIGINT as Ctrl-C sends it) stops
the servers it started: every service process, Redis and PostgreSQL (benthic.local.signals)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("aiohttp", reason="the benches' extra: pip install -e '.[test,bench]'")

ROOT = Path(__file__).resolve().parents[2]
PLATFORM_UP = re.compile(r"platform up: (.*); logs in")


def _alive(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie waiting for its parent to reap it has ended)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return "\nState:\tZ" not in status


@pytest.mark.timeout(300)
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_population_bench_stopped_by_a_signal_stops_its_servers(stop: signal.Signals, tmp_path: Path) -> None:
    bench = subprocess.Popen(
        [sys.executable, "-m", "bench.population_bench", "--games", "4", "--seconds", "600", "--warmup", "1",
         "--watchers", "0", "--out", str(tmp_path / "population.json")],
        cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    pids: dict[str, int] = {}
    said: list[str] = []
    try:
        assert bench.stderr is not None
        for line in bench.stderr:
            said.append(line)
            if found := PLATFORM_UP.search(line):
                pids = {name: int(pid) for name, pid in (part.split("=") for part in found.group(1).split(", "))}
                break
        assert {"command", "projection", "redis", "postgres"} <= set(pids), f"no platform: {''.join(said)[-3000:]}"
        assert all(_alive(pid) for pid in pids.values())
        bench.send_signal(stop)  # to the bench alone, as a supervisor sends it: not to its process group
        _, rest = bench.communicate(timeout=120)
        assert bench.returncode != 0, "stopped midway: no report"
        deadline = time.monotonic() + 10  # orphans are reaped by init a moment after they end
        while (running := {name for name, pid in pids.items() if _alive(pid)}) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not running, f"still running after the bench ended: {running}; its last words: {rest[-2000:]}"
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        for pid in pids.values():  # a failure leaves nothing behind on the machine either
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)
