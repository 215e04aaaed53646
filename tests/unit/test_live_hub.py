"""The live hub's fan-out without a server: bounded buffers, slow clients closed, the cap, release."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from benthic.views.live import LiveCapacityReached, LiveHub


def _hub(max_clients: int = 10, buffer: int = 4) -> LiveHub:
    return LiveHub(redis=None, reads=None, partitions=1, max_clients=max_clients, buffer=buffer)  # type: ignore[arg-type]


async def test_a_slow_client_is_closed_and_never_delays_the_others() -> None:
    hub = _hub(buffer=4)
    reader = hub.open("g", None, stream=True)
    sleeper = hub.open("g", None, stream=True)
    received: list[Any] = []
    for version in range(1, 11):
        hub._deliver("g", version, {None: b"v%d" % version})
        received.append(await reader.next(1))
    assert [v for v, _ in received] == list(range(1, 11))  # the reader got every version, in order
    assert sleeper.dropped  # the sleeper fell more than 4 versions behind: closed
    assert await sleeper.next(1) is None  # its stream learns it at once, holding nothing
    hub.release(sleeper)
    hub.release(reader)
    assert hub.clients == hub.streams == 0 and not hub._watchers and not hub._latest


async def test_each_viewer_gets_its_own_view_and_old_versions_are_not_resent() -> None:
    hub = _hub()
    spectator, seat = hub.open("g", None), hub.open("g", 1)
    hub._deliver("g", 3, {None: b"pub3", 1: b"seat3"})
    hub._deliver("g", 2, {None: b"pub2", 1: b"seat2"})  # late and older: ignored
    assert await spectator.next(1) == (3, b"pub3") and await seat.next(1) == (3, b"seat3")
    with pytest.raises(asyncio.TimeoutError):
        await spectator.next(0.05)


async def test_the_cap_refuses_in_one_step_and_a_release_frees_a_place() -> None:
    hub = _hub(max_clients=2)
    first, _second = hub.open("a", None, stream=True), hub.open("b", None)
    with pytest.raises(LiveCapacityReached):
        hub.open("c", None)
    hub.release(first)
    hub.release(first)  # idempotent
    assert hub.clients == 1 and hub.streams == 0
    async with hub.watch("c", None):
        assert hub.full
    assert hub.clients == 1
