"""Failover under load: the services as processes on a Redis primary with two replicas and three
Sentinels (benthic.local.devha.PrivateSentinelSet), writes acknowledged after ``WAIT 1`` (BENTHIC_REDIS_ACK_REPLICAS=1).

1. The failover loop: K concurrent two-seat games of every type played over HTTP (a finished game is replaced by a
   new one), paced at ``--rate`` commands/s (0: closed loop).  ``--failovers`` times: 1-3 s of load, ``kill -9`` of
   the current primary, wait for the Sentinels' failover, restart the killed server as a replica, wait until two
   replicas are online (and the first ack after the kill came).  A command answered 503 (``store_unavailable``,
   ``durability_unconfirmed``) or cut off is sent again with the same command id after 0.1 s.  Measured: kill ->
   first command acknowledged after it (the first ack whose successful attempt was *sent* after the kill, any
   game).  At the end: every acknowledged command must be in the primary's command hash of its game with the
   versions it was acknowledged with (``acked_missing_in_redis``, read in Redis directly), and, once the command
   service takes a write again (60 s at most), every ack (or a uniform sample of ``--verify-sample``) posted again
   must come back as the duplicate with the same versions (``acked_lost``; both must be 0).  Every service process
   must still be the one started (they follow the failovers by themselves) and ready, and the projection and the
   scoring must have caught up with the games.  Also reported: the Sentinels' own count of failovers (more than
   the kills when they fail over a live primary) and the longest time without any ack.
2. The cost of replicated acks: the same Sentinel set shape, the services started with BENTHIC_REDIS_ACK_REPLICAS=0
   then 1 (the order alternating over ``--pairs`` so that drift cancels), each phase paced at ``--paced-rate`` for
   ``--seconds`` after a 10 s warm-up: accepted commands/s, client-measured latency p50/p99 and server CPU per
   command (utime + stime from /proc, each service and each redis-server).  Targets: ack1/ack0 of total CPU per
   command <= 1.15, of p99 <= 1.5.

Progress on stderr; the only line of stdout is one JSON object.

    python -m bench.failover_bench [--failovers 100] [--games 12] [--rate 100] [--pairs 2] [--seconds 30]
                                   [--paced-rate 400] [--skip-cost] [--skip-failovers]
                                   [--down-after-ms 2000] [--failover-timeout-ms 2000] [--verify-sample 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import itertools
import json
import os
import random
import sys
import time
import uuid
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
import redis
import uvloop

from bench.common import Pacer
from benthic.game.keys import GameKeys
from benthic.local.devha import PrivateSentinelSet
from benthic.local.devpostgres import PrivatePostgres
from benthic.local.localplatform import SERVICES, LocalPlatform
from benthic.local.signals import stop_servers_on_signals
from benthic.rules import game_types
from benthic.runtime.config import from_env

# tests/e2e/test_platform.py's GENEROUS_LIMITS, plus room for the matchmaker creating every game and the players
# asking for their seat tokens (the defaults, 10 games and 60 tokens a minute, are meant for people).
LIMITS = {
    "BENTHIC_LIMIT_COMMAND_PER_PLAYER": "1000/second",
    "BENTHIC_LIMIT_COMMAND_PER_IP": "100000/second",
    "BENTHIC_LIMIT_TOKEN_PER_IP": "100000/minute",
    "BENTHIC_LIMIT_JOIN_PER_IP": "100000/minute",
    "BENTHIC_LIMIT_CREATE_PER_PLAYER": "100000/minute",
    "BENTHIC_LIMIT_CREATE_PER_IP": "1000000/minute",
    "BENTHIC_LIMIT_TOKEN_PER_PLAYER": "1000/minute",
}
ACK_TIMEOUT_MS = 1000
RETRY_S = 0.1  # a refused (503) or cut-off command is sent again this soon (Retry-After says 1 s: finer here)
COMMAND_DEADLINE_S = 120.0  # a command still refused after this long is an error of its lane
CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(message: str) -> None:
    print(f"[failover_bench {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _quantile(samples: list[float], q: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


# --- CPU from /proc -----------------------------------------------------------------------------------------
def _children(pid: int) -> list[int]:
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found.extend(int(c) for c in handle.read().split())
    except OSError:
        pass
    return found


def cpu_seconds(pid: int, descendants: bool = True) -> float:
    """utime + stime of ``pid`` (all its threads) and, with ``descendants``, of its live child processes."""
    total, todo = 0, [pid]
    while todo:
        each = todo.pop()
        try:
            with open(f"/proc/{each}/stat") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (fields 14, 15 of stat)
        except (OSError, IndexError, ValueError):
            continue
        if descendants:
            todo.extend(_children(each))
    return total / CLK_TCK


class CpuWindow:
    def __init__(self, pids: dict[str, int]) -> None:
        self.pids = pids
        self.before: dict[str, float] = {}

    def start(self) -> None:
        self.before = {name: cpu_seconds(pid) for name, pid in self.pids.items()}

    def stop(self) -> dict[str, float]:
        return {name: cpu_seconds(pid) - self.before[name] for name, pid in self.pids.items()}


# --- the load -----------------------------------------------------------------------------------------------
class ApiFailure(Exception):
    def __init__(self, status: int, code: str, message: str = "") -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status, self.code = status, code


class Api:
    """The calls a player makes, on aiohttp + msgspec (cheaper than httpx on a machine the services share)."""

    def __init__(self, platform: LocalPlatform) -> None:
        self.command_url = platform.command_url
        self.read_url = platform.read_url
        self.mint = platform.mint
        self.session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0),
                                             timeout=aiohttp.ClientTimeout(total=30))
        self._encode = msgspec.json.Encoder().encode

    async def call(self, method: str, url: str, token: str | None = None, body: Any = None) -> Any:
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        data = self._encode(body) if body is not None else None
        async with self.session.request(method, url, data=data, headers=headers) as reply:
            raw = await reply.read()
        if reply.status >= 400:
            try:
                error = msgspec.json.decode(raw)
                code, message = error.get("code", f"http_{reply.status}"), error.get("message", "")
            except msgspec.DecodeError:
                code, message = f"http_{reply.status}", raw[:200].decode(errors="replace")
            raise ApiFailure(reply.status, code, message)
        return msgspec.json.decode(raw)

    async def create(self, game_type: str, players: list[dict[str, str]]) -> str:
        matchmaker = self.mint("bench-matchmaker", ("benthic:matchmaker",))
        created = await self.call("POST", f"{self.command_url}/games", matchmaker,
                                  {"game_type": game_type, "seats": players, "options": {}})
        return str(created["game_id"])

    async def seat_token(self, game_id: str, player_id: str) -> str:
        answer = await self.call("POST", f"{self.command_url}/games/{game_id}/token", self.mint(player_id))
        return str(answer["token"])

    async def legal(self, game_id: str, token: str) -> Any:
        return await self.call("GET", f"{self.command_url}/games/{game_id}/legal", token)

    async def play(self, game_id: str, token: str, command: Any, command_id: str,
                   expected_version: int | None = None, include_legal: bool = True) -> Any:
        path = f"/games/{game_id}/commands" + ("?include=legal" if include_legal else "")
        return await self.call("POST", f"{self.command_url}{path}", token,
                               {"command_id": command_id, "command": command, "expected_version": expected_version})

    async def aclose(self) -> None:
        await self.session.close()


class Ledger:
    """What the load saw: every acknowledged command and, meanwhile, every refusal by code."""

    def __init__(self) -> None:
        # (game, command id) -> (command, seat token, first version, last version, when answered (monotonic))
        self.acked: dict[tuple[str, str], tuple[Any, str, int, int, float]] = {}
        self.ack_times: list[tuple[float, float]] = []  # (successful attempt sent, answered), monotonic
        self.latencies: list[tuple[float, float]] = []  # (answered, seconds from first attempt to the ack)
        self.refusals: Counter[str] = Counter()
        self.errors: Counter[str] = Counter()  # what broke a lane (it then starts a new game)
        self.games: dict[str, int] = {}  # game -> the newest version an ack named
        self.finished: set[str] = set()
        self.created = 0


class Stopped(Exception):
    """The load was told to stop while a request was still being retried (it was not acknowledged)."""


async def retrying(call: Callable[[], Awaitable[Any]], ledger: Ledger, stop: asyncio.Event | None = None,
                   deadline_s: float = COMMAND_DEADLINE_S) -> tuple[Any, float]:
    """``call`` until it answers; a 503, a 500 or a broken connection is tried again (the same request, so the
    same command id), until ``deadline_s`` or ``stop``.  Returns the answer and when the successful attempt was
    sent."""
    deadline = time.monotonic() + deadline_s
    while True:
        if stop is not None and stop.is_set():
            raise Stopped
        sent = time.monotonic()
        try:
            return await call(), sent
        except ApiFailure as failure:
            if failure.status not in (500, 502, 503) or time.monotonic() > deadline:
                raise
            ledger.refusals[f"{failure.status} {failure.code}"] += 1
        except (TimeoutError, aiohttp.ClientError) as error:
            if time.monotonic() > deadline:
                raise
            ledger.refusals[type(error).__name__] += 1
        await asyncio.sleep(RETRY_S)


async def lane(api: Api, index: int, types: list[str], ledger: Ledger, stop: asyncio.Event,
               interval: float, start_delay: float) -> None:
    """One table after another of ``types[index % len(types)]``, two seats, random legal moves, ``interval``
    seconds apart on average (0: as fast as answered)."""
    await asyncio.sleep(start_delay)
    rng = random.Random(index)
    game_type = types[index % len(types)]
    pace = Pacer(interval, rng)

    while not stop.is_set():
        try:
            tag = uuid.uuid4().hex[:10]
            players = [{"player_id": f"fb-{tag}-{i}", "name": f"P{i + 1}"} for i in range(2)]
            game_id, _ = await retrying(lambda players=players: api.create(game_type, players), ledger, stop)
            ledger.created += 1
            tokens = {}
            for seat, player in enumerate(players):
                tokens[seat], _ = await retrying(
                    lambda game_id=game_id, player=player: api.seat_token(game_id, player["player_id"]), ledger, stop)
            await play_game(api, game_id, tokens, rng, ledger, stop, pace if interval else None)
        except Stopped:
            return
        except Exception as error:  # noqa: BLE001 - count it, keep the load going with a new game
            ledger.errors[repr(error)[:160]] += 1
            await asyncio.sleep(0.5)


async def play_game(api: Api, game_id: str, tokens: dict[int, str], rng: random.Random, ledger: Ledger,
                    stop: asyncio.Event, pace: Callable[[], Awaitable[None]] | None) -> None:
    seat = 0
    legal: Any = None
    while not stop.is_set():
        if legal is None:
            legal, _ = await retrying(lambda seat=seat: api.legal(game_id, tokens[seat]), ledger, stop)
        prompt = legal["prompt"]
        if prompt is None:
            ledger.finished.add(game_id)
            return
        if not prompt["seats"]:  # a prompt for no seat (seen after failovers): look again shortly
            ledger.refusals["empty prompt"] += 1
            await asyncio.sleep(0.2)
            legal = None
            continue
        if seat not in prompt["seats"] or not legal["commands"]:
            seat, legal = rng.choice(prompt["seats"]), None
            continue
        command, command_id, version = rng.choice(legal["commands"]), uuid.uuid4().hex, legal["version"]
        if pace is not None:
            await pace()
        started = time.monotonic()
        try:
            answer, sent = await retrying(
                lambda seat=seat, command=command, command_id=command_id, version=version: api.play(
                    game_id, tokens[seat], command, command_id, version), ledger, stop)
        except ApiFailure as failure:
            if failure.code == "version_conflict":  # the other seat moved first: read again
                legal = None
                continue
            raise
        answered = time.monotonic()
        ledger.acked[(game_id, command_id)] = (command, tokens[seat], answer["first_version"], answer["last_version"],
                                               answered)
        ledger.ack_times.append((sent, answered))
        ledger.latencies.append((answered, answered - started))
        ledger.games[game_id] = max(ledger.games.get(game_id, 0), answer["last_version"])
        if answer.get("legal") is None:  # a duplicate's answer (a retry) carries no next step
            legal = None
        elif answer["prompt"] is None:
            ledger.finished.add(game_id)
            return
        else:
            legal = {"version": answer["last_version"], "prompt": answer["prompt"], "commands": answer["legal"]}


def start_load(api: Api, games: int, rate: float, ledger: Ledger, stop: asyncio.Event,
               spread_s: float) -> asyncio.Future[Any]:
    types = sorted(game_types())
    interval = games / rate if rate > 0 else 0.0
    return asyncio.gather(*(lane(api, i, types, ledger, stop, interval, spread_s * i / games) for i in range(games)))


# --- the platform -------------------------------------------------------------------------------------------
def platform_env(servers: PrivateSentinelSet, ack_replicas: int) -> dict[str, str]:
    return {
        "BENTHIC_LOG_LEVEL": "warning",
        "BENTHIC_REDIS_SENTINELS": servers.sentinels_setting,
        "BENTHIC_REDIS_SENTINEL_MASTER": servers.master_name,
        "BENTHIC_REDIS_ACK_REPLICAS": str(ack_replicas),
        "BENTHIC_REDIS_ACK_TIMEOUT_MS": str(ACK_TIMEOUT_MS),
        "BENTHIC_BOT_MOVE_DELAY_MS": "0",
        # Finished games stay in Redis for the run: the acks of archived games could not be posted again (an
        # archived game answers 409 game_finished); the archiver still runs and follows every failover.
        "BENTHIC_ARCHIVE_AFTER_S": "86400",
        "BENTHIC_SEAT_TOKEN_TTL_S": "86400",
        **LIMITS,
        **{k: v for k, v in os.environ.items() if k.startswith("BENTHIC_") and k != "BENTHIC_BENCH_QUICK"},
    }


def error_events(platform: LocalPlatform) -> dict[str, dict[str, int]]:
    """The services' log records at level error or above, counted by service and event (and tracebacks)."""
    counts: dict[str, dict[str, int]] = {}
    for service in SERVICES:
        path = Path(platform.log_dir) / f"{service}.log"
        found: Counter[str] = Counter()
        for line in path.read_text(errors="replace").splitlines() if path.exists() else []:
            if line.startswith("Traceback"):
                found["traceback"] += 1
            elif line.startswith("{"):
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if record.get("level") in ("error", "critical", "exception"):
                    found[f"{record.get('event')} ({record.get('error', '')})"] += 1
        if found:
            counts[service] = dict(found.most_common(10))
    return counts


