"""The adaptive admission limit (benthic.service.adaptive_limit): grows while requests take their no-load time and
the limit is used, shrinks when they start to queue, stays within its floor and ceiling, and forgets an old
baseline."""

from __future__ import annotations

import asyncio

import pytest

from benthic.service.adaptive_limit import VegasLimit
from benthic.service.admission import Admission


def _windows(limit: VegasLimit, held_s: float, in_flight: int, windows: int, start: float = 0.0) -> float:
    """Feed ``windows`` windows of samples of ``held_s`` each; the time after them."""
    now = start
    for _ in range(windows):
        for _ in range(limit.min_samples):
            now += limit.window_s / limit.min_samples
            limit.sample(held_s, in_flight, now)
    return now


def _saturated(limit: VegasLimit, capacity: int, windows: int, base_s: float = 0.010, start: float = 0.0) -> float:
    """A server that works ``capacity`` requests at a time at full speed, under more offered load than it serves:
    every slot is in use, and a request's time grows with the requests sharing the server beyond ``capacity``."""
    now = start
    for _ in range(windows):
        in_flight = limit.current
        held_s = base_s * max(1.0, in_flight / capacity)
        for _ in range(limit.min_samples):
            now += limit.window_s / limit.min_samples
            limit.sample(held_s, in_flight, now)
    return now


def test_under_saturation_the_limit_settles_a_few_requests_above_what_the_server_works_at_once() -> None:
    limit = VegasLimit(floor=4, ceiling=64)
    now = _windows(limit, 0.010, 64, 4)  # the baseline: 10 ms
    assert limit.current == 64
    _saturated(limit, capacity=8, windows=300, start=now)
    assert 8 <= limit.current <= 8 + 6 + 1  # queued = limit - capacity settles between alpha (3) and beta (6)


def test_the_limit_does_not_fall_below_its_floor() -> None:
    limit = VegasLimit(floor=16, ceiling=64)
    now = _windows(limit, 0.010, 64, 4)
    _saturated(limit, capacity=2, windows=300, start=now)
    assert limit.current == 16


def test_the_limit_grows_back_when_times_return_to_the_baseline_and_the_limit_is_used() -> None:
    limit = VegasLimit(floor=4, ceiling=64)
    now = _windows(limit, 0.010, 64, 4)
    now = _saturated(limit, capacity=8, windows=300, start=now)
    assert limit.current < 20
    for _ in range(200):  # the surge is over: requests take their no-load time again, the limit in use
        now = _windows(limit, 0.010, limit.current, 1, now)
    assert limit.current == 64


def test_an_unused_limit_does_not_grow() -> None:
    limit = VegasLimit(floor=4, ceiling=64)
    now = _windows(limit, 0.010, 64, 4)
    now = _saturated(limit, capacity=8, windows=300, start=now)
    fallen = limit.current
    assert fallen < 20
    _windows(limit, 0.010, 1, 200, now)  # one request at a time: no evidence that more would be served in time
    assert limit.current <= fallen + 1  # (the window open when the load fell may still count its peak)


def test_times_within_the_tolerance_hold_the_limit() -> None:
    limit = VegasLimit(floor=4, ceiling=64)
    now = _windows(limit, 0.010, 64, 4)
    _windows(limit, 0.0115, 64, 50, now)  # 64 * (1 - 10 / 11.5) = 8.3 queued: between alpha (5.4) and beta (10.8)
    assert limit.current == 64 and limit.limit == 64.0


def test_the_baseline_is_forgotten_after_its_memory() -> None:
    limit = VegasLimit(floor=4, ceiling=64, memory_s=5.0)
    now = _windows(limit, 0.010, 64, 4)
    assert limit.no_load_s == pytest.approx(0.010)
    now = _windows(limit, 0.050, 64, 40, now)  # 10 s of dearer work: it becomes the baseline
    assert limit.no_load_s == pytest.approx(0.050)
    _windows(limit, 0.050, 64, 100, now)
    assert limit.current == 64  # at the new baseline, requests are not queueing: the limit recovered


def test_a_floor_above_the_ceiling_is_refused() -> None:
    with pytest.raises(ValueError, match="floor"):
        VegasLimit(floor=10, ceiling=5)


async def test_a_fallen_limit_holds_back_slots_and_a_waiter_gets_one_once_in_flight_is_within_it() -> None:
    vegas = VegasLimit(floor=1, ceiling=3, window_s=0.0, min_samples=1)  # every sample closes a window
    admission = Admission("test", 3, 4, 1000, adaptive=vegas)
    for _ in range(3):
        assert admission.try_enter()
    waiting = asyncio.create_task(admission.enter())
    await asyncio.sleep(0)
    vegas.limit = 1.0  # as if request times had just grown
    admission.leave(0.001)  # a sample at the baseline: the limit grows one step, to 2; 3 were in flight
    assert admission.limit == 2 and admission.in_flight == 2 and not waiting.done()
    admission.leave(0.001)  # the limit grows to 3: 2 in flight, so the slot passes to the one waiting
    assert admission.limit == 3 and admission.in_flight == 2
    assert await waiting is None
