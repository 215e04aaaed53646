"""How every service starts and says it is ready: small lifespans, each owning one resource, composed in
Litestar's ``lifespan=[...]`` (each is entered in order and left in reverse).

- :func:`redis_lifespan`: the Redis client of the requests (``app.state.redis``, through
  ``benthic.runtime.redisconn.connect``: one server, Sentinel or a cluster), the event store on it
  (``app.state.store``, acknowledging writes as ``BENTHIC_REDIS_ACK_*`` say, its epoch moved when the primary
  changes so that caches of what was read are dropped), the probe that watches Redis (``app.state.probe``) and
  the sampler of Redis' memory;
- :func:`consumer_lifespan`: a feed consumer (``benthic.feed.consumer.FeedConsumer``) started and drained;
- :func:`subscription_lifespan`: a consumer group read through FastStream
  (``benthic.feed.faststream_groups.GroupSubscription``) started and drained;
- :func:`tasks_lifespan`: background loops, given the drain timeout to finish on shutdown.

Each registers what it owns with the app's :class:`Readiness`, so ``/readyz`` is derived from flags the
resources keep current themselves: it never does I/O (a probe that waited on a busy pool would turn a loaded
service unready).  :func:`service_app` builds the Litestar app every service shares: health, readiness and
metrics routes, the error handlers, the RED middleware and admission control (``benthic.service.admission``:
``app.state.admission``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Any

from litestar import Litestar
from litestar.datastructures import State

from benthic.feed.consumer import FeedConsumer
from benthic.runtime.config import Settings
from benthic.runtime.redisconn import RedisProbe, check_redis_settings, connect, on_primary_change, sample_memory
from benthic.runtime.telemetry import BOUNDS, log, red_middleware
from benthic.service.adaptive_limit import VegasLimit
from benthic.service.admission import Admission
from benthic.service.http import EXCEPTION_HANDLERS, health_routes
from benthic.store import EventStore
from benthic.store.durability import Ack

if TYPE_CHECKING:  # FastStream is imported by the services that subscribe through it only
    from benthic.feed.faststream_groups import GroupSubscription

Lifespan = Callable[[Litestar], contextlib.AbstractAsyncContextManager[None]]
Check = Callable[[], "tuple[bool, str]"]


class Readiness:
    """What must hold for the service to do its job, each a named check answering (ok, why not) from what the
    process already knows."""

    def __init__(self) -> None:
        self._checks: dict[str, Check] = {}
        self.details: dict[str, Callable[[], Any]] = {}

    def require(self, name: str, check: Check) -> None:
        self._checks[name] = check

    def report(self) -> dict[str, Any]:
        report: dict[str, Any] = {}
        errors = []
        for name, check in self._checks.items():
            ok, why = check()
            report[name] = ok
            if not ok:
                errors.append(why or f"{name} not ready")
        report["ok"] = not errors and bool(self._checks)
        if errors:
            report["error"] = "; ".join(errors)
        for name, detail in self.details.items():
            report[name] = detail()
        return report


def ack_of(settings: Settings) -> Ack:
    return Ack(settings.redis_ack_replicas, settings.redis_ack_timeout_ms, settings.redis_ack_fsync)


def readiness(app: Litestar) -> Readiness:
    return app.state.readiness  # type: ignore[no-any-return]


def redis_lifespan(settings: Settings, *, needs_replicas: bool = True, pool: int | None = None) -> Lifespan:
    """The service's Redis: ``app.state.redis``, ``app.state.store``, ``app.state.probe``.  ``needs_replicas``:
    the service makes writes it acknowledges, so it is not ready while fewer replicas are online than
    ``BENTHIC_REDIS_ACK_REPLICAS`` (a read-only service stays ready)."""
    check_redis_settings(settings)

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        redis = connect(settings, pool)
        probe = RedisProbe(settings, needs_replicas=needs_replicas)
        await probe.start()
        store = EventStore(redis, settings.partitions, settings.feed_maxlen, ack=ack_of(settings))
        forget = on_primary_change(store.primary_changed)  # the caches of what was read are dropped
        app.state.update(redis=redis, store=store, probe=probe)
        readiness(app).require("redis", lambda: (probe.ok, probe.error))
        sampler = asyncio.create_task(sample_memory(redis, settings.metrics_interval_s))
        try:
            yield
        finally:
            sampler.cancel()
            forget()
            await probe.stop()
            await redis.aclose()

    return lifespan


def consumer_lifespan(name: str, make: Callable[[Litestar], FeedConsumer]) -> Lifespan:
    """A feed consumer made from the app's state (``app.state.<name>``), started, and drained on shutdown."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        consumer = make(app)
        app.state[name] = consumer
        readiness(app).require(name, lambda: (consumer.healthy, f"the {consumer.group} feed consumer is not running"))
        await consumer.start()
        try:
            yield
        finally:
            await consumer.stop()

    return lifespan