async def metric_sum(session: aiohttp.ClientSession, url: str, name: str) -> float | None:
    try:
        async with session.get(f"{url}/metrics") as reply:
            text = await reply.text()
    except aiohttp.ClientError:
        return None
    values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines()
              if line.startswith(name) and (line[len(name)] in " {")]
    return sum(values) if values else None


# --- 1. the failover loop -------------------------------------------------------------------------------------
def sentinel_switches(servers: PrivateSentinelSet) -> list[tuple[float, int, int]]:
    """(monotonic time, old primary's port, new primary's port) of every failover in Sentinel 0's log."""
    to_monotonic = time.monotonic() - time.time()
    events = []
    log_file = Path(servers.sentinels[0].directory) / "sentinel.log"
    for line in log_file.read_text(errors="replace").splitlines():
        if "+switch-master" not in line:
            continue
        # 26626:X 02 Dec 2026 13:54:06.589 # +switch-master benthic 127.0.0.1 54453 127.0.0.1 32943
        parts = line.split()
        at = datetime.datetime.strptime(" ".join(parts[1:5]), "%d %b %Y %H:%M:%S.%f").timestamp()
        events.append((at + to_monotonic, int(parts[-3]), int(parts[-1])))
    return events


def game_versions(servers: PrivateSentinelSet, games: list[str], partitions: int) -> dict[str, int]:
    """Each game's version on the current primary (its meta hash): where the projection must get to."""
    client = redis.Redis(host="127.0.0.1", port=servers.primary().port, decode_responses=True)
    try:
        pipe = client.pipeline(transaction=False)
        for game_id in games:
            pipe.hget(GameKeys(game_id, partitions).meta, "version")
        return {game_id: int(v or 0) for game_id, v in zip(games, pipe.execute(), strict=True)}
    finally:
        client.close()


