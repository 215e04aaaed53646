"""End-to-end load: N concurrent random-bot games over HTTP against the three services as processes
(and Redis, and this load generator, all on this machine).  Reports accepted commands/s, command latency
p50/p99 (client-side), projection lag p50/p99 (event appended -> read model written, from the projection
service's histogram) and peak RSS per service.  Prints JSON.

    python -m bench.e2e_bench [--games 200] [--seconds 60] [--game-types nautilus,aquatica]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import statistics
import time
import uuid
from pathlib import Path
from typing import Any

import aiohttp
import httpx
import msgspec
import uvloop
from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import ApiFailure
from benthic.local.localplatform import SERVICES, LocalPlatform
from benthic.rules import game_types, get_engine


def _quantile(samples: list[float], q: float) -> float:
    if not samples:
        return 0.0
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _histogram(text: str, name: str) -> dict[float, float]:
    """Cumulative bucket counts of a Prometheus histogram, summed over its label sets."""
    buckets: dict[float, float] = {}
    for line in text.splitlines():
        if line.startswith(f"{name}_bucket{{"):
            labels, value = line.rsplit(" ", 1)
            le = labels.split('le="', 1)[1].split('"', 1)[0]
            bound = float("inf") if le == "+Inf" else float(le)
            buckets[bound] = buckets.get(bound, 0.0) + float(value)
    return buckets


def _histogram_quantile(q: float, buckets: dict[float, float]) -> float | None:
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


def _peak_rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return 0.0


class LoadClient:
    """The three calls the bots make, on aiohttp + msgspec: the load generator shares the machine with the
    services, and httpx's connection pool alone would cost it most of a core at a few hundred games."""

    def __init__(self, command_url: str, mint: Any) -> None:
        import aiohttp

        self.command_url = command_url
        self.socket_url = command_url.replace("http://", "ws://", 1)
        self.mint = mint
        self.session = aiohttp.ClientSession(
            connector=aiohttp.TCPConnector(limit=0), timeout=aiohttp.ClientTimeout(total=60)
        )
        self._json = msgspec.json.Encoder()

    async def _call(self, method: str, path: str, token: str | None, body: Any = None) -> Any:
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        data = self._json.encode(body) if body is not None else None
        async with self.session.request(method, f"{self.command_url}{path}", data=data, headers=headers) as reply:
            raw = await reply.read()
        if reply.status >= 400:
            error = msgspec.json.decode(raw)
            raise ApiFailure(reply.status, error.get("code", "http_error"), error.get("message", ""))
        return msgspec.json.decode(raw)

    async def create_game(self, game_type: str, seats: list[Any], options: Any = None, seed: Any = None) -> Any:
        matchmaker = self.mint("bench-matchmaker", ("benthic:matchmaker",))
        return await self._call("POST", "/games", matchmaker, {"game_type": game_type, "seats": seats,
                                                                "options": options or {}})

    async def seat_token(self, game_id: str, player_id: str) -> Any:
        return await self._call("POST", f"/games/{game_id}/token", self.mint(player_id))

    async def legal(self, game_id: str, token: str) -> Any:
        return await self._call("GET", f"/games/{game_id}/legal", token)

    async def play(self, game_id: str, token: str, command: Any, command_id: str | None = None,
                   expected_version: int | None = None, include_legal: bool = False) -> Any:
        body = {"command_id": command_id or uuid.uuid4().hex, "command": command,
                "expected_version": expected_version}
        path = f"/games/{game_id}/commands" + ("?include=legal" if include_legal else "")
        return await self._call("POST", path, token, body)

    async def socket(self, game_id: str, token: str, pushes: bool = False) -> PlaySocket:
        """A WebSocket play channel of one seat (``WS /games/{id}/play``, with turn pushes if asked)."""
        ws = await self.session.ws_connect(f"{self.socket_url}/games/{game_id}/play"
                                           + ("?push=turns" if pushes else ""),
                                           headers={"authorization": f"Bearer {token}"})
        return PlaySocket(ws, pushes)

    async def aclose(self) -> None:
        await self.session.close()


class SocketPlays:
    """``LoadClient``'s calls, with every command and legal query sent over the seat's WebSocket (opened on its
    first use, kept for the game), which asks for turn pushes: what a client playing a whole game on one
    connection does.  A seat's turn comes as a push when the last commit was made over a socket (all of them
    here); the seat asks ``{query: legal}`` only when none came."""

    def __init__(self, client: LoadClient) -> None:
        self.client = client
        self.sockets: dict[tuple[str, str], PlaySocket] = {}
        self.versions: dict[str, int] = {}  # game -> the newest version an answer named

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    async def _socket(self, game_id: str, token: str) -> PlaySocket:
        socket = self.sockets.get((game_id, token))
        if socket is None:
            socket = self.sockets[(game_id, token)] = await self.client.socket(game_id, token, pushes=True)
        return socket

    async def play(self, game_id: str, token: str, command: Any, command_id: str | None = None,
                   expected_version: int | None = None, include_legal: bool = False) -> Any:
        socket = await self._socket(game_id, token)
        answer = await socket.play(command, command_id, expected_version, include_legal)
        self.versions[game_id] = max(self.versions.get(game_id, 0), answer["last_version"])
        return answer

    async def legal(self, game_id: str, token: str) -> Any:
        opened = (game_id, token) in self.sockets  # a socket opened now has had no push yet: ask at once
        socket = await self._socket(game_id, token)
        return await socket.legal(self.versions.get(game_id) if opened else None)

    async def close_game(self, game_id: str) -> None:
        self.versions.pop(game_id, None)
        for key in [key for key in self.sockets if key[0] == game_id]:
            await self.sockets.pop(key).aclose()


