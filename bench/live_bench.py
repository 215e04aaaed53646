"""Live fan-out: thousands of SSE streams on ONE projection process while commands are played.

Games are played over HTTP at ``--rate`` commands/s in all; ``--streams`` SSE clients (in ``--client-procs``
processes of their own) watch them, spread evenly.  For every version a command produced and every stream of
its game, the delay until that stream received it (or a newer one); ``/healthz`` of the projection is polled
throughout.  Then a burst: one client opens ``--burst`` streams at once and drops them; how long until the
projection is normal again (healthy, ready, no live stream left, a new stream served).

    python -m bench.live_bench [--streams 5000] [--rate 100] [--games 100] [--seconds 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import time
from pathlib import Path
from typing import Any

from bench.common import BENCH_LIMITS, peak_rss_mb, quantile
from bench.loadclient import LoadClient
from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.local.localplatform import LocalPlatform
from benthic.local.signals import stop_servers_on_signals

TYPES = ("underwater_cities", "aquatica", "nautilus")


def _watch(read_url: str, streams: list[tuple[int, str]], seconds: float, out: str) -> None:
    """A client process: one SSE stream per (stream index, game); writes [(stream, version, time)] to ``out``."""

    async def main() -> None:
        import aiohttp

        received: list[tuple[int, int, float]] = []
        failures: list[str] = []
        timeout = aiohttp.ClientTimeout(total=None, sock_connect=60, sock_read=None)
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as session:

            async def stream(index: int, game_id: str) -> None:
                try:
                    async with session.get(f"{read_url}/games/{game_id}/live") as response:
                        if response.status != 200:
                            failures.append(f"status {response.status}")
                            return
                        async for line in response.content:
                            if line.startswith(b"id: "):
                                received.append((index, int(line[4:]), time.time()))
                except asyncio.CancelledError:
                    raise
                except Exception as error:  # noqa: BLE001 - counted
                    failures.append(repr(error)[:100])

            tasks = [asyncio.create_task(stream(i, g)) for i, g in streams]
            await asyncio.sleep(seconds)
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
        Path(out).write_text(json.dumps({"received": received, "failures": failures}))

    asyncio.run(main())


async def _health(url: str, until: float, samples: list[float]) -> None:
    import aiohttp

    async with aiohttp.ClientSession() as session:
        while time.monotonic() < until:
            started = time.perf_counter()
            try:
                async with session.get(f"{url}/healthz", timeout=aiohttp.ClientTimeout(total=10)) as reply:
                    await reply.read()
                    ok = reply.status == 200
            except Exception:  # noqa: BLE001 - a failed probe counts as 10 s
                ok = False
            samples.append(time.perf_counter() - started if ok else 10.0)
            await asyncio.sleep(0.05)


async def _play(platform: LocalPlatform, games: list[HttpGame], rate: float, until: float,
                acks: list[tuple[str, int, float]]) -> None:
    interval = len(games) / rate

    async def lane(game: HttpGame) -> None:
        next_at = time.monotonic() + random.random() * interval

        async def pace() -> None:
            nonlocal next_at
            await asyncio.sleep(max(0.0, next_at - time.monotonic()))
            next_at += interval

        def record(g: HttpGame, _prompt: dict[str, Any]) -> None:
            acks.append((g.game_id, g.version, time.time()))

        while time.monotonic() < until:
            played = game.commands
            await game.play(pause_after=game.commands + 1, pacer=pace, on_progress=record)
            if game.commands == played:
                return  # over

    await asyncio.gather(*(lane(g) for g in games))


def _delays(acks: list[tuple[str, int, float]], received: list[tuple[int, int, float]],
            assignment: list[str], window: tuple[float, float]) -> list[float]:
    """For each acknowledged version in the window and each stream of its game: seconds until that stream had
    it or a newer one (never: infinity)."""
    arrivals: dict[int, list[tuple[int, float]]] = {}
    for stream, version, at in received:
        arrivals.setdefault(stream, []).append((version, at))
    streams_of: dict[str, list[int]] = {}
    for stream, game_id in enumerate(assignment):
        streams_of.setdefault(game_id, []).append(stream)
    delays = []
    for game_id, version, acked in acks:
        if not window[0] <= acked <= window[1]:
            continue
        for stream in streams_of.get(game_id, []):
            first = next((at for v, at in arrivals.get(stream, []) if v >= version), None)
            delays.append(float("inf") if first is None else max(0.0, first - acked))
    return delays


async def _burst(platform: LocalPlatform, game_id: str, burst: int) -> dict[str, Any]:
    import aiohttp

    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
        responses = []
        started = time.monotonic()

        async def open_one() -> int:
            response = await session.get(f"{platform.read_url}/games/{game_id}/live")
            responses.append(response)
            if response.status == 200:
                await response.content.readline()
            return response.status

        statuses = await asyncio.gather(*(open_one() for _ in range(burst)), return_exceptions=True)
        opened = time.monotonic() - started
        for response in responses:
            response.close()
        dropped = time.monotonic()
        while True:
            async with session.get(f"{platform.read_url}/metrics") as reply:
                metrics = await reply.text()
            live = sum(float(line.split()[-1]) for line in metrics.splitlines()
                       if line.startswith("benthic_live_streams "))
            async with session.get(f"{platform.read_url}/readyz") as ready:
                ok = ready.status == 200
            if live == 0 and ok:
                break
            await asyncio.sleep(0.05)
        async with session.get(f"{platform.read_url}/games/{game_id}/live") as again:
            await again.content.readline()
            served = again.status == 200
        return {
            "streams": burst,
            "statuses": {str(s): sum(1 for x in statuses if str(x) == str(s)) for s in set(map(str, statuses))},
            "opened_s": round(opened, 2),
            "normal_after_disconnect_s": round(time.monotonic() - dropped, 2),
            "new_stream_served": served,
            "target_s": 5,
        }


async def _run(args: argparse.Namespace) -> dict[str, Any]:
    env = {"BENTHIC_LOG_LEVEL": "warning", "BENTHIC_LIVE_STREAMS_MAX": str(args.streams + 1000), **BENCH_LIMITS}
    with LocalPlatform(env=env) as platform:
        client = LoadClient(platform.command_url, platform.mint)
        games = []
        for index in range(args.games):
            game_type = TYPES[index % len(TYPES)]
            game_id, tokens = await start_bot_game(client, game_type, 4, name=f"live{index}")
            games.append(HttpGame(client, game_id, tokens, random.Random(index)))
        await asyncio.sleep(1.0)
        ids = [g.game_id for g in games]
        assignment = [ids[i % len(ids)] for i in range(args.streams)]
        tmp = Path("bench/results")
        tmp.mkdir(parents=True, exist_ok=True)
        connect_s = 30.0
        total = connect_s + args.seconds + 5
        outs = [str(tmp / f"live-client-{i}.json") for i in range(args.client_procs)]
        ctx = multiprocessing.get_context("fork")
        indexed = list(enumerate(assignment))
        procs = [ctx.Process(target=_watch, args=(platform.read_url, indexed[i::args.client_procs], total, out))
                 for i, out in enumerate(outs)]
        for proc in procs:
            proc.start()
        started = time.monotonic()
        window_start = time.time() + connect_s
        until = started + connect_s + args.seconds
        acks: list[tuple[str, int, float]] = []
        health: list[float] = []
        await asyncio.gather(_play(platform, games, args.rate, until, acks), _health(platform.read_url, until, health))
        window = (window_start, time.time())
        for proc in procs:
            proc.join(timeout=120)
        received: list[tuple[int, int, float]] = []
        failures: list[str] = []
        for out in outs:
            data = json.loads(Path(out).read_text())
            received.extend(tuple(r) for r in data["received"])  # type: ignore[misc]
            failures.extend(data["failures"])
            Path(out).unlink()
        delays = _delays(acks, received, assignment, window)
        in_window = [a for a in acks if window[0] <= a[2] <= window[1]]
        measured_health = health[int(len(health) * connect_s / (connect_s + args.seconds)):]
        burst = await _burst(platform, ids[0], args.burst)
        rss = peak_rss_mb(platform.processes["projection"].pid)
        await client.aclose()
    finite = [d for d in delays if d != float("inf")]
    return {
        "streams": args.streams,
        "games": args.games,
        "target_rate": args.rate,
        "commands_per_s": round(len(in_window) / args.seconds, 1),
        "deliveries": len(delays),
        "delivered_within_1s": round(sum(1 for d in delays if d <= 1.0) / max(1, len(delays)), 4),
        "missed": sum(1 for d in delays if d == float("inf")),
        "delivery_s": {"p50": round(quantile(finite, 0.5), 3), "p99": round(quantile(finite, 0.99), 3),
                       "max": round(max(finite), 3) if finite else None},
        "stream_failures": len(failures),
        "failure_examples": failures[:5],
        "healthz_ms": {"p50": round(quantile(measured_health, 0.5) * 1000, 1),
                       "p99": round(quantile(measured_health, 0.99) * 1000, 1),
                       "max": round(max(measured_health) * 1000, 1) if measured_health else None},
        "projection_peak_rss_mb": rss,
        "burst": burst,
        "targets": {"streams": 5000, "delivered_within_1s": 1.0, "healthz_p99_ms": 100, "burst_normal_s": 5},
    }


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--streams", type=int, default=5000)
    parser.add_argument("--rate", type=float, default=100.0)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--client-procs", type=int, default=2)
    parser.add_argument("--burst", type=int, default=300)
    args = parser.parse_args()
    print(json.dumps({"live_bench": asyncio.run(_run(args))}, indent=2))


if __name__ == "__main__":
    main()
