"""End to end, the issue's measure of the matchmaker: a simulated pool of 200 players with ratings spread like a real
population (openskill ordinals as the leaderboards show them), arriving at human pace with tickets of all three game
types and 2-4 seats, some blocking each other; the services as processes on a Redis primary with two replicas and
three Sentinels (acknowledged writes confirmed on a replica).

Once undisturbed, once with the matchmaker killed -9 five times and the Redis primary killed once, each kill at a
moment a wave's tables are decided but their games not all created yet (the test watches the pool's stream for
``match_made`` without ``match_seated``).  Either way: at least 95% of the tickets seated within 10 waves (the
waves that ran between a ticket's opening and its table: a matchmaker that is down runs none; the share within 10
times BENTHIC_MATCH_WAVE_S of wall time is printed beside it), the median rating gap at a table small (at most
100 as the issue asks, and at most 8 here), no table with a blocked pair, no player seated twice from one ticket
(every player sits in exactly the one game of their ticket)."""

from __future__ import annotations

import asyncio
import random
import statistics
import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import msgspec
import pytest
from redis.asyncio import Redis

from benthic.game.keys import PlayerKeys, RatingKeys
from benthic.local.devha import PrivateSentinelSet
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from services.matchmaker import events as ev
from tests.e2e.waiting import until
from tests.platform_helpers import GENEROUS_LIMITS

PLAYERS = 200
WAVE_S = 2.0
ARRIVALS_S = 40.0
BLOCK_PAIRS = 25


@pytest.fixture(scope="module")
def ha(archive_url: str) -> Iterator[tuple[PrivateSentinelSet, LocalPlatform]]:
    with PrivateSentinelSet(replicas=2) as servers:
        env = {**GENEROUS_LIMITS, "BENTHIC_REDIS_SENTINELS": servers.sentinels_setting,
               "BENTHIC_REDIS_SENTINEL_MASTER": servers.master_name, "BENTHIC_REDIS_ACK_REPLICAS": "1",
               "BENTHIC_MATCH_WAVE_S": str(WAVE_S), "BENTHIC_DRAIN_TIMEOUT_S": "2",
               "BENTHIC_LIMIT_CREATE_PER_PLAYER": "", "BENTHIC_MAX_OPEN_GAMES_PER_PLAYER": "0"}
        with LocalPlatform(redis_url=servers.primary().url, env=env, archive_url=archive_url) as platform:
            yield servers, platform


class Population:
    """200 players: ordinals drawn like a real population (most near the middle, a long tail of strong players),
    their tickets (type, seats, arrival time) and the pairs that block each other."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(seed)
        run = uuid.uuid4().hex[:5]
        self.players = [f"pl{run}-{i:03d}" for i in range(PLAYERS)]
        self.rating = {p: round(max(-5.0, min(45.0, rng.gauss(14, 7) + rng.expovariate(0.4))), 3)
                       for p in self.players}
        self.tickets: dict[str, dict[str, Any]] = {}
        for p in self.players:
            game_type = rng.choice(game_types())
            engine = get_engine(game_type)
            low, high = max(2, engine.min_seats), engine.max_seats
            seats: Any = rng.choice([[low, high], [low, high], low, [max(low, high - 1), high]])
            self.tickets[p] = {"game_type": game_type, "seats": seats, "pace": "daily", "player_id": p,
                               "request_id": f"r-{p}"}
        self.arrival = {p: rng.uniform(0, ARRIVALS_S) for p in self.players}
        pairs: set[tuple[str, str]] = set()
        while len(pairs) < BLOCK_PAIRS:
            a, b = rng.sample(self.players, 2)
            pairs.add((a, b))
        self.blocks = sorted(pairs)


async def _setup(platform: LocalPlatform, pop: Population) -> None:
    redis = Redis.from_url(platform.redis_url)
    try:
        for game_type in game_types():
            await redis.zadd(RatingKeys(game_type).leaderboard, pop.rating)
    finally:
        await redis.aclose()
    async with httpx.AsyncClient(base_url=platform.url("matchmaker"), timeout=30) as http:
        for a, b in pop.blocks:
            answer = await http.put(f"/players/me/blocks/{b}",
                                    headers={"Authorization": f"Bearer {platform.mint(a)}"})
            assert answer.status_code == 200, answer.text


async def _arrive(platform: LocalPlatform, pop: Population) -> dict[str, str]:
    """Every player's ticket at its arrival time, sent again (same request_id) until the matchmaker answers."""
    backend = {"Authorization": f"Bearer {platform.mint('hub', ['benthic:matchmaker'])}"}
    start = time.monotonic()
    ticket_ids: dict[str, str] = {}

    async def one(player: str) -> None:
        await asyncio.sleep(max(0.0, pop.arrival[player] - (time.monotonic() - start)))
        async with httpx.AsyncClient(base_url=platform.url("matchmaker"), timeout=10, headers=backend) as http:
            deadline = time.monotonic() + 120
            while True:
                try:
                    answer = await http.post("/matchmaking/tickets", json=pop.tickets[player])
                    if answer.status_code == 201:
                        ticket_ids[player] = answer.json()["ticket_id"]
                        return
                    assert answer.status_code == 503, answer.text
                except httpx.TransportError:
                    pass
                assert time.monotonic() < deadline, f"{player}'s ticket never taken"
                await asyncio.sleep(0.3)

    await asyncio.gather(*(one(p) for p in pop.players))
    return ticket_ids