def subscription_lifespan(name: str, make: Callable[[Litestar], GroupSubscription]) -> Lifespan:
    """A consumer group read through FastStream, made from the app's state (``app.state.<name>``), started (the
    service is ready once every subscriber reads), and drained on shutdown."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        subscription = make(app)
        app.state[name] = subscription
        readiness(app).require(name, lambda: (subscription.ready,
                                              f"the {subscription.group} consumer group is not subscribed"))
        await subscription.start()
        try:
            yield
        finally:
            await subscription.stop()

    return lifespan


def tasks_lifespan(name: str, make: Callable[[Litestar], Sequence[Awaitable[None]]], settings: Settings,
                   stop: Callable[[Litestar], None] | None = None) -> Lifespan:
    """Background loops made from the app's state; the first one must keep running for the service to be
    ready.  On shutdown ``stop`` asks them to end, they get the drain timeout, then are cancelled."""

    @contextlib.asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        tasks = [asyncio.ensure_future(loop) for loop in make(app)]
        readiness(app).require(name, lambda: (not tasks[0].done(), f"the {name} loop stopped"))
        try:
            yield
        finally:
            if stop is not None:
                stop(app)
            _done, stuck = await asyncio.wait(tasks, timeout=settings.drain_timeout_s)
            for task in stuck:
                task.cancel()

    return lifespan


def service_app(service: str, settings: Settings, lifespans: Sequence[Lifespan], routes: Sequence[Any] = (),
                started: dict[str, Any] | None = None, **litestar: Any) -> Litestar:
    """The Litestar app of a service: its routes plus ``/healthz``, ``/readyz`` (the lifespans' readiness) and
    ``/metrics``, the shared error handlers and RED metrics.  ``started``: the fields of the ``service_started``
    log line, written once every lifespan has started."""
    state = Readiness()

    @contextlib.asynccontextmanager
    async def announce(app: Litestar) -> AsyncIterator[None]:
        log().info("service_started", **started)  # type: ignore[arg-type]
        yield

    if started is not None:
        lifespans = [*lifespans, announce]

    async def ready() -> dict[str, Any]:
        return state.report()

    adaptive = (VegasLimit(min(settings.admission_min_limit, settings.admission_limit), settings.admission_limit)
                if settings.admission_adaptive and settings.admission_limit > 0 else None)
    admission = Admission(service, settings.admission_limit, settings.admission_queue, settings.admission_queue_ms,
                          settings.admission_overload_ms, adaptive)
    publish_bounds(settings)
    app = Litestar(
        route_handlers=[*routes, *health_routes(ready)],
        lifespan=list(lifespans),
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=[red_middleware(service)],
        state=State({"settings": settings, "readiness": state, "admission": admission}),
        logging_config=None,
        debug=False,
        **litestar,
    )
    # Outside routing, CORS and the exception handlers: a request refused for overload costs almost nothing.
    app.asgi_handler = admission.middleware()(app.asgi_handler)
    return app


BOUNDED = ("admission_limit", "admission_min_limit", "admission_queue", "admission_queue_ms", "admission_overload_ms",
           "redis_pool", "redis_pool_timeout_s", "live_streams_max", "live_buffer", "consumer_batch",
           "webhook_queue_max", "webhook_dead_letter_max", "webhook_concurrency", "webhook_timeout_s")


def publish_bounds(settings: Settings) -> None:
    """Every bound on a queue or pool of the process, as ``benthic_bound{bound="<setting>"}``."""
    for name in BOUNDED:
        BOUNDS.labels(name).set(getattr(settings, name))
