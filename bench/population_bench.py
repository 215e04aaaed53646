"""A population of games played open loop at human pace: N live games on the real platform, every move
arriving on the clock after a player's think time, whatever the server does.

The platform: ``LocalPlatform`` (the five services as processes, a private PostgreSQL, a private Redis with AOF;
``--cluster``: a private 3-master Redis Cluster instead, BENTHIC_REDIS_CLUSTER=1; ``--replicas K``: K more
command and K more projection processes, games spread over them round-robin).  Rate limits stay on, far above
the load (tests/e2e/test_platform.py's GENEROUS_LIMITS, plus creates, joins and tokens for N games), and the
open-games cap is off.

The load generator (this process, one asyncio loop on uvloop, ONE aiohttp connection pool for every call; aiohttp
rather than httpx because httpx's pool alone costs most of a core at a few hundred requests/s, see
bench/e2e_bench.py):

- **Games**: ``--games`` N, of every type (``--game-types``) and seat counts (2-4 where the type allows), created
  as a platform would: a matchmaker JWT (scope ``benthic:matchmaker``) ``POST /games`` naming the players, then
  every player its seat token with its own JWT (``POST /games/{id}/token``).  Creation is paced at
  ``--create-rate`` games/s (one admission clock for the first N and for every replacement); a finished game is
  replaced by a new one in its slot, so the population stays at N.
- **Moves, open loop, over HTTP** (``POST /games/{id}/commands?include=legal`` with the seat's token, a random
  legal command, ``expected_version`` set): each game's moves arrive as a Poisson process, think times exponential
  with mean ``--think-s``, scheduled on the clock from the previous *arrival* (not from the previous answer), so a
  slow answer never delays the arrivals of other games and the offered rate is N / think-s.  A game has one move
  in flight at a time (its next move needs the answer's legal commands, and a player does not queue moves): an
  arrival that comes while the game waits for an answer is sent as soon as the answer is in, and that delay is
  reported (``schedule_lag_ms``, and the latency counted from the scheduled time,
  ``p99_command_from_schedule_ms``, next to the plain one); when several came meanwhile, all but the last are
  counted as offered and ``arrivals_coalesced`` (not sent), so an overload leaves no backlog in the client that
  the server would have to work off afterwards (``sent_per_s`` < ``offered_per_s`` says so).  The next move is
  chosen from the answer's ``legal``; ``GET /games/{id}/legal`` (with the next mover's token) is read only when the
  next mover is another seat, right after the answer (during the think time).  A refused move (429, 5xx, a cut
  connection) is sent again at the game's next arrival with the same command id; 401 token_expired refreshes the
  seat token; a game with 10 failures in a row is abandoned (counted) and replaced.
- **Watchers**: ``--watchers`` (a fraction of the slots, default 5%) hold a live SSE stream of seat 0's view
  (``GET /games/{id}/seats/0/live?token=``).  For every version V a command of a watched game made, projection
  lag = (when the watcher saw V or a later version) - (when the command making V was acknowledged to the client),
  negative when the view arrived before the answer (an answer delayed in the command service).  Acks not seen by
  the end count with (end - ack), a lower bound.  A stream that ends or is refused (a game created a moment ago
  answers ``404 game_not_found`` until the projection has written it) is opened again after 0.5 s.
- **Probes**: every process's ``/healthz`` every ``--probe-ms`` (default 100 ms with ``--ramp``, else 1 s; open
  loop, 10 s timeout).
- **Connections**: ``--connections`` caps the pool (default 0: no cap, as every player holds their own); a request
  waiting for a pooled connection counts that wait in its latency.

Reported for the measured window (``--seconds`` after every game exists and ``--warmup`` more): commands/s offered
(arrivals scheduled in the window), sent and accepted (2xx answered in it); every non-2xx answer by operation,
status and code, and transport errors; command latency p50/p99/p99.9 (client-side, send -> answer, of the commands
sent in the window); projection lag p50/p99; /healthz p99 per process; RSS (VmRSS) of every process (services,
Redis or every cluster node, the PostgreSQL postmaster) and Redis ``used_memory`` (summed over the nodes) at the
window's start, middle and end; ``redis_bytes_per_live_game`` = (used_memory at the end - used_memory before any
game) / live games at the end; CPU per accepted command of every process (utime + stime from /proc over the
window; the load generator's own apart); games finished, scored, rated (scoring's counters) and archived
(archiver's counter) in the window; games abandoned or stuck (no accepted move for 10 think times).

``--ramp`` (the open-loop step test): offers 0.5x, 1x, 2x, 4x ``--saturation`` commands/s (given,
or measured first: ``--burst-s`` of closed loop on ``--burst-games`` of the games) for ``--step-s`` each, by
setting the think time to N / rate; per step: offered, sent, accepted, p50/p99 of admitted (2xx) commands, non-2xx
by status and code, /healthz p99 per process, CPU of every process; then the load drops back to the first step's
rate and the report says how long after the last step the command p99 (per ``--recovery-bucket-s`` bucket, by send
time, ``--recovery-buckets`` buckets in a row) is back within ``--recovery-tolerance`` of the first step's.

Progress on stderr; the last line of stdout is one JSON object (also written to bench/results/population-*.json).

    python -m bench.population_bench [--games 10000] [--think-s 20] [--seconds 600] [--warmup 30]
        [--watchers 0.05] [--replicas K] [--cluster] [--create-rate 50] [--archive-after-s 30]
    python -m bench.population_bench --ramp [--saturation R] [--step-s 60] [--games 10000]
"""

from __future__ import annotations

import argparse
import asyncio
import bisect
import contextlib
import json
import math
import os
import random
import sys
import time
import uuid
from array import array
from collections import Counter, deque
from pathlib import Path
from typing import Any

import aiohttp
import msgspec
from redis.asyncio import Redis
from yarl import URL

from bench.common import CpuWindow, env_overrides
from benthic.local.devredis import PrivateRedisCluster
from benthic.local.localplatform import LocalPlatform
from benthic.local.signals import stop_servers_on_signals
from benthic.rules import game_types, get_engine

try:
    import uvloop
except ImportError:  # pragma: no cover - uvloop is a dependency of the services
    uvloop = None  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parent.parent
RESULTS_DIR = ROOT / "bench" / "results"
INF = math.inf