PUSH_WAIT_S = 0.02  # how long a seat whose turn it is waits for its push before asking


class PlaySocket:
    """One seat's commands over the command service's WebSocket: the same answers as ``LoadClient.play``.  With
    ``pushes``, a reader task tells the pushed turns (kept: the newest) from the answers."""

    def __init__(self, ws: Any, pushes: bool = False) -> None:
        self.ws = ws
        self._json = msgspec.json.Encoder()
        self.turn: dict[str, Any] | None = None  # the newest pushed legal answer not used yet
        self._turned = asyncio.Event()
        self._pending: asyncio.Future[Any] | None = None
        self._reader = asyncio.create_task(self._read()) if pushes else None

    async def play(self, command: Any, command_id: str | None = None, expected_version: int | None = None,
                   include_legal: bool = False) -> Any:
        frame = {"command_id": command_id or uuid.uuid4().hex, "command": command,
                 "expected_version": expected_version, "include": "legal" if include_legal else None}
        return await self._ask(frame)

    async def legal(self, at_least: int | None = None) -> Any:
        """The seat's legal commands: its pushed turn when one at ``at_least`` or later came (waiting a little
        for it), else asked for."""
        if self._reader is not None and at_least is not None:
            if self.turn is None or self.turn["version"] < at_least:
                self._turned.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._turned.wait(), PUSH_WAIT_S)
            turn, self.turn = self.turn, None
            if turn is not None and turn["version"] >= at_least:
                return turn
        return await self._ask({"query": "legal"})

    async def _ask(self, frame: dict[str, Any]) -> Any:
        if self._reader is None:
            await self.ws.send_str(self._json.encode(frame).decode())
            answer = msgspec.json.decode(await self.ws.receive_str())
        else:
            self._pending = asyncio.get_running_loop().create_future()  # before sending: the reader may answer
            await self.ws.send_str(self._json.encode(frame).decode())
            answer = await self._pending
        if answer["status"] >= 400:
            error = answer["error"]
            raise ApiFailure(answer["status"], error["code"], error["message"])
        return answer["result"]

    async def _read(self) -> None:
        try:
            async for message in self.ws:
                if message.type is not aiohttp.WSMsgType.TEXT:
                    break
                frame = msgspec.json.decode(message.data)
                if frame.get("push"):
                    self.turn = frame["result"]
                    self._turned.set()
                elif self._pending is not None and not self._pending.done():
                    self._pending.set_result(frame)
        finally:
            if self._pending is not None and not self._pending.done():
                self._pending.set_exception(ConnectionError("the play socket closed"))

    async def aclose(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        await self.ws.close()


async def _load(
    platform: LocalPlatform, concurrent: int, seconds: float, types: list[str], rate: float = 0.0,
    warmup: float = 10.0, transport: str = "http",
) -> dict[str, Any]:
    """``rate`` > 0: every game plays at ``rate / concurrent`` commands per second (players think); 0: each
    game sends its next command as soon as the last is answered (a closed loop: the maximum throughput).
    The first ``warmup`` seconds (the games arriving, cold caches) are not measured; games that end
    are replaced by new ones, whose creation is measured like everything else."""
    client: Any = LoadClient(platform.command_url, platform.mint)
    if transport == "ws":
        client = SocketPlays(client)
    latencies: list[tuple[float, float]] = []
    finished = 0
    errors: list[str] = []
    started = time.monotonic()
    window_start = started + warmup
    deadline = window_start + seconds

    async def lane(index: int) -> None:
        nonlocal finished
        # The population arrives over the warm-up (as players do), not in one instant: the games start spread
        # over the first half of it.
        await asyncio.sleep(warmup / 2 * index / concurrent)
        rng = random.Random(index)
        interval = concurrent / rate if rate > 0 else 0.0
        next_at = time.monotonic() + rng.random() * interval

        async def pace() -> None:
            nonlocal next_at
            delay = next_at - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
            next_at = max(next_at + interval, time.monotonic() - interval)

        while time.monotonic() < deadline:
            game_type = types[index % len(types)]
            engine = get_engine(game_type)
            seats = rng.randint(max(2, engine.min_seats), engine.max_seats)
            try:
                game_id, tokens = await start_bot_game(client, game_type, seats, name=f"load{index}")
            except ApiFailure as refused:  # e.g. 503 store_unavailable while every game starts at once
                errors.append(f"create: {refused.status} {refused.code}")
                await asyncio.sleep(1.0)  # the answer's Retry-After
                continue
            game = HttpGame(client, game_id, tokens, rng)
            try:
                while time.monotonic() < deadline:
                    before = game.commands
                    await game.play(pause_after=game.commands + 20, pacer=pace if interval else None)
                    if game.commands - before < 20:  # the game ended
                        finished += 1
                        break
            except Exception as error:  # noqa: BLE001 - report, keep the load going
                errors.append(repr(error)[:200])
            if transport == "ws":
                await client.close_game(game_id)
            latencies.extend(game.latencies)
            game.latencies.clear()

    from bench.peer_bench import CpuWindow  # here: peer_bench imports this module

    cpu = CpuWindow({**platform.pids(), "load_client": os.getpid()}, alone=frozenset({"load_client"}))

    async def cpu_in_window() -> dict[str, float]:
        await asyncio.sleep(max(0.0, window_start - time.monotonic()))
        cpu.start()
        await asyncio.sleep(max(0.0, deadline - time.monotonic()))
        return cpu.stop()

    async def snapshot_at(moment: float) -> dict[float, float]:
        await asyncio.sleep(max(0.0, moment - time.monotonic()))
        async with httpx.AsyncClient() as http:
            return _histogram((await http.get(f"{platform.read_url}/metrics")).text, "benthic_projection_lag_seconds")

    cpu_spent = asyncio.create_task(cpu_in_window())
    lag_before = asyncio.create_task(snapshot_at(window_start))
    lanes = asyncio.gather(*(lane(i) for i in range(concurrent)))
    lag_after = await snapshot_at(deadline)
    await lanes
    spent = await cpu_spent
    window = {b: lag_after.get(b, 0.0) - (await lag_before).get(b, 0.0) for b in lag_after}
    await client.aclose()
    measured = [seconds_taken for at, seconds_taken in latencies if window_start <= at <= deadline]
    p50, p99 = _histogram_quantile(0.5, window), _histogram_quantile(0.99, window)
    return {
        "warmup_s": warmup,
        "measured_s": seconds,
        "accepted_commands": len(measured),
        "accepted_commands_per_s": round(len(measured) / seconds, 1),
        "command_latency_ms": {
            "p50": round(_quantile(measured, 0.5) * 1000, 2),
            "p99": round(_quantile(measured, 0.99) * 1000, 2),
            "mean": round(statistics.fmean(measured) * 1000, 2) if measured else 0.0,
        },
        "projection_lag_ms": {
            "p50": round(p50 * 1000, 1) if p50 is not None else None,
            "p99": round(p99 * 1000, 1) if p99 is not None else None,
            "events": window.get(float("inf"), 0),
        },
        "cpu_ms_per_command": {name: round(seconds * 1000 / len(measured), 3) if measured else None
                               for name, seconds in spent.items()},
        "games_finished": finished,
        "errors": errors[:10],
        "error_count": len(errors),
    }


def _env_overrides() -> dict[str, str]:
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


def run(concurrent: int, seconds: float, types: list[str], rate: float, nice: bool = False,
        transport: str = "http") -> dict[str, Any]:
    niceness = {"projection": 5, "scoring": 10} if nice else {}
    env = {"BENTHIC_LOG_LEVEL": "warning", **BENCH_LIMITS, **_env_overrides()}
    with LocalPlatform(env=env, niceness=niceness) as platform:
        # The load generator runs on uvloop, as the services do: less of the shared 2 cores goes to it.
        load = uvloop.run(_load(platform, concurrent, seconds, types, rate, transport=transport))
        rss = {s: _peak_rss_mb(platform.processes[s].pid) for s in SERVICES}
    return {
        "concurrent_games": concurrent,
        "target_commands_per_s": rate or "max (closed loop)",
        "consumers_niced": nice,
        "transport": transport,
        "game_types": types,
        **load,
        "peak_rss_mb": rss,
        "targets": {"closed_loop_accepted_commands_per_s": ">= 1000",
                    "at_400_per_s": {"command_latency_p99_ms": "<= 30", "projection_lag_p99_ms": "<= 100"}},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--game-types", default=",".join(game_types()))
    parser.add_argument("--rates", default="400,0", help="aggregate commands/s per run; 0 = closed loop (max)")
    parser.add_argument("--transports", default="http,ws", help="players send commands over http, ws or both")
    parser.add_argument("--nice", action="store_true", help="run the projection and scoring at a lower priority")
    args = parser.parse_args()
    types = [t for t in args.game_types.split(",") if t]
    runs = [run(args.games, args.seconds, types, float(rate), args.nice, transport)
            for transport in args.transports.split(",") for rate in args.rates.split(",")]
    print(json.dumps({"e2e_bench": runs}, indent=2))


if __name__ == "__main__":
    main()
