"""Sending deliveries: the loop that takes due deliveries from the queue, POSTs each to its player's webhook
(signed, ``benthic.service`` headers below) and settles it: 2xx delivered; anything else (another status, a
timeout, a refused connection, a private address) retried with exponential backoff and full jitter, up to
``BENTHIC_WEBHOOK_MAX_ATTEMPTS`` attempts, then dead-lettered.  Redirects are not followed (a 3xx is a failure).
A delivery whose player has no webhook any more is dropped (``unregistered``)."""

from __future__ import annotations

import asyncio
import contextlib
import random
import time

import httpx
import msgspec

from benthic.runtime.config import Settings
from benthic.runtime.telemetry import (
    WEBHOOK_ATTEMPTS,
    WEBHOOK_DEAD_LETTERS,
    WEBHOOK_DELIVERIES,
    WEBHOOK_LATENCY,
    WEBHOOK_QUEUE_DEPTH,
    log,
)
from services.notifier.queue import Delivery, DeliveryQueue
from services.notifier.registrations import Registrations
from services.notifier.signing import (
    DELIVERY_HEADER,
    EVENT_ID_HEADER,
    EVENT_TYPE_HEADER,
    SIGNATURE_HEADER,
    signature,
)
from services.notifier.urls import resolves_to_private

USER_AGENT = "Benthic-Webhooks/1"


def backoff_ms(attempts: int, base_ms: int, max_ms: int, rng: random.Random) -> int:
    """The delay before the next attempt after ``attempts`` failed ones: full jitter over an exponential ceiling
    (uniform in [ceiling / 2, ceiling], so it never collapses to zero), the ceiling doubling from ``base_ms`` up
    to ``max_ms``."""
    ceiling = min(max_ms, base_ms * 2 ** max(attempts - 1, 0))
    return int(rng.uniform(ceiling / 2, ceiling))


class Deliverer:
    def __init__(self, queue: DeliveryQueue, registrations: Registrations, settings: Settings) -> None:
        self.queue = queue
        self.registrations = registrations
        self.settings = settings
        self.client = httpx.AsyncClient(timeout=settings.webhook_timeout_s, follow_redirects=False,
                                        headers={"User-Agent": USER_AGENT})
        self.rng = random.Random()
        self.slots = asyncio.Semaphore(settings.webhook_concurrency)
        self.in_flight: set[asyncio.Task[None]] = set()
        self.stopping = asyncio.Event()
        self.running = False

    def stop(self) -> None:
        self.stopping.set()

    async def run(self) -> None:
        """Take and send due deliveries until stopped; the in-flight POSTs are awaited (their leases cover
        them should the drain timeout cut them off)."""
        self.running = True
        lease_ms = int(self.settings.webhook_lease_s * 1000)
        poll_s = self.settings.webhook_poll_ms / 1000
        try:
            while not self.stopping.is_set():
                free = self.settings.webhook_concurrency - len(self.in_flight)
                taken: list[Delivery] = []
                if free > 0:
                    try:
                        taken = await self.queue.take_due(_now_ms(), lease_ms, free)
                    except Exception as error:  # noqa: BLE001 - Redis away: try again at the next poll
                        log().warning("webhook_take_failed", error=repr(error))
                for delivery in taken:
                    task = asyncio.create_task(self._send(delivery))
                    self.in_flight.add(task)
                    task.add_done_callback(self.in_flight.discard)
                if len(taken) < free or free <= 0:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self.stopping.wait(), poll_s)
            if self.in_flight:
                await asyncio.wait(set(self.in_flight))
        finally:
            self.running = False
            await self.client.aclose()

    async def metrics_loop(self) -> None:
        while not self.stopping.is_set():
            try:
                waiting, dead = await self.queue.depth()
                WEBHOOK_QUEUE_DEPTH.set(waiting)
                WEBHOOK_DEAD_LETTERS.set(dead)
            except Exception as error:  # noqa: BLE001 - Redis away: the gauges keep their last values
                log().warning("webhook_metrics_failed", error=repr(error))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopping.wait(), self.settings.metrics_interval_s)

    async def _send(self, delivery: Delivery) -> None:
        try:
            await self._attempt(delivery)
        except Exception as error:  # noqa: BLE001 - Redis failed while settling: the lease brings it back
            log().warning("webhook_settle_failed", delivery=delivery.id, error=repr(error))

    async def _attempt(self, delivery: Delivery) -> None:
        found = await self.registrations.get(delivery.player_id)
        if found is None or delivery.event_type not in found[0].events:
            await self.queue.done(delivery)
            WEBHOOK_DELIVERIES.labels("unregistered").inc()
            return
        hook, secret = found
        attempts = delivery.attempts + 1
        error = await self._post(hook.url, secret, delivery, attempts)
        if error is None:
            await self.queue.done(delivery)
            WEBHOOK_DELIVERIES.labels("delivered").inc()
            log().info("webhook_delivered", delivery=delivery.id, player_id=delivery.player_id, attempts=attempts)
            return
        failed = msgspec.structs.replace(delivery, attempts=attempts, last_error=error)
        if attempts >= self.settings.webhook_max_attempts:
            await self.queue.dead_letter(failed, f"{attempts} attempts failed, the last: {error}", _now_ms())
            WEBHOOK_DELIVERIES.labels("dead_lettered").inc()
            log().warning("webhook_dead_lettered", delivery=delivery.id, player_id=delivery.player_id,
                          attempts=attempts, error=error)
            return
        delay = backoff_ms(attempts, self.settings.webhook_retry_base_ms, self.settings.webhook_retry_max_ms, self.rng)
        await self.queue.retry(failed, _now_ms() + delay)
        WEBHOOK_DELIVERIES.labels("retried").inc()
        log().info("webhook_retry", delivery=delivery.id, attempts=attempts, retry_in_ms=delay, error=error)

    async def _post(self, url: str, secret: str, delivery: Delivery, attempts: int) -> str | None:
        """POST the delivery; None when the receiver answered 2xx, else what went wrong."""
        if not self.settings.webhook_allow_private:
            private = await resolves_to_private(url)
            if private is not None:
                WEBHOOK_ATTEMPTS.labels("blocked").inc()
                return f"the URL's host resolves to a private address ({private})"
        body = delivery.body.encode()
        headers = {
            "Content-Type": "application/json",
            SIGNATURE_HEADER: signature(secret, int(time.time()), body),
            EVENT_ID_HEADER: delivery.event_id,
            EVENT_TYPE_HEADER: delivery.event_type,
            DELIVERY_HEADER: str(attempts),
        }
        async with self.slots:
            started = time.perf_counter()
            try:
                answer = await self.client.post(url, content=body, headers=headers)
            except httpx.HTTPError as error:
                WEBHOOK_LATENCY.observe(time.perf_counter() - started)
                WEBHOOK_ATTEMPTS.labels("error").inc()
                return f"{type(error).__name__}: {error}"[:500]
            WEBHOOK_LATENCY.observe(time.perf_counter() - started)
        WEBHOOK_ATTEMPTS.labels(f"{answer.status_code // 100}xx").inc()
        if 200 <= answer.status_code < 300:
            return None
        return f"HTTP {answer.status_code}"


def _now_ms() -> int:
    return int(time.time() * 1000)