# tests/e2e/test_platform.py's GENEROUS_LIMITS, plus room for a matchmaker creating N games and every player of
# them asking for a seat token (the defaults are meant for people); the open-games cap off.
GENEROUS_LIMITS = {
    "BENTHIC_LIMIT_COMMAND_PER_PLAYER": "1000/second",
    "BENTHIC_LIMIT_COMMAND_PER_IP": "100000/second",
    "BENTHIC_LIMIT_TOKEN_PER_IP": "100000/minute",
    "BENTHIC_LIMIT_JOIN_PER_IP": "100000/minute",
}
LIMITS = {
    **GENEROUS_LIMITS,
    "BENTHIC_LIMIT_TOKEN_PER_IP": "10000000/minute",
    "BENTHIC_LIMIT_TOKEN_PER_PLAYER": "1000/minute",
    "BENTHIC_LIMIT_CREATE_PER_PLAYER": "1000000/minute",
    "BENTHIC_LIMIT_CREATE_PER_IP": "10000000/minute",
    "BENTHIC_LIMIT_JOIN_PER_PLAYER": "100000/minute",
    "BENTHIC_LIMIT_JOIN_PER_IP": "10000000/minute",
    "BENTHIC_MAX_OPEN_GAMES_PER_PLAYER": "0",
}
MAX_FAILURES = 10  # failures in a row after which a game is abandoned (and replaced)
JWT_TTL_S = 6 * 3600


def log(message: str) -> None:
    print(f"[population {time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _q(samples: Any, q: float) -> float | None:
    """Nearest-rank quantile (None without samples)."""
    if not samples:
        return None
    ordered = sorted(samples)
    return float(ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))])


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds * 1000, 2)


def _rss_kb(pid: int, field: str = "VmRSS") -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _metric(text: str, name: str) -> dict[str, float]:
    """Samples of one metric: {label text: value}."""
    found: dict[str, float] = {}
    for line in text.splitlines():
        if line.startswith(name) and len(line) > len(name) and line[len(name)] in "{ ":
            key, value = line.rsplit(" ", 1)
            found[key[len(name):]] = float(value)
    return found


class Answer(msgspec.Struct):
    """``POST /commands?include=legal``'s answer, the parts used (events and labels are skipped undecoded)."""

    last_version: int
    duplicate: bool = False
    prompt: dict[str, Any] | None = None
    legal: list[Any] | None = None


class Legal(msgspec.Struct):
    version: int
    prompt: dict[str, Any] | None
    commands: list[Any]


class ErrorBody(msgspec.Struct):
    code: str = "?"


_answer = msgspec.json.Decoder(Answer)
_legal = msgspec.json.Decoder(Legal)
_error = msgspec.json.Decoder(ErrorBody)
_encode = msgspec.json.Encoder().encode


def _code(raw: bytes) -> str:
    try:
        return _error.decode(raw).code
    except (msgspec.DecodeError, msgspec.ValidationError):
        return "non_json"


def _wake(future: asyncio.Future[bool], value: bool) -> None:
    if not future.done():  # a timer may fire after its sleeper was cancelled or woken
        future.set_result(value)


# --- the arrival schedule ----------------------------------------------------------------------------------------
class Timeline:
    """Mean think time of every game, piecewise in time: segments (start, mean, active) where mean 0 is a closed loop
    (the next move as soon as the last is answered), ``inf`` idle, and ``active`` (None: every slot) the slots taking
    part.  Arrivals are a Poisson process of each game: a gap drawn in one segment that crosses into the next is
    drawn again from the boundary with the next segment's mean (memoryless, so exact)."""

    def __init__(self, mean: float) -> None:
        self.starts: list[float] = [-INF]
        self.segments: list[tuple[float, int | None]] = [(mean, None)]

    def set_from(self, at: float, segments: list[tuple[float, float, int | None]]) -> None:
        """From ``at`` on, ``segments`` [(start, mean, active)] (the first should start at ``at``); what was planned
        after ``at`` is dropped."""
        keep = bisect.bisect_right(self.starts, at)
        del self.starts[keep:], self.segments[keep:]
        if self.starts and self.starts[-1] == at:
            self.starts.pop(), self.segments.pop()
        for start, mean, active in segments:
            self.starts.append(start)
            self.segments.append((mean, active))

    def mean_at(self, t: float) -> float:
        return self.segments[bisect.bisect_right(self.starts, t) - 1][0]

    def next_arrival(self, t: float, slot: int, rng: random.Random) -> float:
        while True:
            index = bisect.bisect_right(self.starts, t) - 1
            mean, active = self.segments[index]
            end = self.starts[index + 1] if index + 1 < len(self.starts) else INF
            if active is not None and slot >= active:
                mean = INF
            if mean == INF:
                if end == INF:
                    return INF
                t = end
                continue
            if mean == 0:
                at = max(t, time.monotonic())
            else:
                at = t + rng.expovariate(1.0 / mean)
            if at < end:
                return at
            t = end


# --- what is recorded ---------------------------------------------------------------------------------------------
class Record:
    def __init__(self) -> None:
        self.arrivals = array("d")  # scheduled times of the moves (offered)
        self.coalesced = array("d")  # arrivals that came while their game still waited for an answer (not sent)
        self.cmd_sent = array("d")
        self.cmd_sched = array("d")
        self.cmd_done = array("d")
        self.cmd_status = array("i")  # 0: transport error
        self.legal_sent = array("d")
        self.legal_latency = array("d")
        self.creates: list[tuple[float, float]] = []  # (done, seconds from the POST to a playable game)
        self.errors: list[tuple[float, str]] = []  # every non-2xx answer and transport error
        self.finished = array("d")
        self.abandoned: list[tuple[float, str]] = []
        self.lag_acked = array("d")  # projection lag samples: ack time, lag
        self.lag = array("d")
        self.watch_reconnects = 0
        self.health: dict[str, list[tuple[float, float | None]]] = {}

    def error(self, at: float, key: str) -> None:
        self.errors.append((at, key))


class Game:
    __slots__ = ("acks", "command_url", "commands", "created_at", "done", "failures", "game_id", "game_type",
                 "last_accept", "legal_url", "players", "post_url", "read_url", "retry", "rng", "seat", "seats",
                 "seen_at", "seen_version", "sending_since", "slot", "tokens", "version", "watching")

    def __init__(self, slot: int, game_id: str, game_type: str, players: list[str], tokens: dict[int, str],
                 command_url: str, read_url: str, rng: random.Random) -> None:
        self.slot = slot
        self.game_id = game_id
        self.game_type = game_type
        self.players = players
        self.seats = len(players)
        self.tokens = tokens
        self.command_url = command_url
        self.read_url = read_url
        # built once: parsing and quoting a URL string costs the load generator more than the rest of a request
        self.post_url = URL(f"{command_url}/games/{game_id}/commands?include=legal", encoded=True)
        self.legal_url = URL(f"{command_url}/games/{game_id}/legal", encoded=True)
        self.rng = rng
        self.version = 0
        self.seat = 0
        self.commands: list[Any] | None = None
        self.retry: tuple[str, Any] | None = None
        self.failures = 0
        self.done = False
        self.created_at = self.last_accept = time.monotonic()
        self.sending_since: float | None = None
        self.watching = False
        self.seen_version = -1
        self.seen_at = 0.0
        self.acks: deque[tuple[int, float]] = deque()


