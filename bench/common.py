"""What the benchmarks share: quantiles, Prometheus histograms read from /metrics text, the CPU and peak RSS
of processes from /proc, the BENTHIC_* settings passed on to the services and the rate limits the benches run with."""

from __future__ import annotations

import asyncio
import os
import random
import statistics
import time
from pathlib import Path

_CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def quantile(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Pacer:
    """Paces one open-loop lane at ``interval`` seconds a step on average (0: no pacing), starting at a random
    point of the first interval so that lanes do not move in step; a lane that falls behind catches up by at most
    one interval rather than in a burst."""

    def __init__(self, interval: float, rng: random.Random) -> None:
        self.interval = interval
        self.next_at = time.monotonic() + rng.random() * interval

    async def __call__(self) -> None:
        delay = self.next_at - time.monotonic()
        if delay > 0:
            await asyncio.sleep(delay)
        self.next_at = max(self.next_at + self.interval, time.monotonic() - self.interval)


def latency_ms(samples: list[float], quantiles: tuple[float, ...] = (0.5, 0.99)) -> dict[str, float]:
    """``{"p50": ..., "p99": ..., "mean": ...}`` in milliseconds of latencies given in seconds."""
    summary = {f"p{q * 100:g}": round(quantile(samples, q) * 1000, 2) for q in quantiles}
    summary["mean"] = round(statistics.fmean(samples) * 1000, 2) if samples else 0.0
    return summary


def histogram(text: str, name: str) -> dict[float, float]:
    """Cumulative bucket counts of a Prometheus histogram, summed over its label sets."""
    buckets: dict[float, float] = {}
    for line in text.splitlines():
        if line.startswith(f"{name}_bucket{{"):
            labels, value = line.rsplit(" ", 1)
            le = labels.split('le="', 1)[1].split('"', 1)[0]
            bound = float("inf") if le == "+Inf" else float(le)
            buckets[bound] = buckets.get(bound, 0.0) + float(value)
    return buckets


def histogram_quantile(q: float, buckets: dict[float, float]) -> float | None:
    """Prometheus' histogram_quantile: linear interpolation inside the bucket holding the rank."""
    bounds = sorted(buckets)
    if not bounds or buckets[bounds[-1]] == 0:
        return None
    rank = q * buckets[bounds[-1]]
    previous_bound, previous_count = 0.0, 0.0
    for bound in bounds:
        count = buckets[bound]
        if count >= rank:
            if bound == float("inf"):
                return previous_bound
            span = count - previous_count
            return previous_bound + (bound - previous_bound) * ((rank - previous_count) / span if span else 1.0)
        previous_bound, previous_count = bound, count
    return None


def peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


def env_overrides() -> dict[str, str]:
    """BENTHIC_* settings of this process (e.g. BENTHIC_PROJECTION_PAUSE_MS) passed on to the services."""
    return {k: v for k, v in os.environ.items() if k.startswith("BENTHIC_") and k != "BENTHIC_BENCH_QUICK"}


# Rate limits stay on in the benches (their Redis cost is part of every command) but far above the load's rates.
BENCH_LIMITS = {
    "BENTHIC_LIMIT_COMMAND_PER_PLAYER": "1000/second",
    "BENTHIC_LIMIT_COMMAND_PER_IP": "100000/second",
    "BENTHIC_LIMIT_TOKEN_PER_PLAYER": "1000/minute",
    "BENTHIC_LIMIT_TOKEN_PER_IP": "1000000/minute",
    "BENTHIC_LIMIT_CREATE_PER_PLAYER": "100000/minute",
    "BENTHIC_LIMIT_CREATE_PER_IP": "1000000/minute",
    "BENTHIC_LIMIT_JOIN_PER_PLAYER": "100000/minute",
    "BENTHIC_LIMIT_JOIN_PER_IP": "1000000/minute",
    # Closed-loop benches measure the most the services do: every client waits ~100 ms by construction, which
    # admission control would refuse as a standing queue.  Admission is measured by population_bench --ramp.
    "BENTHIC_ADMISSION_LIMIT": "0",
}


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (so index 1 is the ppid, 11/12 utime/stime)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2 :].split()


def _descendants(pid: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = _stat(int(entry.name))
            if fields is not None:
                children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, stack = [], [pid]
    while stack:
        for child in children.get(stack.pop(), []):
            found.append(child)
            stack.append(child)
    return found


def cpu_seconds(pid: int, descendants: bool = True) -> float:
    """User + system CPU time of a process (threads included) and, unless told not to, of its live
    descendants, in seconds."""
    total = 0
    for each in (pid, *(_descendants(pid) if descendants else ())):
        fields = _stat(each)
        if fields is not None:
            total += int(fields[11]) + int(fields[12])
    return total / _CLOCK_TICKS


class CpuWindow:
    """CPU seconds each named process (with its descendants, except the ``alone`` ones) spent between
    ``start()`` and ``stop()``."""

    def __init__(self, pids: dict[str, int], alone: frozenset[str] = frozenset()) -> None:
        self.pids = pids
        self.alone = alone
        self._before: dict[str, float] = {}
        self.started = self.stopped = 0.0

    def _sample(self) -> dict[str, float]:
        return {name: cpu_seconds(pid, name not in self.alone) for name, pid in self.pids.items()}

    def start(self) -> None:
        self.started = time.monotonic()
        self._before = self._sample()

    def stop(self) -> dict[str, float]:
        self.stopped = time.monotonic()
        after = self._sample()
        return {name: after[name] - self._before[name] for name in self.pids}
