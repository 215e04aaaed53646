"""Helpers for platform tests: games driven straight through the store (no HTTP), settings for tests, the services
as processes (LocalPlatform) started for the end-to-end tests and a client of them."""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from typing import Any

from benthic.clients.client import BenthicClient
from benthic.local.localplatform import LocalPlatform
from benthic.rules import GameConfig, get_engine
from benthic.rules.bots import RandomBot
from benthic.runtime.config import Settings
from benthic.store import EventStore, NewEvent, SeatInfo

# Rate limits for services that bots play on as fast as the machine allows, from one address (the limits
# themselves are tested in tests/e2e/test_identity.py).
GENEROUS_LIMITS = {
    "BENTHIC_LIMIT_COMMAND_PER_PLAYER": "1000/second",
    "BENTHIC_LIMIT_COMMAND_PER_IP": "100000/second",
    "BENTHIC_LIMIT_TOKEN_PER_IP": "100000/minute",
    "BENTHIC_LIMIT_JOIN_PER_IP": "100000/minute",
}


class PlatformFactory:
    """``make(env, shared_archive=...)``: a started LocalPlatform on ``redis_url`` with ``env`` for its services;
    ``stop()`` stops every one it started (tests/e2e/conftest.py's ``make_platform``, at the end of a module).
    ``shared_archive``: the test session's PostgreSQL archive (``archive_url()``, asked only then); False: a
    private PostgreSQL of the platform's own, as LocalPlatform starts one when given no archive URL."""

    def __init__(self, redis_url: str, archive_url: Callable[[], str]) -> None:
        self.redis_url = redis_url
        self.archive_url = archive_url
        self.started: list[LocalPlatform] = []
        self.cleaned = False

    def __call__(self, env: dict[str, str] | None = None, *, shared_archive: bool = True) -> LocalPlatform:
        archive_url = self.archive_url() if shared_archive else None
        if not self.cleaned:
            # A module's first platform starts on an empty Redis and archive, whatever ran before it in this
            # process (`make test` spreads the modules over workers in no fixed order; the store tests leave
            # hand-made games and archive rows behind).  Later platforms of the module see what the first left.
            empty_servers(self.redis_url, archive_url)
            self.cleaned = True
        platform = LocalPlatform(redis_url=self.redis_url, env=env, archive_url=archive_url)
        platform.start()  # a start that fails stops what it started
        self.started.append(platform)
        return platform

    def stop(self) -> None:
        while self.started:
            self.started.pop().stop()


def empty_servers(redis_url: str, archive_url: str | None) -> None:
    """Flush the Redis database of ``redis_url`` and empty the archive's tables at ``archive_url`` (if any)."""
    import psycopg
    import redis

    with redis.Redis.from_url(redis_url) as client:
        client.flushdb()
    if archive_url:
        with psycopg.connect(archive_url, autocommit=True) as conn:
            conn.execute("TRUNCATE archived_games, archived_players")


def platform_client(platform: LocalPlatform) -> BenthicClient:
    """A client of ``platform``'s command and read APIs with its operator token, minting its development JWTs."""
    return BenthicClient(platform.command_url, platform.read_url, operator_token=platform.operator_token,
                         mint=platform.mint)


def settings_for_tests(redis_url: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {
        "redis_url": redis_url,
        "token_keys": (("t", b"test-secret"),),
        "operator_token": "operator-token-for-tests",
        "claim_idle_ms": 500,
        "claim_interval_s": 0.3,
        "metrics_interval_s": 0.5,
        "consumer_block_ms": 50,
        "drain_timeout_s": 0.5,
        "consumer_name": f"test-{uuid.uuid4().hex[:6]}",
    }
    values.update(overrides)
    return Settings(**values)


class StoreGame:
    """A game created and played through the store, as the command service would."""

    def __init__(self, store: EventStore, game_type: str, seats: int | None = None, seed: int = 1,
                 options: dict[str, Any] | None = None) -> None:
        self.store = store
        self.options = options or {}
        self.engine = get_engine(game_type)
        self.seats = seats if seats is not None else max(2, self.engine.min_seats)
        self.seed = seed
        self.game_id = f"t_{uuid.uuid4().hex[:10]}"
        self.state: Any = None
        self.version = 0
        self.rng = random.Random(seed)

    async def create(self) -> StoreGame:
        events = self.engine.start(GameConfig(seats=self.seats, seed=self.seed))
        commit = await self.store.create(
            self.game_id,
            self.engine.game_type,
            [NewEvent(self.engine.event_name(e), self.engine.encode_event(e), engine_version=self.engine.engine_version)
             for e in events],
            seats=[SeatInfo(f"player-{i}-{self.game_id}", f"P{i}") for i in range(self.seats)],
            options=self.options,
            engine_version=self.engine.version,
            seeded=True,
            now_ms=1,
            rated=True,  # as a trusted backend's game of authenticated players
        )
        self.state = self.engine.replay(events)
        self.version = commit.last_version
        return self

    async def play(self, commands: int | None = None) -> int:
        """Play random legal commands (all to the end when ``commands`` is None); returns the version."""
        bot = RandomBot()
        played = 0
        while (prompt := self.engine.prompt(self.state)) is not None and (commands is None or played < commands):
            seat = self.rng.choice(prompt.seats)
            command = bot.choose(self.engine, self.state, seat, self.rng)
            events = self.engine.decide(self.state, seat, command)
            after = self.engine.fold(self.state, events)
            commit = await self.store.append(
                self.game_id,
                self.engine.game_type,
                self.version,
                [NewEvent(self.engine.event_name(e), self.engine.encode_event(e),
                          engine_version=self.engine.engine_version)
                 for e in events],
                command_id=uuid.uuid4().hex,
                seat=seat,
                now_ms=2,
                ended=self.engine.is_over(after),
            )
            self.state, self.version = after, commit.last_version
            played += 1
        return self.version


async def raw_game(platform: LocalPlatform, game_id: str) -> tuple[Any, list[Any], list[Any]]:
    """The engine, the envelopes and the engine state after each envelope, read straight from the platform's Redis."""
    from benthic.runtime.redisconn import redis_client

    redis = redis_client(platform.redis_url)
    try:
        store = EventStore(redis, 16)
        meta = await store.meta(game_id)
        envelopes = await store.load(game_id)
    finally:
        await redis.aclose()
    assert meta is not None, game_id
    engine = get_engine(meta.game_type)
    state, states = engine.initial_state(), []
    for envelope in envelopes:
        if envelope.is_engine:
            state = engine.evolve(state, engine.decode_event(envelope.data, envelope.engine_version))
        states.append(state)
    return engine, envelopes, states