# --- the load generator ----------------------------------------------------------------------------------------
class Population:
    def __init__(self, args: argparse.Namespace, platform: LocalPlatform, command_urls: list[str],
                 read_urls: list[str], redis_urls: list[str], pids: dict[str, int]) -> None:
        self.args = args
        self.platform = platform
        self.command_urls = command_urls
        self.read_urls = read_urls
        self.redis_urls = redis_urls
        self.pids = pids
        self.types = [t for t in args.game_types.split(",") if t]
        self.rec = Record()
        self.timeline = Timeline(args.think_s)
        self.live: dict[int, Game] = {}
        self.sleeping: dict[int, tuple[asyncio.Future[bool], asyncio.TimerHandle | None]] = {}
        self.next_create = 0.0
        self.created = 0
        self.in_flight = 0
        self.max_in_flight = 0
        n = args.games
        self.watched = {s for s in range(n) if int((s + 1) * args.watchers) > int(s * args.watchers)}
        self.session: aiohttp.ClientSession | None = None
        self.matchmaker = platform.mint("bench-matchmaker", ["benthic:matchmaker"], JWT_TTL_S)
        self.jwts: dict[str, str] = {}
        self.tasks: list[asyncio.Task[Any]] = []

    # -- HTTP ----------------------------------------------------------------------------------------------------
    async def call(self, op: str, method: str, url: str | URL, token: str | None, body: bytes | None = None,
                   timeout: aiohttp.ClientTimeout | None = None) -> tuple[int, bytes] | None:
        assert self.session is not None
        headers = {"authorization": f"Bearer {token}"} if token else {}
        if body is not None:
            headers["content-type"] = "application/json"
        try:
            async with self.session.request(method, url, data=body, headers=headers, timeout=timeout) as reply:
                raw = await reply.read()
                status = reply.status
        except (aiohttp.ClientError, TimeoutError, OSError) as error:
            self.rec.error(time.monotonic(), f"{op} transport {type(error).__name__}")
            return None
        if status >= 300:
            self.rec.error(time.monotonic(), f"{op} {status} {_code(raw)}")
        return status, raw

    def _jwt(self, player: str) -> str:
        jwt = self.jwts.get(player)
        if jwt is None:
            jwt = self.jwts[player] = self.platform.mint(player, (), JWT_TTL_S)
        return jwt

    async def _seat_token(self, game: Game | None, game_id: str, command_url: str, player: str) -> str | None:
        reply = await self.call("token", "POST", f"{command_url}/games/{game_id}/token", self._jwt(player))
        if reply is None or reply[0] != 200:
            return None
        return str(msgspec.json.decode(reply[1])["token"])

    # -- creating games ------------------------------------------------------------------------------------------
    async def _admit(self) -> None:
        """One creation per 1 / create-rate seconds, whoever asks."""
        now = time.monotonic()
        at = max(self.next_create, now)
        self.next_create = at + 1.0 / self.args.create_rate
        if at > now:
            await asyncio.sleep(at - now)

    async def _create(self, slot: int, generation: int, rng: random.Random) -> Game:
        replica = slot % len(self.command_urls)
        command_url, read_url = self.command_urls[replica], self.read_urls[slot % len(self.read_urls)]
        while True:
            await self._admit()
            game_type = rng.choice(self.types)
            engine = get_engine(game_type)
            seats = rng.randint(max(2, engine.min_seats), max(2, min(4, engine.max_seats)))
            players = [f"p{slot}g{generation}s{seat}" for seat in range(seats)]
            started = time.monotonic()
            body = _encode({"game_type": game_type, "options": {},
                            "seats": [{"player_id": p, "name": f"Player {i + 1}"} for i, p in enumerate(players)]})
            reply = await self.call("create", "POST", f"{command_url}/games", self.matchmaker, body)
            if reply is None or reply[0] != 201:
                await asyncio.sleep(1.0)
                continue
            game_id = msgspec.json.decode(reply[1])["game_id"]
            tokens: dict[int, str] = {}
            for _attempt in range(5):
                missing = [s for s in range(seats) if s not in tokens]
                got = await asyncio.gather(*(self._seat_token(None, game_id, command_url, players[s]) for s in missing))
                tokens.update({s: t for s, t in zip(missing, got, strict=True) if t})
                if len(tokens) == seats:
                    break
                await asyncio.sleep(1.0)
            else:
                self.rec.abandoned.append((time.monotonic(), "no seat tokens"))
                continue
            game = Game(slot, game_id, game_type, players, tokens, command_url, read_url, rng)
            if await self._read_legal(game, [0]) and not game.done:
                self.rec.creates.append((time.monotonic(), time.monotonic() - started))
                self.created += 1
                return game
            self.rec.abandoned.append((time.monotonic(), "no first legal commands"))

    # -- playing -------------------------------------------------------------------------------------------------
    async def _read_legal(self, game: Game, seats: list[int]) -> bool:
        """The legal commands of the first of ``seats`` (then of the prompt's seats) that has some; False when a
        read failed or no seat of the prompt may act."""
        tried: set[int] = set()
        queue = list(seats)
        while queue:
            seat = queue.pop(0)
            if seat in tried:
                continue
            tried.add(seat)
            sent = time.monotonic()
            reply = await self.call("legal", "GET", game.legal_url, game.tokens[seat])
            self.rec.legal_sent.append(sent)
            self.rec.legal_latency.append(time.monotonic() - sent)
            if reply is None:
                return False
            if reply[0] != 200:
                await self._refused(game, seat, reply)
                return False
            legal = _legal.decode(reply[1])
            if legal.prompt is None:
                self._finish(game)
                return True
            game.version = max(game.version, legal.version)
            movers = list(legal.prompt["seats"])
            if seat in movers and legal.commands:
                game.seat, game.commands = seat, legal.commands
                return True
            game.rng.shuffle(movers)
            queue.extend(movers)
        self.rec.error(time.monotonic(), "legal none_of_the_prompted_seats_has_commands")
        return False

    async def _refused(self, game: Game, seat: int, reply: tuple[int, bytes]) -> None:
        status, raw = reply
        code = _code(raw)
        if status == 401 and code in ("token_expired", "token_revoked"):
            token = await self._seat_token(game, game.game_id, game.command_url, game.players[seat])
            if token:
                game.tokens[seat] = token
        elif status == 409 and code == "game_finished":
            self._finish(game)

    def _finish(self, game: Game) -> None:
        if not game.done:
            game.done = True
            self.rec.finished.append(time.monotonic())

    def _failed(self, game: Game, why: str) -> None:
        game.failures += 1
        if game.failures >= MAX_FAILURES and not game.done:
            game.done = True
            self.rec.abandoned.append((time.monotonic(), why))

    async def _move(self, game: Game, scheduled: float) -> None:
        if game.commands is None and game.retry is None:
            if not await self._read_legal(game, [game.seat]):
                self._failed(game, "legal")
                return
            if game.done:
                return
        if game.retry is not None:
            command_id, command = game.retry
        else:
            command_id, command = uuid.uuid4().hex, game.rng.choice(game.commands)  # type: ignore[arg-type]
        body = _encode({"command_id": command_id, "command": command, "expected_version": game.version})
        sent = game.sending_since = time.monotonic()
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            reply = await self.call("command", "POST", game.post_url, game.tokens[game.seat], body)
        finally:
            self.in_flight -= 1
            game.sending_since = None
        done = time.monotonic()
        rec = self.rec
        rec.cmd_sent.append(sent)
        rec.cmd_sched.append(scheduled)
        rec.cmd_done.append(done)
        rec.cmd_status.append(reply[0] if reply else 0)
        if reply is None:
            game.retry = (command_id, command)
            self._failed(game, "transport")
            return
        status, raw = reply
        if status == 200:
            answer = _answer.decode(raw)
            game.failures, game.retry, game.last_accept = 0, None, done
            game.version = max(game.version, answer.last_version)
            if game.watching:
                self._acked(game, answer.last_version, done)
            if answer.legal is None:  # a duplicate's answer carries no next step
                game.commands = None
                return
            if answer.prompt is None:
                self._finish(game)
                return
            movers = list(answer.prompt["seats"])
            if game.seat in movers and answer.legal:
                game.commands = answer.legal
            else:
                game.commands = None
                game.rng.shuffle(movers)
                game.seat = movers[0]
            return
        code = _code(raw)
        if status == 429 or status >= 500:
            game.retry = (command_id, command)  # not applied (429) or maybe applied (503): the same id again
        elif status == 401 and code in ("token_expired", "token_revoked"):
            game.retry = (command_id, command)
            await self._refused(game, game.seat, reply)
        elif status == 409 and code == "game_finished":
            self._finish(game)
            return
        else:  # version_conflict, a rule's 422, ...: read the legal commands again
            game.retry, game.commands = None, None
        self._failed(game, f"{status} {code}")

    async def _sleep_until(self, slot: int, at: float) -> bool:
        """True when ``at`` came, False when the timeline changed meanwhile (draw again)."""
        loop = asyncio.get_running_loop()
        woken: asyncio.Future[bool] = loop.create_future()
        handle = None if at == INF else loop.call_later(max(0.0, at - time.monotonic()), _wake, woken, True)
        self.sleeping[slot] = (woken, handle)
        try:
            return await woken
        finally:
            self.sleeping.pop(slot, None)
            if handle is not None:
                handle.cancel()

    def reschedule(self) -> None:
        """The timeline changed: every sleeping game draws its next arrival again, from now."""
        for woken, handle in list(self.sleeping.values()):
            if handle is not None:
                handle.cancel()
            _wake(woken, False)

    async def _play(self, game: Game) -> None:
        previous = time.monotonic()
        upcoming: float | None = None  # the arrival after a coalesced run, already drawn
        while not game.done:
            at = upcoming if upcoming is not None else self.timeline.next_arrival(previous, game.slot, game.rng)
            upcoming = None
            now = time.monotonic()
            if at > now:
                if not await self._sleep_until(game.slot, at):
                    previous = time.monotonic()
                    continue
            elif self.timeline.mean_at(at) > 0:
                # Overdue: the game was still waiting for an answer.  A player does not pile up moves meanwhile:
                # every arrival that came during the wait but the last is offered and coalesced, the last is sent.
                while (following := self.timeline.next_arrival(at, game.slot, game.rng)) <= now:
                    self.rec.arrivals.append(at)
                    self.rec.coalesced.append(at)
                    at = following
                upcoming = following  # drawn: drawing it again would bias the count up
            previous = at
            self.rec.arrivals.append(at)
            await self._move(game, at)
            # the next mover is another seat: its client reads its legal commands now, while it thinks
            if game.commands is None and game.retry is None and not game.done \
                    and not await self._read_legal(game, [game.seat]):
                self._failed(game, "legal")

    async def _slot(self, slot: int) -> None:
        rng = random.Random(self.args.seed * 1_000_003 + slot)
        generation = 0
        while True:
            game = await self._create(slot, generation, rng)
            generation += 1
            self.live[slot] = game
            watcher = asyncio.create_task(self._watch(game)) if slot in self.watched else None
            try:
                await self._play(game)
            finally:
                game.done = True
                if watcher is not None:
                    watcher.cancel()
                self.live.pop(slot, None)

    # -- watchers ------------------------------------------------------------------------------------------------
    def _acked(self, game: Game, version: int, at: float) -> None:
        if game.seen_version >= version:  # the view came before the answer
            self.rec.lag_acked.append(at)
            self.rec.lag.append(game.seen_at - at)
        else:
            game.acks.append((version, at))

    def _seen(self, game: Game, version: int, at: float) -> None:
        if version <= game.seen_version:
            return
        game.seen_version, game.seen_at = version, at
        while game.acks and game.acks[0][0] <= version:
            _, acked = game.acks.popleft()
            self.rec.lag_acked.append(acked)
            self.rec.lag.append(at - acked)

    async def _watch(self, game: Game) -> None:
        assert self.session is not None
        forever = aiohttp.ClientTimeout(total=None, sock_connect=30, sock_read=None)
        first = True
        while not game.done:
            if not first:
                self.rec.watch_reconnects += 1
                await asyncio.sleep(0.5)
            first = False
            url = f"{game.read_url}/games/{game.game_id}/seats/0/live"
            try:
                async with self.session.get(url, params={"token": game.tokens[0]}, timeout=forever) as reply:
                    if reply.status != 200:
                        raw = await reply.read()
                        self.rec.error(time.monotonic(), f"watch {reply.status} {_code(raw)}")
                        await self._refused(game, 0, (reply.status, raw))
                        continue
                    buffer = b""
                    async for chunk in reply.content.iter_any():
                        buffer += chunk
                        while b"\n\n" in buffer:
                            frame, buffer = buffer.split(b"\n\n", 1)
                            if frame.startswith(b"id: "):
                                now = time.monotonic()
                                self._seen(game, int(frame[4:frame.index(b"\n")]), now)
                                game.watching = True
                            elif frame.startswith(b"event: closed"):
                                data = frame.split(b"data: ", 1)[-1]
                                self.rec.error(time.monotonic(), f"watch closed {_code(data)}")
                                token = await self._seat_token(game, game.game_id, game.command_url, game.players[0])
                                if token:
                                    game.tokens[0] = token
            except asyncio.CancelledError:
                raise
            except (aiohttp.ClientError, TimeoutError, OSError, ValueError) as error:
                self.rec.error(time.monotonic(), f"watch transport {type(error).__name__}")
            finally:
                game.watching = False

    # -- probes and snapshots --------------------------------------------------------------------------------------
    async def _probe(self, name: str, url: str) -> None:
        samples = self.rec.health.setdefault(name, [])
        timeout = aiohttp.ClientTimeout(total=10)

        async def once() -> None:
            sent = time.monotonic()
            reply = await self.call("healthz", "GET", f"{url}/healthz", None, timeout=timeout)
            samples.append((sent, time.monotonic() - sent if reply is not None and reply[0] == 200 else None))

        period = self.args.probe_ms / 1000
        at = time.monotonic()
        pending: set[asyncio.Task[None]] = set()
        while True:
            task = asyncio.create_task(once())
            pending.add(task)
            task.add_done_callback(pending.discard)
            at += period
            await asyncio.sleep(max(0.0, at - time.monotonic()))

    async def snapshot(self) -> dict[str, Any]:
        assert self.session is not None
        used = 0
        for url in self.redis_urls:
            client = Redis.from_url(url)
            try:
                used += int((await client.info("memory"))["used_memory"])
            finally:
                await client.aclose()
        counters: dict[str, float] = {}
        consumer_lag: dict[str, float] = {}
        wanted = {"scoring": ("benthic_games_scored_total", "benthic_ratings_updated_total"),
                  "archiver": ("benthic_games_archived_total",)}
        for name in self.platform.processes:
            service = name.split("-", 1)[0]
            reply = await self.call("metrics", "GET", f"{self.platform.url(name)}/metrics", None)
            if reply is None or reply[0] != 200:
                continue
            text = reply[1].decode()
            for metric in wanted.get(service, ()):
                counters[metric] = counters.get(metric, 0.0) + sum(_metric(text, metric).values())
            for labels, value in _metric(text, "benthic_consumer_lag_entries").items():
                consumer_lag[labels] = max(consumer_lag.get(labels, 0.0), value)
        return {
            "at": time.monotonic(),
            "redis_used_memory": used,
            "rss_mb": {n: round(kb / 1024, 1) for n, pid in self.pids.items() if (kb := _rss_kb(pid)) is not None},
            "counters": counters,
            "consumer_lag_entries": consumer_lag,
            "live_games": sum(1 for g in self.live.values() if not g.done),
        }

    async def _progress(self) -> None:
        last = time.monotonic()
        marks = (0, 0, 0)
        while True:
            await asyncio.sleep(10.0)
            now = time.monotonic()
            rec = self.rec
            arrivals, sent, errors = len(rec.arrivals), len(rec.cmd_sent), len(rec.errors)
            recent = [rec.cmd_done[i] - rec.cmd_sent[i] for i in range(marks[1], sent) if rec.cmd_status[i] == 200]
            ok = len(recent)
            log(f"live {len(self.live)} created {self.created}; last {now - last:.0f}s: offered "
                f"{(arrivals - marks[0]) / (now - last):.0f}/s accepted {ok / (now - last):.0f}/s p99 "
                f"{_ms(_q(recent, 0.99))} ms, errors {errors - marks[2]}, in flight {self.in_flight}, "
                f"think {self.timeline.mean_at(now):.2f}s")
            marks, last = (arrivals, sent, errors), now

    # -- the run ----------------------------------------------------------------------------------------------
    async def run(self) -> dict[str, Any]:
        args = self.args
        connector = aiohttp.TCPConnector(limit=args.connections, limit_per_host=0, keepalive_timeout=60)
        self.session = aiohttp.ClientSession(connector=connector, timeout=aiohttp.ClientTimeout(total=60))
        try:
            return await self._run()
        finally:
            for task in self.tasks:
                task.cancel()
            await asyncio.gather(*self.tasks, return_exceptions=True)
            await self.session.close()

    async def _run(self) -> dict[str, Any]:
        args = self.args
        before_games = await self.snapshot()
        if args.ramp and args.saturation:
            self.timeline = Timeline(args.games / (0.5 * args.saturation))
        self.tasks.append(asyncio.create_task(self._progress()))
        for name in self.platform.processes:
            self.tasks.append(asyncio.create_task(self._probe(name, self.platform.url(name))))
        started = time.monotonic()
        log(f"creating {args.games} games at {args.create_rate}/s ({len(self.watched)} watched)")
        self.tasks += [asyncio.create_task(self._slot(slot)) for slot in range(args.games)]
        while self.created < args.games:
            await asyncio.sleep(0.2)
        filled = time.monotonic()
        log(f"every game exists after {filled - started:.0f}s")
        if args.ramp:
            report = await self._ramp(filled)
        else:
            report = await self._population(filled)
        return {"before_games": before_games, "fill_s": round(filled - started, 1), **report}

    async def _population(self, filled: float) -> dict[str, Any]:
        args = self.args
        start = filled + args.warmup
        end = start + args.seconds
        await asyncio.sleep(max(0.0, start - time.monotonic()))
        cpu = CpuWindow({**self.pids, "load_generator": os.getpid()}, alone=frozenset({"load_generator"}))
        cpu.start()
        snapshots = {"start": await self.snapshot()}
        await asyncio.sleep(max(0.0, (start + end) / 2 - time.monotonic()))
        snapshots["middle"] = await self.snapshot()
        await asyncio.sleep(max(0.0, end - time.monotonic()))
        spent = cpu.stop()
        snapshots["end"] = await self.snapshot()
        return {"window": (start, end), "cpu": spent, "snapshots": snapshots, **self._at_end(end, start)}

    def _at_end(self, end: float, start: float) -> dict[str, Any]:
        """What the live games say at the end (before the load stops and they are dropped)."""
        live = [g for g in self.live.values() if not g.done]
        return {"stuck": self._stuck(end), "tail_arrivals": self._tail_arrivals(end),
                "population": dict(sorted(Counter(f"{g.game_type}/{g.seats}" for g in live).items())),
                "mean_version": round(sum(g.version for g in live) / len(live), 1) if live else None,
                "unseen_acks": [end - acked for g in live for _v, acked in g.acks if start <= acked < end]}

    def _stuck(self, now: float) -> dict[str, Any]:
        quiet = max(60.0, 10 * self.timeline.mean_at(now))
        waiting = [g for g in self.live.values() if g.sending_since is not None and now - g.sending_since > 30]
        silent = [g for g in self.live.values() if not g.done and now - g.last_accept > quiet]
        return {"no_accepted_move_for_s": quiet, "games": len(silent), "examples": [g.game_id for g in silent[:5]],
                "command_in_flight_over_30s": len(waiting)}

    def _tail_arrivals(self, end: float) -> int:
        """Arrivals scheduled before ``end`` that games still busy with an answer had not reached yet."""
        count = 0
        for game in self.live.values():
            if game.sending_since is None:
                continue
            t = game.sending_since
            rng = random.Random(game.slot)
            while True:
                t = self.timeline.next_arrival(t, game.slot, rng)
                if t >= end or self.timeline.mean_at(t) == 0:
                    break
                count += 1
        return count

    async def _ramp(self, filled: float) -> dict[str, Any]:
        args = self.args
        n = args.games
        saturation = args.saturation
        burst: dict[str, Any] | None = None
        now = time.monotonic()
        if not saturation:
            burst_start = now + args.warmup
            burst_end = burst_start + args.burst_s
            self.timeline.set_from(now, [(now, args.think_s, None), (burst_start, 0.0, args.burst_games),
                                         (burst_end, INF, None)])
            self.reschedule()
            log(f"closed-loop burst on {min(n, args.burst_games)} games for {args.burst_s}s after {args.warmup}s")
            await asyncio.sleep(max(0.0, burst_end - time.monotonic()))
            measured_from = burst_start + min(3.0, args.burst_s / 4)
            accepted = self._accepted(measured_from, burst_end)
            saturation = accepted / (burst_end - measured_from)
            latencies = self._latencies(measured_from, burst_end)
            burst = {"games": min(n, args.burst_games), "seconds": args.burst_s,
                     "accepted_per_s": round(saturation, 1), "p99_command_ms": _ms(_q(latencies, 0.99))}
            log(f"saturation (closed loop): {saturation:.0f} commands/s")
            settle = max(5.0, min(args.warmup, 15.0))
        else:
            settle = args.warmup
        now = time.monotonic()
        first = now + settle
        steps = [(first + i * args.step_s, m) for i, m in enumerate(args.multipliers)]
        last_end = first + len(steps) * args.step_s
        base_rate = args.multipliers[0] * saturation
        self.timeline.set_from(now, [(now, n / base_rate, None),
                                     *((at, n / (m * saturation), None) for at, m in steps),
                                     (last_end, n / base_rate, None)])
        self.reschedule()
        rows = []
        for index, (at, multiplier) in enumerate(steps):
            await asyncio.sleep(max(0.0, at - time.monotonic()))
            log(f"step {index + 1}: {multiplier}x = {multiplier * saturation:.0f} commands/s for {args.step_s}s")
            cpu = CpuWindow({**self.pids, "load_generator": os.getpid()}, alone=frozenset({"load_generator"}))
            cpu.start()
            await asyncio.sleep(max(0.0, at + args.step_s - time.monotonic()))
            rows.append({"multiplier": multiplier, "target_per_s": round(multiplier * saturation, 1),
                         "window": (at, at + args.step_s), "cpu": cpu.stop()})
        snapshot_end = await self.snapshot()
        base_from, base_to = rows[0]["window"]
        base = self._latencies(base_from, base_to)
        base_p99 = _q(base, 0.99) or 0.0
        recovery = await self._recovery(last_end, base_p99)
        return {"saturation": saturation, "saturation_given": bool(args.saturation), "burst": burst, "steps": rows,
                "recovery": recovery, "snapshot_end": snapshot_end, "window": (first, last_end),
                **self._at_end(time.monotonic(), first)}

    async def _recovery(self, since: float, base_p99: float) -> dict[str, Any]:
        """Seconds after ``since`` until ``--recovery-buckets`` buckets in a row (by send time, each complete:
        nothing sent in it still in flight) have a p99 within the tolerance of ``base_p99``."""
        args = self.args
        width, needed, limit = args.recovery_bucket_s, args.recovery_buckets, base_p99 * args.recovery_tolerance
        deadline = since + args.recovery_s
        buckets: list[dict[str, Any]] = []
        while time.monotonic() < deadline:
            await asyncio.sleep(width)
            now = time.monotonic()
            busy = [g.sending_since for g in self.live.values() if g.sending_since is not None]
            oldest_busy = min(busy, default=now)
            buckets = []
            k = 0
            while since + (k + 1) * width <= min(now, oldest_busy):
                lat = self._latencies(since + k * width, since + (k + 1) * width)
                buckets.append({"from_s": round(k * width, 1), "p99_ms": _ms(_q(lat, 0.99)), "n": len(lat)})
                k += 1
            run = 0
            for index, bucket in enumerate(buckets):
                good = bucket["n"] > 0 and bucket["p99_ms"] is not None and bucket["p99_ms"] <= limit * 1000
                run = run + 1 if good else 0
                if run == needed:
                    first = buckets[index - needed + 1]
                    log(f"recovered {first['from_s']}s after the last step")
                    return {"recovered_after_s": first["from_s"], "first_step_p99_ms": _ms(base_p99),
                            "limit_ms": _ms(limit), "buckets": buckets[: index + 1]}
        return {"recovered_after_s": None, "not_within_s": args.recovery_s, "first_step_p99_ms": _ms(base_p99),
                "limit_ms": _ms(limit), "buckets": buckets}

    # -- window statistics ---------------------------------------------------------------------------------------
    def _accepted(self, start: float, end: float) -> int:
        rec = self.rec
        return sum(1 for i in range(len(rec.cmd_done)) if rec.cmd_status[i] == 200 and start <= rec.cmd_done[i] < end)

    def _latencies(self, start: float, end: float, admitted: bool = True, from_schedule: bool = False) -> list[float]:
        rec = self.rec
        origin = rec.cmd_sched if from_schedule else rec.cmd_sent
        return [rec.cmd_done[i] - origin[i] for i in range(len(rec.cmd_sent))
                if start <= rec.cmd_sent[i] < end and (rec.cmd_status[i] == 200 or not admitted)]

    def window_stats(self, start: float, end: float, cpu: dict[str, float] | None) -> dict[str, Any]:
        rec = self.rec
        seconds = end - start
        offered = sum(1 for t in rec.arrivals if start <= t < end)
        sent = sum(1 for t in rec.cmd_sent if start <= t < end)
        coalesced = sum(1 for t in rec.coalesced if start <= t < end)
        accepted = self._accepted(start, end)
        admitted = self._latencies(start, end)
        every = self._latencies(start, end, admitted=False)
        from_schedule = self._latencies(start, end, from_schedule=True)
        late = [rec.cmd_sent[i] - rec.cmd_sched[i] for i in range(len(rec.cmd_sent)) if start <= rec.cmd_sent[i] < end]
        errors = Counter(key for at, key in rec.errors if start <= at < end)
        command_errors = sum(v for k, v in errors.items() if k.startswith("command "))
        legal = [rec.legal_latency[i] for i in range(len(rec.legal_sent)) if start <= rec.legal_sent[i] < end]
        creates = [s for at, s in rec.creates if start <= at < end]
        lag = [rec.lag[i] for i in range(len(rec.lag)) if start <= rec.lag_acked[i] < end]
        health = {name: [lat if lat is not None else 10.0 for at, lat in samples if start <= at < end]
                  for name, samples in rec.health.items()}
        stats: dict[str, Any] = {
            "seconds": round(seconds, 1),
            "offered_per_s": round(offered / seconds, 1),
            "sent_per_s": round(sent / seconds, 1),
            "accepted_per_s": round(accepted / seconds, 1),
            "accepted": accepted,
            "arrivals_coalesced": coalesced,
            "legal_reads_per_s": round(len(legal) / seconds, 1),
            "games_created_in_window": len(creates),
            "errors": sum(errors.values()),
            "command_errors": command_errors,
            "error_breakdown": dict(errors.most_common()),
            "p50_command_ms": _ms(_q(admitted, 0.5)),
            "p99_command_ms": _ms(_q(admitted, 0.99)),
            "p999_command_ms": _ms(_q(admitted, 0.999)),
            "max_command_ms": _ms(max(admitted, default=None)),
            "p99_command_any_answer_ms": _ms(_q(every, 0.99)),
            "p99_command_from_schedule_ms": _ms(_q(from_schedule, 0.99)),
            "schedule_lag_ms": {"p50": _ms(_q(late, 0.5)), "p99": _ms(_q(late, 0.99)),
                                "max": _ms(max(late, default=None)),
                                "over_100ms": sum(1 for x in late if x > 0.1)},
            "p99_legal_ms": _ms(_q(legal, 0.99)),
            "p99_create_ms": _ms(_q(creates, 0.99)),
            "p50_projection_lag_ms": _ms(_q(lag, 0.5)),
            "p99_projection_lag_ms": _ms(_q(lag, 0.99)),
            "projection_lag_samples": len(lag),
            "healthz_p99_ms": {name: _ms(_q(samples, 0.99)) for name, samples in health.items()},
            "healthz_failed": {name: sum(1 for x in samples if x >= 10.0) for name, samples in health.items()},
        }
        if cpu is not None:
            server = {n: s for n, s in cpu.items() if n != "load_generator"}
            stats["cpu_ms_per_command"] = {n: round(s * 1000 / accepted, 3) if accepted else None
                                           for n, s in sorted(server.items())}
            stats["server_cpu_ms_per_command"] = round(sum(server.values()) * 1000 / accepted, 3) if accepted else None
            stats["cpu_cores"] = {n: round(s / seconds, 3) for n, s in sorted(cpu.items())}
            stats["load_generator"] = {
                "cpu_ms_per_command": round(cpu["load_generator"] * 1000 / accepted, 3) if accepted else None,
                "cpu_cores": round(cpu["load_generator"] / seconds, 3)}
        return stats