async def _pool_events(redis_url: str) -> list[ev.Event]:
    redis = Redis.from_url(redis_url)
    try:
        entries = await redis.xrange("{mm:pool}:events")
    finally:
        await redis.aclose()
    return [ev.pool_decoder.decode(fields[b"d"]) for _id, fields in entries]


async def _unseated(redis_url: str) -> bool:
    """A wave's tables decided, not all their games created yet (read from the stream's newest entries: cheap
    enough to look every few milliseconds)."""
    redis = Redis.from_url(redis_url)
    try:
        entries = await redis.xrevrange("{mm:pool}:events", count=100)
    finally:
        await redis.aclose()
    made, done = set(), set()
    for e in (ev.pool_decoder.decode(fields[b"d"]) for _id, fields in entries):
        if isinstance(e, ev.MatchMade):
            made.add(e.match_id)
        elif isinstance(e, ev.MatchSeated | ev.MatchFailed):
            done.add(e.match_id)
    return bool(made - done)


async def _mid_wave(servers: PrivateSentinelSet, deadline: float) -> bool:
    while time.monotonic() < deadline:
        try:
            if await _unseated(servers.primary().url):
                return True
        except Exception:  # noqa: BLE001 - a failover under way: look again
            pass
        await asyncio.sleep(0.005)
    return False


async def _chaos(servers: PrivateSentinelSet, platform: LocalPlatform, rng: random.Random) -> dict[str, int]:
    """Five kill -9s of the matchmaker and one of the Redis primary, each when a wave is half done."""
    done = {"matchmaker_kills": 0, "mid_wave": 0, "failovers": 0}
    for i in range(6):
        await asyncio.sleep(rng.uniform(2.0, 4.0))
        if await _mid_wave(servers, time.monotonic() + 15):
            done["mid_wave"] += 1
        if i == 3:
            old = await asyncio.to_thread(servers.kill_primary)
            await asyncio.to_thread(servers.wait_for_failover, old)
            done["failovers"] += 1
            await asyncio.to_thread(servers.restart, old, True)
            continue
        platform.kill("matchmaker")
        done["matchmaker_kills"] += 1
        await asyncio.sleep(rng.uniform(0.2, 1.0))
        platform.start_service("matchmaker")
    await asyncio.to_thread(platform.wait_ready, 90.0, ("matchmaker",))
    return done


