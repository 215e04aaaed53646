"""Which games the bots service hears of: those flagged ``bots`` in their meta (benthic.feed.keys.managed_key),
whether flagged at creation or, for a game an earlier release created, when the command service first reads it."""

from __future__ import annotations

import uuid

from benthic.feed.keys import feed_key, managed_key
from benthic.play import PlayerGames
from benthic.rules import GameConfig, get_engine
from benthic.store import EventStore, NewEvent, SeatInfo
from benthic.store.loader import StateLoader
from benthic.trust.auth import SeatTokens
from services.command.service import CommandService

TOKENS = SeatTokens((("k", b"secret"),), ttl_s=600)
BOT = SeatInfo("bot:greedy", "Greedy", "bot", bot="greedy")


async def _created(store: EventStore, seats: list[SeatInfo], options: dict, managed: bool = False) -> str:
    engine = get_engine("nautilus")
    game_id = f"na_{uuid.uuid4().hex[:12]}"
    events = [NewEvent(engine.event_name(e), engine.encode_event(e))
              for e in engine.start(GameConfig(seats=len(seats), seed=1, options={}))]
    await store.create(game_id, "nautilus", events, seats=seats, options=options, engine_version=engine.version,
                       seeded=True, now_ms=1, managed=managed)
    return game_id


async def test_the_command_service_flags_a_game_an_earlier_release_created_with_a_bot_or_a_clock(redis) -> None:
    store = EventStore(redis, 16)
    service = CommandService(store, StateLoader(store, 10, 0), TOKENS, 3, PlayerGames(redis, store, cap=5))
    with_bot = await _created(store, [SeatInfo("p0"), BOT], {})
    with_clock = await _created(store, [SeatInfo("p0"), SeatInfo("p1")], {"clock": {"mode": "per_move",
                                                                                     "per_move_s": 30}})
    players_only = await _created(store, [SeatInfo("p0"), SeatInfo("p1")], {})
    assert not any([(await store.meta(g)).managed for g in (with_bot, with_clock, players_only)])
    for game_id in (with_bot, with_clock, players_only):
        await service.meta(game_id)
    assert [(await store.meta(g)).managed for g in (with_bot, with_clock, players_only)] == [True, True, False]
    flagged = await _created(store, [SeatInfo("p0"), BOT], {}, managed=True)
    assert await redis.hget(store.keys(flagged).meta, "bots") == b"1"
    partition = store.keys(flagged).partition
    assert (await redis.xrange(managed_key(partition)))[-1][1] == (await redis.xrange(feed_key(partition)))[-1][1]
