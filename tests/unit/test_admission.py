"""Admission control (benthic.service.admission): at most `limit` requests at once, a bounded queue with a bounded
wait, every other request refused at once without being read."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from benthic.service.admission import Admission


def _admission(limit: int = 2, queue: int = 1, queue_ms: float = 50) -> Admission:
    return Admission("test", limit, queue, queue_ms)


async def test_slots_up_to_the_limit_then_the_queue_then_refusals() -> None:
    admission = _admission(limit=2, queue=1, queue_ms=1000)
    assert await admission.enter() is None and await admission.enter() is None
    assert admission.in_flight == 2 and not admission.try_enter()
    waiting = asyncio.create_task(admission.enter())
    await asyncio.sleep(0)
    assert await admission.enter() == "queue_full"  # one waits already
    admission.leave()  # the slot passes to the one waiting
    assert await waiting is None
    assert admission.in_flight == 2
    admission.leave()
    admission.leave()
    assert admission.in_flight == 0 and admission.try_enter()


async def test_a_wait_that_runs_out_is_refused_and_leaves_no_slot_behind() -> None:
    admission = _admission(limit=1, queue=4, queue_ms=20)
    assert admission.try_enter()
    assert await admission.enter() == "queue_timeout"
    admission.leave()
    assert admission.in_flight == 0
    assert admission.try_enter()  # the timed-out waiter was not handed the slot


async def test_waiters_are_served_first_come_first_served() -> None:
    admission = _admission(limit=1, queue=3, queue_ms=1000)
    assert admission.try_enter()
    order: list[int] = []

    async def wait(n: int) -> None:
        assert await admission.enter() is None
        order.append(n)

    tasks = [asyncio.create_task(wait(n)) for n in range(3)]
    await asyncio.sleep(0)
    assert not admission.try_enter()  # a free slot goes to those waiting, not to a newcomer
    for _ in range(3):
        admission.leave()
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert order == [0, 1, 2]


async def test_a_waiter_that_leaves_gives_back_a_slot_it_was_handed() -> None:
    admission = _admission(limit=1, queue=2, queue_ms=1000)
    assert admission.try_enter()
    gone = asyncio.create_task(admission.enter())
    await asyncio.sleep(0)
    admission.leave()  # handed to `gone` ...
    gone.cancel()  # ... which is cancelled before it runs
    [outcome] = await asyncio.gather(gone, return_exceptions=True)
    if outcome is None:  # asyncio.wait_for may let the result win over the cancellation: the slot is then held
        assert admission.in_flight == 1
        admission.leave()
    else:
        assert isinstance(outcome, asyncio.CancelledError)
    assert admission.in_flight == 0 and admission.try_enter()


async def test_a_queue_that_does_not_drain_gets_short_waits() -> None:
    """A burst waits up to queue_ms; once a wait ran out (requests keep coming, none is served), newcomers wait
    only overload_ms, until no wait has run out for queue_ms.  (queue_ms is long next to the arrivals' spacing, so
    an event loop held up by a busy machine does not end the standing overload by itself.)"""
    admission = Admission("test", 1, 100, queue_ms=400, overload_ms=5)
    assert admission.try_enter()  # the one slot stays taken: nobody is served
    loop = asyncio.get_running_loop()
    formed = loop.time()
    waits: list[tuple[float, float, str | None]] = []

    async def arrive() -> None:
        came = loop.time()
        reason = await admission.enter()
        waits.append((came - formed, loop.time() - came, reason))

    arrivals = []
    for _ in range(36):  # one every 20 ms for 720 ms
        arrivals.append(asyncio.create_task(arrive()))
        await asyncio.sleep(0.02)
    await asyncio.gather(*arrivals)
    assert all(reason == "queue_timeout" for _, _, reason in waits)
    early = [waited for came, waited, _ in waits if came < 0.05]
    late = [waited for came, waited, _ in waits if came > 0.45]
    assert early and min(early) > 0.3  # a burst is waited on
    assert late and max(late) < 0.15  # a standing queue is not
    admission.leave()
    assert admission.in_flight == 0 and await admission.enter() is None
    await asyncio.sleep(0.42)  # no wait ran out for queue_ms: a burst is waited on again
    came = loop.time()
    assert await admission.enter() == "queue_timeout" and loop.time() - came > 0.36


class _Asgi:
    """A request through the middleware: what was sent back, and whether the app read the body."""

    def __init__(self, admission: Admission, path: str = "/games/g/commands") -> None:
        self.gate = asyncio.Event()
        self.read = False
        self.sent: list[dict[str, Any]] = []
        self.path = path

        async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
            await receive()
            self.read = True
            await self.gate.wait()
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"{}"})

        self.app = admission.middleware()(app)

    async def __call__(self) -> None:
        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": b"{}", "more_body": False}

        async def send(message: dict[str, Any]) -> None:
            self.sent.append(message)

        await self.app({"type": "http", "path": self.path, "method": "POST"}, receive, send)

    @property
    def status(self) -> int:
        return int(self.sent[0]["status"]) if self.sent else 0


async def test_the_middleware_refuses_without_reading_and_never_refuses_health() -> None:
    admission = _admission(limit=1, queue=0)
    first = _Asgi(admission)
    running = asyncio.create_task(first())
    await asyncio.sleep(0)
    refused = _Asgi(admission)
    await refused()
    assert refused.status == 503 and not refused.read
    headers = dict(refused.sent[0]["headers"])
    assert headers[b"retry-after"] == b"1" and headers[b"content-type"] == b"application/json"
    body = json.loads(refused.sent[1]["body"])
    assert body["code"] == "overloaded" and body["details"]["reason"] == "queue_full"
    health = _Asgi(admission, "/healthz")
    health.gate.set()
    await health()
    assert health.status == 200
    first.gate.set()
    await running
    assert first.status == 200 and admission.in_flight == 0


async def test_a_slot_is_given_back_when_the_response_starts_not_when_a_stream_ends() -> None:
    admission = _admission(limit=1, queue=0)
    streamed = asyncio.Event()

    async def stream(scope: dict[str, Any], receive: Any, send: Any) -> None:
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await streamed.wait()  # a server-sent-event stream, open for as long as its client stays
        await send({"type": "http.response.body", "body": b""})

    async def discard(message: dict[str, Any]) -> None:
        return None

    task = asyncio.create_task(admission.middleware()(stream)({"type": "http", "path": "/live"}, None, discard))
    await asyncio.sleep(0.01)
    assert admission.in_flight == 0 and admission.try_enter()
    admission.leave()
    streamed.set()
    await task


async def test_no_limit_means_no_admission_control() -> None:
    admission = _admission(limit=0)
    assert all(admission.try_enter() for _ in range(1000))

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        return None

    assert admission.middleware()(app) is app