async def _figures(servers: PrivateSentinelSet, pop: Population, tickets: dict[str, str]) -> dict[str, Any]:
    """Wait until every ticket is seated (or 20 waves after the last arrival), then measure."""
    owner = {t: p for p, t in tickets.items()}

    async def settled() -> list[ev.Event] | None:
        events = await _pool_events(servers.primary().url)
        seated = {m for e in events if isinstance(e, ev.MatchSeated) for m in [e.match_id]}
        matched = {t for e in events if isinstance(e, ev.MatchMade) and e.match_id in seated
                   for t in e.tickets if t in owner}
        return events if len(matched) >= len(tickets) - 2 else None

    try:
        events = await until(settled, "the pool settled", timeout=20 * WAVE_S)
    except AssertionError:
        events = await _pool_events(servers.primary().url)
    opened = {e.ticket_id: e.at for e in events if isinstance(e, ev.TicketOpened)}
    seated_at = {e.match_id: e.at for e in events if isinstance(e, ev.MatchSeated)}
    made = [e for e in events if isinstance(e, ev.MatchMade) and all(t in owner for t in e.tickets)]  # this pool's
    per_ticket: dict[str, list[str]] = {}
    for m in made:
        for t in m.tickets:
            per_ticket.setdefault(t, []).append(m.match_id)
    waits = [seated_at[m.match_id] - opened[t] for m in made if m.match_id in seated_at for t in m.tickets]
    # the waves each ticket waited: those that ran between its opening and the wave that matched it (wall time is
    # reported too; a matchmaker killed runs no wave while it is down)
    waves_at: list[tuple[int, int]] = []  # (position in the stream, wave) of every wave_ran
    position = {}
    for i, e in enumerate(events):
        if isinstance(e, ev.WaveRan):
            waves_at.append((i, e.wave))
        elif isinstance(e, ev.TicketOpened):
            position[e.ticket_id] = i
    waited_waves = []
    for m in made:
        if m.match_id in seated_at:
            for t in m.tickets:
                waited_waves.append(sum(1 for i, w in waves_at if i > position[t] and w <= m.wave))
    within = sum(w <= 10 for w in waited_waves)
    gaps = [max(pop.rating[owner[t]] for t in m.tickets) - min(pop.rating[owner[t]] for t in m.tickets)
            for m in made]
    blocked = {frozenset(pair) for pair in pop.blocks}
    blocked_tables = [m.match_id for m in made
                      if any(frozenset((a, b)) in blocked for a in m.players for b in m.players if a < b)]
    redis = Redis.from_url(servers.primary().url)
    try:
        games_per_player = {p: await redis.zcard(PlayerKeys(p).games) for p in pop.players}
    finally:
        await redis.aclose()
    seated_players = {owner[t] for t in per_ticket}
    return {
        "tickets": len(tickets), "tables": len(made), "seated": len(waits),
        "seated_within_10_waves": within / len(tickets),
        "seated_within_10_waves_wall_time": sum(w <= 10 * WAVE_S * 1000 for w in waits) / len(tickets),
        "median_gap": statistics.median(gaps) if gaps else None, "max_gap": max(gaps, default=None),
        "blocked_tables": len(blocked_tables),
        "tickets_in_two_matches": sum(len(ms) > 1 for ms in per_ticket.values()),
        "players_in_other_than_one_game": sum(games_per_player[p] != 1 for p in seated_players),
        "wait_p50_s": statistics.median(waits) / 1000 if waits else None,
        "table_sizes": {n: sum(len(m.players) == n for m in made) for n in (2, 3, 4)},
    }


def _check(figures: dict[str, Any]) -> None:
    print(f"matchmaker pool: {figures}")
    assert figures["seated_within_10_waves"] >= 0.95, figures
    assert figures["median_gap"] is not None and figures["median_gap"] <= 100 and figures["median_gap"] <= 8, figures
    assert figures["blocked_tables"] == 0, figures
    assert figures["tickets_in_two_matches"] == 0 and figures["players_in_other_than_one_game"] == 0, figures


async def test_a_pool_of_200_players(ha: tuple[PrivateSentinelSet, LocalPlatform]) -> None:
    servers, platform = ha
    pop = Population(1)
    await _setup(platform, pop)
    tickets = await _arrive(platform, pop)
    _check(await _figures(servers, pop, tickets))


async def test_a_pool_of_200_players_with_the_matchmaker_killed_and_a_failover(
    ha: tuple[PrivateSentinelSet, LocalPlatform]
) -> None:
    servers, platform = ha
    pop = Population(2)
    await _setup(platform, pop)
    arrivals = asyncio.create_task(_arrive(platform, pop))
    chaos = await _chaos(servers, platform, random.Random(3))
    tickets = await arrivals
    figures = await _figures(servers, pop, tickets)
    print(f"chaos: {chaos}")
    assert chaos["matchmaker_kills"] == 5 and chaos["failovers"] == 1 and chaos["mid_wave"] >= 5, chaos
    _check(figures)


def test_the_population_is_spread_like_players_are() -> None:
    pop = Population(1)
    ratings = sorted(pop.rating.values())
    assert statistics.pstdev(ratings) > 5 and ratings[-1] - ratings[0] > 30
    assert len({t["game_type"] for t in pop.tickets.values()}) == 3
    seats = {str(t["seats"]) for t in pop.tickets.values()}
    assert len(seats) >= 3
    assert msgspec.json.encode(pop.tickets)  # every ticket is a JSON body