# --- putting it together ---------------------------------------------------------------------------------------
def _report(args: argparse.Namespace, bench: Population, raw: dict[str, Any]) -> dict[str, Any]:
    rec = bench.rec
    before = raw["before_games"]["redis_used_memory"]
    common = {"bench": "population", "mode": "ramp" if args.ramp else "population", "games": args.games,
              "transport": "http", "think_s": args.think_s, "watchers": args.watchers,
              "watched_games": len(bench.watched), "replicas": args.replicas, "cluster": args.cluster,
              "create_rate_per_s": args.create_rate, "archive_after_s": args.archive_after_s,
              "probe_ms": args.probe_ms,
              "fill_s": raw["fill_s"], "warmup_s": args.warmup, "game_types": bench.types,
              "max_in_flight": bench.max_in_flight, "watch_reconnects": rec.watch_reconnects,
              "games_abandoned": len(rec.abandoned),
              "abandoned_reasons": dict(Counter(why for _, why in rec.abandoned))}
    population = raw["population"]
    common["errors_before_window"] = dict(Counter(key for at, key in rec.errors if at < raw["window"][0]).most_common())
    if not args.ramp:
        start, end = raw["window"]
        stats = bench.window_stats(start, end, raw["cpu"])
        snaps = raw["snapshots"]
        counters = {k: snaps["end"]["counters"].get(k, 0) - snaps["start"]["counters"].get(k, 0)
                    for k in snaps["end"]["counters"]}
        live_end = snaps["end"]["live_games"]
        pending_lag = raw["unseen_acks"]
        if pending_lag:  # acks never seen: their lag is at least this (a lower bound)
            lag = [rec.lag[i] for i in range(len(rec.lag)) if start <= rec.lag_acked[i] < end] + pending_lag
            stats["p99_projection_lag_ms"] = _ms(_q(lag, 0.99))
        pids = bench.pids
        return {
            **common,
            **stats,
            "seconds": args.seconds,
            "offered_per_s_expected": round(args.games / args.think_s, 1),
            "offered_arrivals_not_reached": raw["tail_arrivals"],
            "projection_lag_unseen_at_end": len(pending_lag),
            "games_finished": sum(1 for t in rec.finished if start <= t < end),
            "games_scored": int(counters.get("benthic_games_scored_total", 0)),
            "games_rated": int(counters.get("benthic_ratings_updated_total", 0)),
            "games_archived": int(counters.get("benthic_games_archived_total", 0)),
            "stuck_games": raw["stuck"],
            "live_games_end": live_end,
            "population_end": population,
            "mean_game_version_end": raw["mean_version"],
            "redis_used_memory_bytes": {"before_games": before,
                                        **{k: s["redis_used_memory"] for k, s in snaps.items()}},
            "redis_bytes_per_live_game": (round((snaps["end"]["redis_used_memory"] - before) / live_end)
                                          if live_end else None),
            "rss_mb": {k: s["rss_mb"] for k, s in snaps.items()},
            "peak_rss_mb": {n: round(kb / 1024, 1) for n, pid in pids.items() if (kb := _rss_kb(pid, "VmHWM"))},
            "consumer_lag_entries_end": snaps["end"]["consumer_lag_entries"],
        }
    steps = []
    for row in raw["steps"]:
        step_from, step_to = row["window"]
        stats = bench.window_stats(step_from, step_to, row["cpu"])
        steps.append({"multiplier": row["multiplier"], "target_per_s": row["target_per_s"],
                      "think_s": round(args.games / row["target_per_s"], 3), **stats})
    start, end = raw["window"]
    whole = bench.window_stats(start, end, None)
    snap = raw["snapshot_end"]
    live_end = snap["live_games"]
    return {
        **common,
        "saturation_per_s": round(raw["saturation"], 1),
        "saturation_given": raw["saturation_given"],
        "burst": raw["burst"],
        "step_s": args.step_s,
        **{k: whole[k] for k in ("offered_per_s", "accepted_per_s", "errors", "error_breakdown", "p99_command_ms",
                                 "p99_projection_lag_ms")},
        "seconds": round(end - start, 1),
        "steps": steps,
        "recovery": raw["recovery"],
        "stuck_games": raw["stuck"],
        "redis_used_memory_bytes": {"before_games": before, "after_steps": snap["redis_used_memory"]},
        "redis_bytes_per_live_game": round((snap["redis_used_memory"] - before) / live_end) if live_end else None,
        "rss_mb_after_steps": snap["rss_mb"],
        "consumer_lag_entries_after_steps": snap["consumer_lag_entries"],
        "population_end": population,
        "mean_game_version_end": raw["mean_version"],
    }


