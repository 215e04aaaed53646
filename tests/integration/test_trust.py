"""Players and trust against a real Redis, with two instances of each piece standing for two replicas:
the revocation denylist, the rate limits, the cap on open games, the audit metadata of appended events."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from benthic.errors import ApiError
from benthic.game.keys import RATE_LIMIT_PREFIX
from benthic.local.devredis import free_port
from benthic.play import PlayerGames
from benthic.rules import game_types
from benthic.runtime.redisconn import redis_client
from benthic.store import Actor, EventStore, NewEvent, SeatInfo
from benthic.trust.auth import SeatTokens
from benthic.trust.ratelimit import RateLimits
from benthic.trust.revocation import GAME, PLAYER, Revocations
from tests.platform_helpers import StoreGame, settings_for_tests

TOKENS = SeatTokens((("k", b"secret"),), ttl_s=600)


async def _until(probe, what: str, attempts: int = 200):  # type: ignore[no-untyped-def]
    for _ in range(attempts):
        if await probe():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never: {what}")


async def test_a_revocation_on_one_replica_is_refused_by_the_other(redis, redis_url) -> None:
    other = redis_client(redis_url)
    first, second = Revocations(redis, 600), Revocations(other, 600)
    await first.start()
    await second.start()
    try:
        game = f"g-{uuid.uuid4().hex[:8]}"
        before = TOKENS.issue(game, 0, "alice")
        elsewhere = TOKENS.issue(f"{game}-other", 1, "alice")
        claim = TOKENS.verify(before.token)
        assert not await first.revoked(claim) and not await second.revoked(claim)
        await asyncio.sleep(0.002)  # a token issued in the same millisecond counts as revoked
        done = await first.revoke(GAME, game, "ops")
        assert done.before_ms >= claim.issued_ms and await first.revoked(claim)
        await _until(lambda: second.revoked(claim), "the other replica refuses the revoked token")
        assert not await second.revoked(TOKENS.verify(elsewhere.token)), "another game's token stays valid"
        await asyncio.sleep(0.002)
        fresh = TOKENS.verify(TOKENS.issue(game, 0, "alice").token)
        assert not await second.revoked(fresh), "a token issued after the revocation is valid"

        await second.revoke(PLAYER, "alice", "ops")
        await _until(lambda: first.revoked(TOKENS.verify(elsewhere.token)), "the player's tokens everywhere")
        late = Revocations(redis_client(redis_url), 600)
        await late.start()  # a replica started later reads the denylist first
        try:
            assert await late.revoked(claim) and await late.revoked(TOKENS.verify(elsewhere.token))
        finally:
            await late.stop()
            await late.redis.aclose()
    finally:
        await first.stop()
        await second.stop()
        await other.aclose()


async def test_a_replica_that_stopped_following_reads_before_it_answers(redis, redis_url) -> None:
    idle = Revocations(redis_client(redis_url), 600, max_staleness_s=0.0)
    await idle.start()
    await idle.stop()  # no longer follows the stream: every check must read it first
    writer = Revocations(redis, 600)
    claim = TOKENS.verify(TOKENS.issue(f"g-{uuid.uuid4().hex[:8]}", 0, "bob").token)
    await asyncio.sleep(0.002)
    await writer.revoke(GAME, claim.game_id, "ops")
    assert await idle.revoked(claim)
    await idle.redis.aclose()

    unreachable = Revocations(redis_client(f"redis://127.0.0.1:{free_port()}/0"), 600)
    with pytest.raises(ApiError) as refused:
        await unreachable.revoked(claim)  # never synced, Redis down: fail closed
    assert (refused.value.status, refused.value.code) == (503, "store_unavailable")
    await unreachable.redis.aclose()


@pytest.mark.parametrize("second", ["pipelined", "library"])
async def test_rate_limits_hold_across_two_replicas(redis, redis_url, second) -> None:
    """Both replicas count in the same keys, whether a request's checks go in one pipeline (one server) or
    through the library's own call each (what a Cluster does)."""
    settings = settings_for_tests(redis_url, limit_create_per_player="3/hour", limit_create_per_ip="5/hour",
                                  limit_command_per_player="", limit_command_per_ip="")
    replicas = [RateLimits(settings), RateLimits(settings)]
    assert replicas[0]._pipelined
    replicas[1]._pipelined = second == "pipelined"
    player, ip = f"p-{uuid.uuid4().hex[:8]}", f"10.0.{uuid.uuid4().int % 250}.{uuid.uuid4().int % 250}"
    try:
        for i in range(3):
            if i == 1:
                await redis.script_flush()  # as after a Redis restart: the scripts are loaded again
            await replicas[i % 2].hit("create", player, ip)
        with pytest.raises(ApiError) as refused:
            await replicas[1].hit("create", player, ip)
        error = refused.value
        assert (error.status, error.code) == (429, "rate_limited")
        assert error.details and error.details["scope"] == "player" and error.details["limit"] == "3 per 1 hour"
        assert error.headers and int(error.headers["Retry-After"]) >= 1
        await replicas[0].hit("create", f"{player}-2", ip)  # another player from the same address: 5th hit
        with pytest.raises(ApiError) as by_ip:
            await replicas[1].hit("create", f"{player}-3", ip)
        assert by_ip.value.details and by_ip.value.details["scope"] == "ip"
        for _ in range(10):
            await replicas[0].hit("command", player, ip)  # empty settings: no limit
    finally:
        for replica in replicas:
            await replica.aclose()