def missing_in_redis(servers: PrivateSentinelSet, acked: dict[tuple[str, str], tuple[Any, str, int, int, float]],
                     partitions: int) -> list[tuple[str, str]]:
    """The acks the current primary does not hold: its command hash of the game (command id -> "first:last", as
    append.lua writes it) does not name the command with the versions it was acknowledged with."""
    client = redis.Redis(host="127.0.0.1", port=servers.primary().port, decode_responses=True)
    missing: list[tuple[str, str]] = []
    items = list(acked.items())
    try:
        for start in range(0, len(items), 2000):
            chunk = items[start:start + 2000]
            pipe = client.pipeline(transaction=False)
            for (game_id, command_id), _ in chunk:
                pipe.hget(GameKeys(game_id, partitions).commands, command_id)
            for ((game_id, command_id), (_, _, first, last, _)), got in zip(chunk, pipe.execute(), strict=True):
                if got != f"{first}:{last}":
                    missing.append((game_id, command_id))
    finally:
        client.close()
    return missing


async def _failover_loop(
    servers: PrivateSentinelSet, platform: LocalPlatform, args: argparse.Namespace
) -> dict[str, Any]:
    api = Api(platform)
    ledger = Ledger()
    stop = asyncio.Event()
    started_pids = {name: process.pid for name, process in platform.processes.items()}
    load = start_load(api, args.games, args.rate, ledger, stop, spread_s=2.0)
    rng = random.Random(23)
    kills: list[dict[str, Any]] = []
    loop_started = time.monotonic()
    try:
        while len(ledger.acked) < 2 * args.games:  # the load is on
            await asyncio.sleep(0.2)
        for n in range(args.failovers):
            await asyncio.sleep(rng.uniform(1.0, 3.0))
            acks_before, refused_before = len(ledger.acked), sum(ledger.refusals.values())
            old = await asyncio.to_thread(servers.kill_primary)
            killed_at = time.monotonic()  # SIGKILLed and gone by now: an attempt sent later met another primary
            new = await asyncio.to_thread(servers.wait_for_failover, old, 60.0)
            promoted_at = time.monotonic()
            await asyncio.to_thread(servers.restart, old, True)
            await asyncio.to_thread(servers.wait_replicas_online, 2, 60.0)
            online_at = time.monotonic()
            first_ack = None
            while time.monotonic() < killed_at + 60.0:
                first_ack = next((answered for sent, answered in ledger.ack_times[acks_before:] if sent >= killed_at),
                                 None)
                if first_ack is not None:
                    break
                await asyncio.sleep(0.05)
            kills.append({"at_s": round(killed_at - loop_started, 3), "killed": old.port, "promoted": new.port,
                          "to_promotion_s": round(promoted_at - killed_at, 3),
                          "to_two_replicas_s": round(online_at - killed_at, 3),
                          "to_first_ack_s": round(first_ack - killed_at, 3) if first_ack is not None else None,
                          "refused_meanwhile": sum(ledger.refusals.values()) - refused_before})
            dead = [name for name, process in platform.processes.items() if process.poll() is not None]
            log(f"failover {n + 1}/{args.failovers}: :{old.port} killed, :{new.port} promoted in "
                f"{promoted_at - killed_at:.2f} s, first ack after {kills[-1]['to_first_ack_s']} s, 2 replicas in "
                f"{online_at - killed_at:.2f} s; acks {len(ledger.acked)}, refusals {sum(ledger.refusals.values())}"
                + (f"; DEAD: {dead}" if dead else ""))
        await asyncio.sleep(2.0)
    finally:
        stop.set()
        await load
    loop_s = time.monotonic() - loop_started
    refusals_during_run = dict(ledger.refusals)
    log(f"load stopped after {loop_s:.0f} s: {len(ledger.acked)} acks in {len(ledger.games)} games; verifying")

    # 1. In Redis itself, every ack: the primary's command hash names the command with the versions acked.
    partitions = from_env(platform.env).partitions
    missing = await asyncio.to_thread(missing_in_redis, servers, ledger.acked, partitions)
    # 2. Through the command service, which must take a write again first (the newest ack posted again, for up to
    #    60 s): every ack (or a uniform sample) posted again comes back as the same duplicate.
    keys = list(ledger.acked)
    if args.verify_sample and len(keys) > args.verify_sample:
        keys = random.Random(7).sample(keys, args.verify_sample)
    lost: list[str] = []
    verify_refusals = Ledger()
    gate = asyncio.Semaphore(16)

    async def again(key: tuple[str, str], deadline_s: float = 60.0) -> None:
        game_id, command_id = key
        command, token, first, last, _ = ledger.acked[key]
        async with gate:
            try:
                answer, _ = await retrying(lambda: api.play(game_id, token, command, command_id, include_legal=False),
                                           verify_refusals, deadline_s=deadline_s)
                got = (answer["duplicate"], answer["first_version"], answer["last_version"])
            except Exception as error:  # noqa: BLE001
                got = repr(error)[:160]
        if got != (True, first, last):
            lost.append(f"{game_id} {command_id} acked {first}..{last}, now {got}")

    verify_started = time.monotonic()
    takes_writes = True
    if keys:
        await again(next(reversed(ledger.acked)))
        takes_writes = not lost
        if takes_writes:
            await asyncio.gather(*(again(key) for key in keys))
        else:
            log(f"the command service takes no write 60 s after the load stopped: {lost[0]}; no re-posting")
    verify_s = time.monotonic() - verify_started

    # The consumers followed too: the projection shows every game at its last acked version, the scoring scored
    # the finished ones (a sample of each), and every service is ready and reports the primary changes.
    sample_rng = random.Random(11)
    games = sample_rng.sample(sorted(ledger.games), min(60, len(ledger.games)))
    finished = sample_rng.sample(sorted(ledger.finished), min(30, len(ledger.finished)))
    target = await asyncio.to_thread(game_versions, servers, games, partitions)
    behind = set(games)
    unscored = set(finished)
    deadline = time.monotonic() + 60.0
    while (behind or unscored) and time.monotonic() < deadline:
        for game_id in list(behind):
            try:
                view = await api.call("GET", f"{platform.read_url}/games/{game_id}/view")
                if view["version"] >= target[game_id]:
                    behind.discard(game_id)
            except (ApiFailure, aiohttp.ClientError):
                pass
        for game_id in list(unscored):
            try:
                if (await api.call("GET", f"{platform.read_url}/games/{game_id}")).get("scored"):
                    unscored.discard(game_id)
            except (ApiFailure, aiohttp.ClientError):
                pass
        if behind or unscored:
            await asyncio.sleep(0.5)
    ready = {}
    primary_changes = {}
    for service in SERVICES:
        try:
            async with api.session.get(f"{platform.url(service)}/readyz") as reply:
                ready[service] = reply.status == 200
        except aiohttp.ClientError:
            ready[service] = False
        primary_changes[service] = await metric_sum(api.session, platform.url(service),
                                                    "benthic_redis_primary_changes_total")
    await api.aclose()
    same = {name: platform.processes[name].poll() is None and platform.processes[name].pid == pid
            for name, pid in started_pids.items()}
    to_ack = [k["to_first_ack_s"] for k in kills if k["to_first_ack_s"] is not None]
    answered = sorted(at for _, at in ledger.ack_times)
    gaps = [(b - a, a) for a, b in itertools.pairwise(answered)]
    longest_gap = max(gaps, default=(0.0, loop_started))
    # The Sentinels' own count of failovers: more than the kills when they fail over a live primary (one that
    # answered no PING for down-after-milliseconds, e.g. on a starved machine).
    switches = sentinel_switches(servers)
    # Every failover the Sentinels made (as Sentinel 0 logged it, up to a second or two after the leader did), and
    # whether it was a kill's: the first one away from the killed server after the kill.
    failovers = [{"at_s": round(at - loop_started, 2), "from": old, "to": new, "after_a_kill": False, "acks_lost": 0}
                 for at, old, new in switches]
    for k in kills:
        mine = next((f for f in failovers if f["from"] == k["killed"] and f["at_s"] >= k["at_s"]
                     and not f["after_a_kill"]), None)
        if mine is not None:
            mine["after_a_kill"] = True
    for key in missing:  # lost in the first failover after it was acknowledged
        answered = ledger.acked[key][4] - loop_started
        after = next((f for f in failovers if f["at_s"] >= answered), None)
        if after is not None:
            after["acks_lost"] += 1
    to_promotion = [k["to_promotion_s"] for k in kills]
    return {
        "failovers": len(kills),
        "sentinel_down_after_ms": servers.down_after_ms,
        "sentinel_failover_timeout_ms": servers.failover_timeout_ms,
        "games": args.games,
        "target_commands_per_s": args.rate or "max (closed loop)",
        "run_s": round(loop_s, 1),
        "acked_commands": len(ledger.acked),
        "acked_commands_per_s": round(len(ledger.acked) / loop_s, 1),
        "games_played": len(ledger.games),
        "games_finished": len(ledger.finished),
        "acked_missing_in_redis": len(missing),
        "acked_missing_in_redis_examples": [
            "{} {} acked {}..{}".format(*key, *ledger.acked[key][2:4]) for key in missing[:10]],
        "acks_lost_by_failover": {
            "after_a_kill": sum(f["acks_lost"] for f in failovers if f["after_a_kill"]),
            "without_a_kill": sum(f["acks_lost"] for f in failovers if not f["after_a_kill"]),
            "failovers_losing_acks": [f for f in failovers if f["acks_lost"]][:20]},
        "command_service_takes_writes_at_end": takes_writes,
        "reposted": len(keys) if takes_writes else 0,
        "repost_s": round(verify_s, 1),
        "acked_lost": len(lost) if takes_writes else None,
        "acked_lost_examples": lost[:10],
        "kill_to_first_ack_s": {"p50": _quantile(to_ack, 0.5), "p99": _quantile(to_ack, 0.99),
                                "max": max(to_ack) if to_ack else None,
                                "failovers_without_ack_in_60s": len(kills) - len(to_ack)},
        "longest_time_without_an_ack_s": {"seconds": round(longest_gap[0], 3),
                                           "from_s_into_run": round(longest_gap[1] - loop_started, 1)},
        "sentinel_switch_masters": len(switches),
        "failovers_not_caused_by_a_kill": sum(1 for f in failovers if not f["after_a_kill"]),
        "kill_to_promotion_s": {"p50": _quantile(to_promotion, 0.5), "p99": _quantile(to_promotion, 0.99),
                                "max": max(to_promotion) if to_promotion else None},
        "refusals_during_run": refusals_during_run,
        "http_5xx_other_than_503": sum(n for code, n in refusals_during_run.items() if code[:3] in ("500", "502")),
        "refusals_while_reposting": dict(verify_refusals.refusals),
        "lane_errors": dict(ledger.errors.most_common(10)),
        "lane_error_count": sum(ledger.errors.values()),
        "services_same_processes": all(same.values()),
        "services": {name: {"same_process": same[name], "ready": ready.get(name),
                            "primary_changes_seen": primary_changes.get(name)} for name in started_pids},
        "projection_caught_up": {"games_checked": len(games), "behind": sorted(behind)[:10]},
        "scoring_caught_up": {"finished_games_checked": len(finished), "unscored": sorted(unscored)[:10]},
        "service_error_log_events": error_events(platform),
        "kills": kills,
    }