def _table(report: dict[str, Any]) -> str:
    lines = [f"population bench: {report['games']} games, mode {report['mode']}"]
    rows = report.get("steps") or [report]
    for row in rows:
        lines.append(
            f"  {('x' + str(row['multiplier'])) if 'multiplier' in row else 'window':>6}: offered "
            f"{row['offered_per_s']}/s accepted {row['accepted_per_s']}/s p50/p99/p99.9 {row['p50_command_ms']}/"
            f"{row['p99_command_ms']}/{row['p999_command_ms']} ms, lag p99 {row['p99_projection_lag_ms']} ms, "
            f"errors {row['errors']} {row['error_breakdown']}, server CPU/cmd {row.get('server_cpu_ms_per_command')} "
            f"ms, load gen {row.get('load_generator')}")
    if "recovery" in report:
        lines.append(f"  recovery: {report['recovery'].get('recovered_after_s')} s")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> dict[str, Any]:
    env = {"BENTHIC_LOG_LEVEL": "warning", **LIMITS, "BENTHIC_ARCHIVE_AFTER_S": str(args.archive_after_s),
           **env_overrides()}
    with contextlib.ExitStack() as stack:
        cluster = None
        redis_urls: list[str]
        if args.cluster:
            cluster = stack.enter_context(PrivateRedisCluster(masters=3))
            env["BENTHIC_REDIS_CLUSTER"] = "1"
            platform = stack.enter_context(LocalPlatform(redis_url=cluster.url, env=env))
            redis_urls = [node.url for node in cluster.nodes]
        else:
            platform = stack.enter_context(LocalPlatform(env=env))
            assert platform.redis_url is not None
            redis_urls = [platform.redis_url]
        command_urls, read_urls = [platform.command_url], [platform.read_url]
        for index in range(args.replicas):
            command_urls.append(platform.start_replica("command", f"command-{index + 2}"))
            read_urls.append(platform.start_replica("projection", f"projection-{index + 2}"))
        pids = platform.pids()
        if cluster is not None:
            pids.update({f"redis-{i}": node.process.pid for i, node in enumerate(cluster.nodes) if node.process})
        postgres = getattr(platform, "_postgres", None)
        if postgres is not None and getattr(postgres, "process", None) is not None:
            pids["postgres"] = postgres.process.pid
        log(f"platform up: {', '.join(f'{n}={p}' for n, p in pids.items())}; logs in {platform.log_dir}")
        bench = Population(args, platform, command_urls, read_urls, redis_urls, pids)
        runner = uvloop.run if uvloop is not None else asyncio.run
        raw = runner(bench.run())
        return _report(args, bench, raw)


