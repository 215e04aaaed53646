"""Each Lua script on its own, called with the keys and arguments its packing function builds, against a real
Redis: what it writes, what it refuses, what it answers."""

from __future__ import annotations

from benthic.feed.keys import feed_key, lifecycle_key, managed_key
from benthic.game.keys import GameKeys, RatingKeys
from benthic.game.rated import decode_marker
from benthic.store import Snapshot, append, join, snapshot
from benthic.store.entries import CommitHead, decode_head, encode_head
from benthic.views import writes
from benthic.views.readmodel import ReadModel
from services.scoring.ratings import SOURCE as RATINGS_SOURCE
from services.scoring.ratings import RatingUpdate, apply_call


async def _append(redis, keys: GameKeys, expected: int, command_id: str, datas: list[bytes], **extra):  # type: ignore[no-untyped-def]
    script_keys, args = append.append_call(
        keys, expected_version=expected, command_id=command_id, now_ms=7,
        head=encode_head(CommitHead(7, len(datas), "e", command_id, 1)), events=datas, notification=b"note",
        feed_maxlen=100, ended=extra.get("ended", False), meta=extra.get("meta", {}),
        lifecycle=extra.get("lifecycle", False),
    )
    return append.parse_append_reply(await redis.eval(append.SOURCE, len(script_keys), *script_keys, *args))


async def test_append_script_writes_each_event_once_and_answers_every_outcome(redis) -> None:
    keys = GameKeys("g1", 16)
    missing = await _append(redis, keys, 3, "c0", [b"{}"])
    assert missing.status == "missing" and not await redis.exists(keys.events)
    created = await _append(redis, keys, 0, "c1", [b'{"type":"a"}', b'{"type":"b"}'], meta={"game_type": "t"})
    assert (created.status, created.first, created.last) == ("ok", 1, 2)
    entries = await redis.xrange(keys.events)
    assert [(e[0], e[1][b"d"]) for e in entries] == [(b"1-0", b'{"type":"a"}'), (b"2-0", b'{"type":"b"}')]
    assert decode_head(entries[0][1][b"m"]).command_id == "c1" and entries[1][1][b"m"] == b""
    assert await redis.hgetall(keys.commands) == {b"c1": b"1:2"}
    assert await redis.hmget(keys.meta, ["version", "game_type", "updated_ms"]) == [b"2", b"t", b"7"]
    assert await redis.xlen(feed_key(keys.partition)) == 1
    duplicate = await _append(redis, keys, 2, "c1", [b"{}"])
    conflict = await _append(redis, keys, 1, "c2", [b"{}"])
    assert (duplicate.status, duplicate.first, duplicate.last) == ("duplicate", 1, 2)
    assert (conflict.status, conflict.current) == ("conflict", 2)
    assert await redis.xlen(lifecycle_key(keys.partition)) == 0
    ended = await _append(redis, keys, 2, "c3", [b"{}"], ended=True)
    assert ended.status == "ok" and await redis.hget(keys.meta, "status") == b"finished"
    assert await redis.xlen(keys.events) == 3 and await redis.xlen(feed_key(keys.partition)) == 2
    assert await redis.xlen(lifecycle_key(keys.partition)) == 1  # the end of a game also goes to the lifecycle feed
    await _append(redis, keys, 3, "c4", [b"{}"], lifecycle=True)
    assert await redis.xlen(lifecycle_key(keys.partition)) == 2


async def test_join_script_takes_a_seat_once_and_starts_the_game_when_full(redis) -> None:
    keys = GameKeys("g2", 16)

    async def take(seat: int, player: str) -> join.JoinReply:
        script_keys, args = join.join_call(keys, seat=seat, player_id=player, record=b"{}", now_ms=3,
                                           notification=b"n", feed_maxlen=100)
        return join.parse_join_reply(await redis.eval(join.SOURCE, len(script_keys), *script_keys, *args))

    assert (await take(0, "a")).outcome == "missing"
    await redis.hset(keys.meta, mapping={"seats": 2, "status": "open", "player:0": "a"})
    assert (await take(2, "b")).outcome == "no_such_seat"
    assert (await take(0, "b")).outcome == "seat_taken"
    assert await take(1, "a") == join.JoinReply("already_seated", seat=0)
    assert await take(1, "b") == join.JoinReply("ok", status="running")
    assert await redis.hget(keys.meta, "status") == b"running" and await redis.xlen(feed_key(keys.partition)) == 1
    assert await redis.xlen(managed_key(keys.partition)) == 0


async def test_only_the_games_flagged_for_the_bots_reach_the_managed_feed(redis) -> None:
    keys, flagged = GameKeys("g4", 16), GameKeys("g5", 16)
    await _append(redis, keys, 0, "c1", [b"{}"], meta={"game_type": "t"})
    await _append(redis, keys, 1, "c2", [b"{}"])
    assert await redis.xlen(managed_key(keys.partition)) == 0
    # a platform commit flags the game (the house bot takes a seat over): that commit and the next ones go there
    await _append(redis, keys, 2, "c3", [b"{}"], meta={"bots": "1"}, lifecycle=True)
    await _append(redis, keys, 3, "c4", [b"{}"])
    assert [f[b"__data__"] for _, f in await redis.xrange(managed_key(keys.partition))] == [b"note", b"note"]
    assert await redis.xlen(feed_key(keys.partition)) == 4  # the projection's feed still has every commit
    # a game flagged at creation, and a join of it
    await _append(redis, flagged, 0, "c1", [b"{}"], meta={"game_type": "t", "bots": "1", "seats": "2",
                                                            "status": "open", "player:0": "a"})
    script_keys, args = join.join_call(flagged, seat=1, player_id="b", record=b"{}", now_ms=3, notification=b"j",
                                       feed_maxlen=100)
    assert join.parse_join_reply(await redis.eval(join.SOURCE, len(script_keys), *script_keys, *args)).outcome == "ok"
    entries = await redis.xrange(managed_key(flagged.partition))
    assert [f[b"__data__"] for _, f in entries][-2:] == [b"note", b"j"]