def run_failovers(args: argparse.Namespace) -> dict[str, Any]:
    log(f"failover loop: {args.failovers} failovers, {args.games} games at {args.rate or 'max'} commands/s, "
        f"Sentinel down-after {args.down_after_ms} ms")
    with PrivateSentinelSet(replicas=2, down_after_ms=args.down_after_ms,
                            failover_timeout_ms=args.failover_timeout_ms) as servers, \
            LocalPlatform(redis_url=servers.primary().url, env=platform_env(servers, 1)) as platform:
        result = uvloop.run(_failover_loop(servers, platform, args))
        result["log_dir"] = str(platform.log_dir)
    return result


# --- 2. the cost of replicated acks ---------------------------------------------------------------------------
async def _paced_phase(servers: PrivateSentinelSet, platform: LocalPlatform, args: argparse.Namespace,
                       warmup: float) -> dict[str, Any]:
    api = Api(platform)
    ledger = Ledger()
    stop = asyncio.Event()
    primary = servers.primary()
    replicas = [s for s in servers.servers if s is not primary]
    pids = {**platform.pids(), "redis_primary": primary.process.pid,
            **{f"redis_replica{i + 1}": r.process.pid for i, r in enumerate(replicas)}}
    servers_cpu = CpuWindow(pids)
    sentinel_pids = [s.process.pid for s in servers.sentinels if s.process is not None]
    load = start_load(api, args.cost_games, args.paced_rate, ledger, stop, spread_s=warmup / 2)
    await asyncio.sleep(warmup)
    window_start = time.monotonic()
    servers_cpu.start()
    sentinels_before = sum(cpu_seconds(p) for p in sentinel_pids)
    client_before = cpu_seconds(os.getpid(), descendants=False)
    await asyncio.sleep(args.seconds)
    spent = servers_cpu.stop()
    window_end = time.monotonic()
    sentinels = sum(cpu_seconds(p) for p in sentinel_pids) - sentinels_before
    client = cpu_seconds(os.getpid(), descendants=False) - client_before
    stop.set()
    await load
    await api.aclose()
    measured = [seconds for at, seconds in ledger.latencies if window_start <= at <= window_end]
    commands = len(measured)
    elapsed = window_end - window_start
    per = {name: round(cpu * 1000 / commands, 3) if commands else None for name, cpu in spent.items()}
    total = sum(spent.values())
    return {
        "accepted_commands": commands,
        "accepted_commands_per_s": round(commands / elapsed, 1),
        "command_latency_ms": {"p50": _ms(_quantile(measured, 0.5)), "p99": _ms(_quantile(measured, 0.99))},
        "cpu_ms_per_command": per,
        "cpu_ms_per_command_total": round(total * 1000 / commands, 3) if commands else None,
        "cpu_ms_per_command_not_in_total": {
            "sentinels": round(sentinels * 1000 / commands, 3) if commands else None,
            "load_client": round(client * 1000 / commands, 3) if commands else None},
        "refusals": dict(ledger.refusals),
        "lane_errors": dict(ledger.errors.most_common(5)),
        "_latencies": measured,
        "_cpu_total_s": total,
    }