def main() -> None:
    stop_servers_on_signals()  # SIGTERM too stops the servers this bench starts
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=10000, help="live games (the population)")
    parser.add_argument("--think-s", type=float, default=20.0, help="mean think time between a game's moves")
    parser.add_argument("--seconds", type=float, default=600.0, help="measured window")
    parser.add_argument("--warmup", type=float, default=30.0, help="after every game exists, before measuring")
    parser.add_argument("--watchers", type=float, default=0.05, help="fraction of games watched over SSE")
    parser.add_argument("--replicas", type=int, default=0, help="extra command AND projection processes each")
    parser.add_argument("--cluster", action="store_true", help="a private 3-master Redis Cluster")
    parser.add_argument("--create-rate", type=float, default=50.0, help="games created per second at most")
    parser.add_argument("--archive-after-s", type=float, default=30.0, help="BENTHIC_ARCHIVE_AFTER_S")
    parser.add_argument("--game-types", default=",".join(game_types()))
    parser.add_argument("--connections", type=int, default=0, help="the connection pool's size (0: no cap)")
    parser.add_argument("--probe-ms", type=float, default=0.0,
                        help="/healthz of every process this often (default: 100 with --ramp, else 1000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ramp", action="store_true", help="the open-loop step test instead of one window")
    parser.add_argument("--saturation", type=float, default=0.0,
                        help="commands/s the steps are multiples of (0: measure by a closed-loop burst)")
    parser.add_argument("--multipliers", default="0.5,1,2,4")
    parser.add_argument("--step-s", type=float, default=60.0)
    parser.add_argument("--burst-s", type=float, default=20.0)
    parser.add_argument("--burst-games", type=int, default=1000,
                        help="games in the closed-loop burst (at most --games)")
    parser.add_argument("--recovery-s", type=float, default=120.0, help="longest wait for recovery after the steps")
    parser.add_argument("--recovery-bucket-s", type=float, default=2.0)
    parser.add_argument("--recovery-buckets", type=int, default=2)
    parser.add_argument("--recovery-tolerance", type=float, default=1.25)
    parser.add_argument("--out", default=None, help="results file (default bench/results/population-<time>.json)")
    args = parser.parse_args()
    args.multipliers = [float(m) for m in args.multipliers.split(",") if m]
    args.probe_ms = args.probe_ms or (100.0 if args.ramp else 1000.0)
    report = run(args)
    text = json.dumps(report, indent=2)
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    stem = "population-ramp" if args.ramp else "population"
    out = Path(args.out) if args.out else RESULTS_DIR / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(text)
    (RESULTS_DIR / f"{stem}-latest.json").write_text(text)
    log(f"written to {out}")
    print(_table(report), file=sys.stderr, flush=True)
    print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