async def test_snapshot_script_keeps_the_newest_of_a_live_game(redis) -> None:
    keys = GameKeys("g3", 16)

    async def save(engine: str, version: int) -> int:
        script_keys, args = snapshot.snapshot_call(keys, Snapshot(engine, version, b"state"))
        return int(await redis.eval(snapshot.SOURCE, len(script_keys), *script_keys, *args))

    assert await save("e1", 5) == -1 and not await redis.exists(keys.snapshot)
    await redis.hset(keys.meta, "version", 9)
    assert (await save("e1", 5), await save("e1", 4), await save("e2", 1)) == (1, 0, 1)
    assert snapshot.parse_snapshot(await redis.hgetall(keys.snapshot)) == Snapshot("e2", 1, b"state")


async def test_read_model_script_moves_forward_only_and_lists_the_game_in_one_lobby(redis) -> None:
    keys = GameKeys("g4", 16)
    pubsub = redis.pubsub()
    await pubsub.subscribe(keys.updates)

    async def write(version: int, status: str) -> int:
        model = ReadModel(version, status, 100 + version, [("summary", b"s%d" % version)])
        script_keys, args = writes.write_call(keys, "g4", "t", model)
        return int(await redis.eval(writes.SOURCE, len(script_keys), *script_keys, *args))

    assert await write(1, "open") == -1 and not await redis.exists(keys.read_model)  # no meta: archived or unknown
    await redis.hset(keys.meta, "version", 3)
    assert await write(2, "open") == 1
    assert await write(3, "running") == 1
    assert await write(2, "open") == 0
    assert await redis.hmget(keys.read_model, ["version", "status", "summary"]) == [b"3", b"running", b"s3"]
    assert [await redis.zcard(keys.lobby("t", s)) for s in ("open", "running", "finished")] == [0, 1, 0]
    await redis.zadd(keys.lobby("t", "open"), {"g4": 1})  # a stray entry: only a status change clears it
    assert await write(4, "running") == 1
    assert await redis.zscore(keys.lobby("t", "running"), "g4") == 104  # listed by its last update
    assert await redis.zcard(keys.lobby("t", "open")) == 1
    assert await write(5, "finished") == 1
    assert [await redis.zcard(keys.lobby("t", s)) for s in ("open", "running", "finished")] == [0, 0, 1]
    messages = []
    for _ in range(20):
        message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=0.2)
        if message is not None:
            messages.append(message["data"])
    assert messages == [b"g4:2", b"g4:3", b"g4:4", b"g4:5"]
    await pubsub.aclose()


async def test_views_script_stores_views_only_at_the_read_models_version(redis) -> None:
    keys = GameKeys("g5", 16)

    async def write(version: int, body: bytes) -> int:
        script_keys, args = writes.views_call(keys, version, [("view:pub", body), ("view:0", body + b"0")])
        return int(await redis.eval(writes.VIEWS_SOURCE, len(script_keys), *script_keys, *args))

    assert await write(1, b"a") == 0 and not await redis.exists(keys.read_model)  # gone: nothing recreated
    await redis.hset(keys.read_model, "version", 4)
    assert await write(3, b"old") == 0  # built from a state the read model has moved past
    assert await write(4, b"v4") == 1
    assert await redis.hmget(keys.read_model, ["version", "view:pub", "view:0"]) == [b"4", b"v4", b"v40"]


async def test_ratings_script_applies_once_and_refuses_a_moved_rating(redis) -> None:
    keys = RatingKeys("t")
    players = [("a", "A"), ("b", "B")]

    async def apply(game_id: str, revisions: tuple[str, str]) -> str:
        updates = [RatingUpdate(revisions[0], "a", 26.0, 8.0, True, "A", 2.0),
                   RatingUpdate(revisions[1], "b", 24.0, 8.0, False, "B", 1.0)]
        script_keys, args = apply_call(keys, game_id, players, [1, 2], updates)
        outcome = await redis.eval(RATINGS_SOURCE, len(script_keys), *script_keys, *args)
        return outcome.decode() if isinstance(outcome, bytes) else str(outcome)

    assert await apply("g", ("0", "0")) == "applied"
    assert await apply("g", ("1", "1")) == "rated"
    assert await apply("h", ("0", "1")) == "moved"
    marker = decode_marker(await redis.get(keys.rated("g")))
    assert marker is not None and [(p.player_id, p.rank, p.rating) for p in marker] == [("a", 1, 2.0), ("b", 2, 1.0)]
    record = {k.decode(): v.decode() for k, v in (await redis.hgetall(keys.player("a"))).items()}
    assert (record["rev"], record["games"], record["wins"], record["mu"]) == ("1", "1", "1", "26.0")
    assert await redis.zrange(keys.leaderboard, 0, -1, withscores=True) == [(b"b", 1.0), (b"a", 2.0)]
