"""Consumer groups read through FastStream (benthic.feed.faststream_groups), against a real Redis: the backlog
written before the group existed, a group deleted under running subscribers, dead letters, a drained stop."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Awaitable, Callable

import pytest

from benthic.feed import faststream_groups
from benthic.feed.faststream_groups import GroupSubscription, Unreadable
from benthic.feed.keys import dead_letter_key
from benthic.runtime.telemetry import CONSUMER_CLAIMED, DEAD_LETTERED
from tests.platform_helpers import settings_for_tests


async def _until(probe: Callable[[], Awaitable[object]], what: str, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not await probe():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await asyncio.sleep(0.05)


class Seen:
    """A handler recording the bodies it was given; ``fail``: bodies it raises on (``Unreadable`` for those
    starting with ``unreadable``)."""

    def __init__(self, fail: set[bytes] = frozenset()) -> None:  # type: ignore[assignment]
        self.bodies: list[bytes] = []
        self.fail = fail

    async def __call__(self, body: bytes) -> None:
        if body in self.fail:
            raise (Unreadable if body.startswith(b"unreadable") else RuntimeError)(body.decode())
        self.bodies.append(body)

    async def has(self, *bodies: bytes) -> bool:
        return set(bodies) <= set(self.bodies)


def _streams(count: int = 2) -> list[str]:
    tag = uuid.uuid4().hex[:8]
    return [f"{{t{tag}{i}}}:events" for i in range(count)]


async def _pending(redis, stream: str, group: str) -> int:  # type: ignore[no-untyped-def]
    return int((await redis.xpending(stream, group))["pending"])


async def test_the_backlog_written_before_the_group_existed_is_read(redis, redis_url) -> None:
    streams = _streams()
    for stream in streams:
        await redis.xadd(stream, {"__data__": f"early {stream}".encode()})
    seen = Seen()
    group = GroupSubscription(settings_for_tests(redis_url), "test", "g", streams, "c1", seen)
    await group.start()
    try:
        await _until(lambda: seen.has(*(f"early {s}".encode() for s in streams)), "the early entries")
        for stream in streams:
            await _until(lambda s=stream: _no(_pending(redis, s, "g")), "acknowledged")
        assert group.ready
    finally:
        await group.stop()


async def _no(count: Awaitable[int]) -> bool:
    return await count == 0


async def test_a_group_deleted_under_running_subscribers_is_made_again_and_reading_goes_on(redis, redis_url) -> None:
    streams = _streams()
    seen = Seen()
    group = GroupSubscription(settings_for_tests(redis_url), "test", "g", streams, "c1", seen)
    await group.start()
    try:
        await _until(lambda: asyncio.sleep(0, group.ready), "subscribed")
        await redis.xadd(streams[0], {"__data__": b"before"})
        await _until(lambda: seen.has(b"before"), "the entry before")
        for stream in streams:
            await redis.xgroup_destroy(stream, "g")
        await redis.delete(streams[1])  # a stream gone altogether, as after a FLUSH
        await asyncio.sleep(0.3)  # the subscribers meet NOGROUP on their next read
        await redis.xadd(streams[0], {"__data__": b"after-0"})
        await redis.xadd(streams[1], {"__data__": b"after-1"})
        await _until(lambda: seen.has(b"after-0", b"after-1"), "the entries after the group was lost")
        await _until(lambda: asyncio.sleep(0, group.ready), "every subscriber started again")
        for stream in streams:
            assert [g["name"] for g in await redis.xinfo_groups(stream)] == [b"g"]
        assert seen.bodies.count(b"before") == 2, "the group made again from ID 0 reads the stream again"
    finally:
        await group.stop()


async def test_unreadable_and_exhausted_entries_go_to_the_dead_letter_stream(
    redis, redis_url, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(faststream_groups, "MAX_DELIVERIES", 3)
    (stream,) = _streams(1)
    seen = Seen(fail={b"unreadable entry", b"poison"})
    dead_before = DEAD_LETTERED.labels("dl")._value.get()
    claimed_before = CONSUMER_CLAIMED.labels("dl")._value.get()
    group = GroupSubscription(settings_for_tests(redis_url), "test", "dl", [stream], "c1", seen,
                              dead_letter=dead_letter_key)
    await group.start()
    try:
        await _until(lambda: asyncio.sleep(0, group.ready), "subscribed")
        for body in (b"unreadable entry", b"poison", b"fine"):
            await redis.xadd(stream, {"__data__": body})
        await _until(lambda: seen.has(b"fine"), "the readable entry")

        async def both_dead() -> bool:
            return len(await redis.xrange(dead_letter_key(stream))) == 2

        await _until(both_dead, "two dead letters")
        await _until(lambda: _no(_pending(redis, stream, "dl")), "every entry acknowledged")
        dead = [fields for _, fields in await redis.xrange(dead_letter_key(stream))]
        assert [f[b"__data__"] for f in dead] == [b"unreadable entry", b"poison"]  # set aside at once, then after 3
        assert {f[b"group"] for f in dead} == {b"dl"}
        assert DEAD_LETTERED.labels("dl")._value.get() == dead_before + 2
        assert CONSUMER_CLAIMED.labels("dl")._value.get() == claimed_before, "a dead letter is not a claim handled"
    finally:
        await group.stop()


async def test_without_a_dead_letter_stream_a_failing_entry_stays_pending_and_is_claimed_once_it_passes(
    redis, redis_url
) -> None:
    (stream,) = _streams(1)
    seen = Seen(fail={b"later"})
    group = GroupSubscription(settings_for_tests(redis_url), "test", "nodl", [stream], "c1", seen)
    await group.start()
    try:
        await _until(lambda: asyncio.sleep(0, group.ready), "subscribed")
        await redis.xadd(stream, {"__data__": b"later"})
        await _until(lambda: _claimed_again(redis, stream), "the entry delivered again")
        assert await _pending(redis, stream, "nodl") == 1
        seen.fail = set()
        await _until(lambda: seen.has(b"later"), "the entry handled")
        await _until(lambda: _no(_pending(redis, stream, "nodl")), "acknowledged")
        assert not await redis.exists(dead_letter_key(stream))
    finally:
        await group.stop()


async def _claimed_again(redis, stream: str) -> bool:  # type: ignore[no-untyped-def]
    pending = await redis.xpending_range(stream, "nodl", "-", "+", 1)
    return bool(pending) and pending[0]["times_delivered"] >= 2


async def test_stop_lets_the_entry_in_hand_finish_and_acknowledges_it(redis, redis_url) -> None:
    (stream,) = _streams(1)
    started, finished = asyncio.Event(), asyncio.Event()

    async def slow(body: bytes) -> None:
        started.set()
        await asyncio.sleep(0.3)
        finished.set()

    group = GroupSubscription(settings_for_tests(redis_url, drain_timeout_s=5.0), "test", "drain", [stream], "c1",
                              slow)
    await group.start()
    await _until(lambda: asyncio.sleep(0, group.ready), "subscribed")
    await redis.xadd(stream, {"__data__": b"x"})
    await asyncio.wait_for(started.wait(), 10)
    await group.stop()
    assert finished.is_set()
    assert await _pending(redis, stream, "drain") == 0