def run_cost(args: argparse.Namespace) -> dict[str, Any]:
    log(f"cost of replicated acks: {args.pairs} pairs of phases, {args.cost_games} games paced at "
        f"{args.paced_rate} commands/s, {args.warmup:.0f} s warm-up + {args.seconds:.0f} s each")
    phases: list[dict[str, Any]] = []
    postgres = PrivatePostgres().start()  # one archive for every phase (it holds nothing that matters here)
    try:
        for pair in range(args.pairs):
            for ack in ((0, 1) if pair % 2 == 0 else (1, 0)):
                with PrivateSentinelSet(replicas=2) as servers, \
                        LocalPlatform(redis_url=servers.primary().url, env=platform_env(servers, ack),
                                      archive_url=postgres.dsn) as platform:
                    phase = uvloop.run(_paced_phase(servers, platform, args, args.warmup))
                phase = {"pair": pair + 1, "ack_replicas": ack, **phase}
                phases.append(phase)
                log(f"pair {pair + 1}, ack {ack}: {phase['accepted_commands_per_s']} commands/s, latency "
                    f"{phase['command_latency_ms']}, {phase['cpu_ms_per_command_total']} CPU ms per command, "
                    f"refusals {phase['refusals']}")
    finally:
        postgres.stop()

    def pooled(ack: int) -> dict[str, Any]:
        mine = [p for p in phases if p["ack_replicas"] == ack]
        latencies = [s for p in mine for s in p["_latencies"]]
        commands = sum(p["accepted_commands"] for p in mine)
        cpu = sum(p["_cpu_total_s"] for p in mine)
        return {"accepted_commands_per_s": round(sum(p["accepted_commands_per_s"] for p in mine) / len(mine), 1),
                "command_latency_ms": {"p50": _ms(_quantile(latencies, 0.5)), "p99": _ms(_quantile(latencies, 0.99))},
                "cpu_ms_per_command_total": round(cpu * 1000 / commands, 3) if commands else None}

    ack0, ack1 = pooled(0), pooled(1)
    cpu_ratio = (ack1["cpu_ms_per_command_total"] / ack0["cpu_ms_per_command_total"]
                 if ack0["cpu_ms_per_command_total"] and ack1["cpu_ms_per_command_total"] else None)
    p99_ratio = (ack1["command_latency_ms"]["p99"] / ack0["command_latency_ms"]["p99"]
                 if ack0["command_latency_ms"]["p99"] and ack1["command_latency_ms"]["p99"] else None)
    # Each pair's own ratios too: one phase disturbed by another load on the machine moves the pooled ones.
    per_pair = []
    for pair in range(1, args.pairs + 1):
        a0, a1 = (next(p for p in phases if p["pair"] == pair and p["ack_replicas"] == ack) for ack in (0, 1))
        cpu0, cpu1 = a0["cpu_ms_per_command_total"], a1["cpu_ms_per_command_total"]
        p99_0, p99_1 = a0["command_latency_ms"]["p99"], a1["command_latency_ms"]["p99"]
        per_pair.append({"pair": pair, "cpu": round(cpu1 / cpu0, 3) if cpu0 and cpu1 else None,
                         "p99": round(p99_1 / p99_0, 3) if p99_0 and p99_1 else None})
    for phase in phases:
        del phase["_latencies"], phase["_cpu_total_s"]
    return {
        "pairs": args.pairs,
        "games": args.cost_games,
        "paced_commands_per_s": args.paced_rate,
        "warmup_s": args.warmup,
        "measured_s": args.seconds,
        "ack0": ack0,
        "ack1": ack1,
        "ratio_cpu_per_command_ack1_over_ack0": round(cpu_ratio, 3) if cpu_ratio else None,
        "ratio_p99_ack1_over_ack0": round(p99_ratio, 3) if p99_ratio else None,
        "ratios_ack1_over_ack0_per_pair": per_pair,
        "targets": {"ratio_cpu_per_command": "<= 1.15", "ratio_p99": "<= 1.5"},
        "meets_targets": bool(cpu_ratio and p99_ratio and cpu_ratio <= 1.15 and p99_ratio <= 1.5),
        "phases": phases,
    }


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--failovers", type=int, default=100)
    parser.add_argument("--games", type=int, default=12, help="concurrent two-seat games in the failover loop")
    parser.add_argument("--rate", type=float, default=100.0, help="commands/s in the failover loop; 0 = closed loop")
    parser.add_argument("--verify-sample", type=int, default=10000,
                        help="acks posted again at the end (a uniform sample when there are more); 0 = all")
    parser.add_argument("--pairs", type=int, default=2, help="ack0/ack1 phase pairs of the cost measurement")
    parser.add_argument("--seconds", type=float, default=30.0, help="measured seconds of each cost phase")
    parser.add_argument("--warmup", type=float, default=10.0, help="warm-up seconds of each cost phase")
    parser.add_argument("--paced-rate", type=float, default=400.0, help="commands/s of the cost phases")
    parser.add_argument("--cost-games", type=int, default=48, help="concurrent two-seat games of the cost phases")
    parser.add_argument("--down-after-ms", type=int, default=2000,
                        help="Sentinel down-after-milliseconds of the failover loop (PrivateSentinelSet's default)")
    parser.add_argument("--failover-timeout-ms", type=int, default=None,
                        help="Sentinel failover-timeout of the failover loop (default: PrivateSentinelSet's, 2000)")
    parser.add_argument("--skip-cost", action="store_true")
    parser.add_argument("--skip-failovers", action="store_true")
    args = parser.parse_args()
    started = time.monotonic()
    result: dict[str, Any] = {"loadavg_at_start": Path("/proc/loadavg").read_text().split()[:3],
                              "cpus": os.cpu_count()}
    if not args.skip_failovers:
        result["failover_loop"] = run_failovers(args)
    if not args.skip_cost:
        result["ack_cost"] = run_cost(args)
    result["loadavg_at_end"] = Path("/proc/loadavg").read_text().split()[:3]
    result["took_s"] = round(time.monotonic() - started, 1)
    print(json.dumps({"failover_bench": result}))


if __name__ == "__main__":
    main()
