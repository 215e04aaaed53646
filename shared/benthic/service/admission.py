"""Admission control: a process takes on only the requests it can answer in time, and refuses the rest at once.

An open-loop surge (players do not slow down when the server does) would otherwise grow every queue in the
process, the event loop's ready callbacks first, until every answer is late, ``/healthz`` included.  Here at
most ``limit`` requests are handled at once (``BENTHIC_ADMISSION_LIMIT``); up to ``queue`` more
(``BENTHIC_ADMISSION_QUEUE``) wait for a slot, first come first served; any other request, and one whose wait
runs out, is answered ``503 overloaded`` with ``Retry-After`` before anything of it is read or done.  How long a
request may wait follows CoDel's idea of a good and a bad queue: while waiting requests get their slot in time
(a burst), up to ``BENTHIC_ADMISSION_QUEUE_MS``; once one has waited that long in vain (an overload), newcomers
wait only ``BENTHIC_ADMISSION_OVERLOAD_MS`` until no wait has run out for ``BENTHIC_ADMISSION_QUEUE_MS``, so a
standing overload is refused at once instead of waited on.  By Little's law an admitted request's time is then
bounded by about (limit + queue) / throughput, whatever the offered rate.  With ``BENTHIC_ADMISSION_ADAPTIVE=true`` the
limit itself follows the time admitted requests take (``benthic.service.adaptive_limit``, TCP Vegas' rule), between
``BENTHIC_ADMISSION_MIN_LIMIT`` and ``BENTHIC_ADMISSION_LIMIT``: requests that start to queue inside the process
(for the event loop, Redis, the CPU) lower it, so a surge waits in the bounded queue, or is refused, rather than
slowing every admitted request.

The guarantee, kept in :meth:`Admission.middleware`: a refused request changed nothing (its body was not even
read), so sending it again is safe.  Health, readiness and metrics are never refused (an orchestrator must see a
loaded process as alive).  A slot is held until the response starts, so a server-sent-event stream holds one
only while it opens, and a long-poll gives it back before it waits (:func:`release_slot`): live clients have
their own bound, ``BENTHIC_LIVE_STREAMS_MAX``.  The play socket asks for a slot per frame (:meth:`Admission.enter`
/ :meth:`Admission.leave`).

asyncio's own ``Semaphore`` has no bounded, timed queue and no way to refuse at once, and no well-kept ASGI
package does admission with a bounded wait (uvicorn's ``--limit-concurrency`` counts open connections,
idle keep-alive ones included, and refuses with a plain-text body): hence this small class.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import time
from collections.abc import Callable, Mapping
from typing import Any, cast

import msgspec
from litestar.enums import ScopeType
from litestar.types import ASGIApp, Message, Receive, Scope, Send

from benthic.errors import ApiError
from benthic.runtime.telemetry import (
    ADMISSION_IN_FLIGHT,
    ADMISSION_LIMIT,
    ADMISSION_QUEUED,
    ADMISSION_SHED,
    ADMISSION_WAIT,
)
from benthic.service.adaptive_limit import VegasLimit
from benthic.service.http import ErrorBody

EXEMPT = frozenset(("/healthz", "/readyz", "/metrics"))
RELEASE = "benthic.admission.release"  # in a request's scope: gives its slot back early (see release_slot)
RETRY_AFTER_S = 1

App = ASGIApp


class Admission:
    def __init__(self, service: str, limit: int, queue: int, queue_ms: float, overload_ms: float | None = None,
                 adaptive: VegasLimit | None = None) -> None:
        self.service = service
        self.limit = limit  # 0: no admission control; with ``adaptive``, its ceiling
        self.adaptive = adaptive if limit > 0 else None
        self.queue = queue
        self.queue_s = queue_ms / 1000
        self.overload_s = self.queue_s if overload_ms is None else min(overload_ms / 1000, self.queue_s)
        self.in_flight = 0
        self._waiters: collections.deque[asyncio.Future[None]] = collections.deque()
        self._overloaded_until = 0.0  # a wait ran out less than queue_s before this (monotonic time)
        self._in_flight_gauge = ADMISSION_IN_FLIGHT.labels(service)
        self._queued_gauge = ADMISSION_QUEUED.labels(service)
        self._wait = ADMISSION_WAIT.labels(service)
        self._shed = {reason: ADMISSION_SHED.labels(service, reason) for reason in ("queue_full", "queue_timeout")}
        self._limit_gauge = ADMISSION_LIMIT.labels(service)
        self._limit_gauge.set(limit)

    # --- slots ---------------------------------------------------------------------------------------------

    def try_enter(self) -> bool:
        """A slot now, if one is free and nobody waits for one (False: the caller refuses the work)."""
        if self.limit <= 0:
            return True
        if self.in_flight < self.limit and not self._waiters:
            self.in_flight += 1
            self._in_flight_gauge.set(self.in_flight)
            return True
        return False

    async def enter(self) -> str | None:
        """A slot, waiting in the bounded queue if need be; the reason it was refused otherwise."""
        if self.try_enter():
            return None
        if len(self._waiters) >= self.queue:
            self._shed["queue_full"].inc()
            return "queue_full"
        waiter: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        started = time.perf_counter()
        self._waiters.append(waiter)
        self._queued_gauge.set(len(self._waiters))
        try:
            overloaded = started < self._overloaded_until
            await asyncio.wait_for(asyncio.shield(waiter), self.overload_s if overloaded else self.queue_s)
        except TimeoutError:
            if waiter.done():  # handed a slot just as the wait ran out: keep it
                self._wait.observe(time.perf_counter() - started)
                return None
            waiter.cancel()
            self._overloaded_until = time.perf_counter() + self.queue_s
            self._shed["queue_timeout"].inc()
            return "queue_timeout"
        except asyncio.CancelledError:  # the client left while waiting: give back a slot handed meanwhile
            if waiter.done() and not waiter.cancelled():
                self.leave()
            else:
                waiter.cancel()
            raise
        finally:
            with contextlib.suppress(ValueError):  # handed a slot: leave() took it off the queue
                self._waiters.remove(waiter)
            self._queued_gauge.set(len(self._waiters))
        self._wait.observe(time.perf_counter() - started)
        return None

    def leave(self, held_s: float | None = None) -> None:
        """Give back a slot: to the first one still waiting, else to the pool.  ``held_s``: how long the request
        held it (a sample for the adaptive limit; None: not a sample)."""
        if self.limit <= 0:
            return
        if held_s is not None and self.adaptive is not None:
            self.limit = self.adaptive.sample(held_s, self.in_flight, time.perf_counter())
            self._limit_gauge.set(self.limit)
        if self.in_flight <= self.limit:  # above it (the adaptive limit fell): the slot is not passed on
            while self._waiters:
                waiter = self._waiters.popleft()
                if not waiter.done():
                    waiter.set_result(None)  # the slot passes on: in_flight is unchanged
                    self._queued_gauge.set(len(self._waiters))
                    return
            self._queued_gauge.set(0)
        self.in_flight -= 1
        self._in_flight_gauge.set(self.in_flight)

    # --- HTTP ----------------------------------------------------------------------------------------------

    def refusal(self, reason: str) -> ApiError:
        return ApiError(
            503, "overloaded",
            f"the {self.service} service is at its capacity and did not take the request (nothing was read or "
            f"changed); retry after {RETRY_AFTER_S} s",
            {"reason": reason, "limit": self.limit, "queue": self.queue},
            headers={"Retry-After": str(RETRY_AFTER_S)},
        )

    def middleware(self) -> Callable[[App], App]:
        """ASGI middleware, to wrap the app outermost (``service_app`` puts it around Litestar's handler, before
        routing, CORS and the exception handlers): a refused request costs no routing, no body read, no decoding."""

        def factory(app: App) -> App:
            if self.limit <= 0:
                return app

            async def admission(scope: Scope, receive: Receive, send: Send) -> None:
                if scope["type"] != ScopeType.HTTP or scope["path"] in EXEMPT:  # a str Enum: equals "http"
                    await app(scope, receive, send)
                    return
                refused = await self.enter()
                if refused is not None:
                    await _send_refusal(send, self.refusal(refused))
                    return
                held = True
                admitted = time.perf_counter()

                def release() -> None:
                    nonlocal held
                    if held:
                        held = False
                        self.leave(time.perf_counter() - admitted)

                async def send_releasing(message: Message) -> None:
                    if message["type"] == "http.response.start":
                        release()
                    await send(message)

                cast("dict[str, Any]", scope)[RELEASE] = release  # a key of ours beside the ASGI ones
                try:
                    await app(scope, receive, send_releasing)
                finally:
                    release()

            return admission

        return factory


def release_slot(scope: Mapping[str, object]) -> None:
    """A request about to wait on something other than this process' work (a long-poll waiting for a new
    version) gives its slot back, so that waiting clients do not hold the service's capacity."""
    release = scope.get(RELEASE)
    if callable(release):  # set by the middleware: None without admission control
        release()


async def _send_refusal(send: Any, refusal: ApiError) -> None:
    payload = msgspec.json.encode(ErrorBody(refusal.code, refusal.message, refusal.details))
    await send({"type": "http.response.start", "status": 503, "headers": [
        (b"content-type", b"application/json"), (b"content-length", str(len(payload)).encode()),
        (b"retry-after", str(RETRY_AFTER_S).encode()),
    ]})
    await send({"type": "http.response.body", "body": payload})