@pytest.mark.parametrize("second", ["pipelined", "library"])
async def test_commands_count_in_one_fixed_window_across_two_replicas(redis, redis_url, second) -> None:
    """Commands count in the library's fixed window (one counter per key and window): the same key whether
    the check is pipelined or the library's own call, refused hits counted too, as ``FixedWindowRateLimiter``
    does."""
    settings = settings_for_tests(redis_url, limit_command_per_player="4/hour", limit_command_per_ip="")
    replicas = [RateLimits(settings), RateLimits(settings)]
    replicas[1]._pipelined = second == "pipelined"
    player = f"p-{uuid.uuid4().hex[:8]}"
    try:
        for i in range(4):
            await replicas[i % 2].hit("command", player, "10.1.2.3")
        for replica in replicas:
            with pytest.raises(ApiError) as refused:
                await replica.hit("command", player, "10.1.2.3")
            error = refused.value
            assert error.details and error.details["limit"] == "4 per 1 hour" and error.details["scope"] == "player"
            assert error.headers and 3500 <= int(error.headers["Retry-After"]) <= 3600
        item = replicas[0].limits[("command", "player")][0]
        counted = await redis.get(f"{RATE_LIMIT_PREFIX}:{item.key_for('command', 'player', player)}")
        assert int(counted) == 6, "one counter for the window, refused hits included"
        await replicas[1].hit("command", f"{player}-2", "10.1.2.3")  # another player: its own window
    finally:
        for replica in replicas:
            await replica.aclose()


async def test_the_open_games_cap_holds_across_replicas_and_frees_with_finished_games(redis) -> None:
    store = EventStore(redis, 16)
    replicas = [PlayerGames(redis, store, cap=3), PlayerGames(redis, store, cap=3)]
    player = f"p-{uuid.uuid4().hex[:8]}"
    games = [await StoreGame(store, game_types()[0]).create() for _ in range(6)]
    outcomes = await asyncio.gather(
        *(replicas[i % 2].reserve(player, g.game_id, 1) for i, g in enumerate(games)), return_exceptions=True
    )
    refused = [o for o in outcomes if isinstance(o, ApiError)]
    assert len(refused) == 3 and {(e.status, e.code) for e in refused} == {(409, "too_many_open_games")}
    held = [g for g, o in zip(games, outcomes, strict=True) if not isinstance(o, ApiError)]
    again = await replicas[1].reserve(player, held[0].game_id, 1)
    assert not again.added, "a game already listed is not counted twice"
    await held[0].play()  # finished: no longer counts
    waiting = next(g for g in games if g not in held)
    assert (await replicas[0].reserve(player, waiting.game_id, 1)).added
    assert {m.game_id for m in await replicas[1].unfinished(player)} == {held[1].game_id, held[2].game_id,
                                                                         waiting.game_id}
    uncapped = await replicas[0].reserve(player, f"g-{uuid.uuid4().hex[:6]}", 1, capped=False)
    assert uncapped.added
    await uncapped.release()


async def test_every_event_of_a_commit_names_its_actor_and_joins_decide_rated(redis) -> None:
    store = EventStore(redis, 16)
    game_id = f"g{uuid.uuid4().hex[:12]}"
    events = [NewEvent("tick", b'{"type":"tick"}')]
    await store.create(game_id, "test", events, seats=[SeatInfo("alice", "A"), None], options={},
                       engine_version="t", seeded=False, now_ms=1, rated=True, actor=Actor("mm", "matchmaker"))
    assert (await store.meta(game_id)).rated
    await store.join(game_id, "test", 1, SeatInfo("guest", "G", "guest"), 2, keeps_rated=False)
    assert not (await store.meta(game_id)).rated, "a seat without an authenticated player unrates the game"
    await store.append(game_id, "test", 1, events * 2, command_id="c1", seat=0, now_ms=3,
                       actor=Actor("alice", "player"), meta={"note": "x"})
    await store.append(game_id, "test", 3, events, command_id="c2", now_ms=4)
    entries = await store.load(game_id)
    assert [(e.actor, e.actor_kind) for e in entries] == [
        ("mm", "matchmaker"), ("alice", "player"), ("alice", "player"), ("", "")
    ]
    assert [e.seat for e in entries] == [None, 0, 0, None] and entries[1].command_id == "c1"
