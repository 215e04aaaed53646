"""Running the services: ``benthic serve command|projection|scoring|archiver|bots|notifier|matchmaker|all`` (all: one
process, one port per service; without BENTHIC_ARCHIVE_URL ``all`` runs without the archiver and says so).

The ASGI server is uvicorn (httptools), or with ``BENTHIC_HTTP_SERVER=granian`` granian's server embedded in the
same event loop (its HTTP parsing and connection handling in Rust; docs/CAPACITY.md has the measured pair)."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import signal
from collections.abc import Generator
from typing import Any

import uvicorn

from benthic.runtime.config import Settings, check_production
from benthic.runtime.telemetry import BUILD_INFO, configure_logging, log
from benthic.service.headlimits import AnsweringWebSocketProtocol, BoundedHttpToolsProtocol

SERVICES = ("command", "projection", "scoring", "archiver", "bots", "notifier", "matchmaker")


class _Server(uvicorn.Server):
    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:  # signals are ours: one handler stops all
        yield


def build_app(service: str, settings: Settings) -> tuple[Any, int]:
    if service == "command":
        from services.command.app import create_app as command_app

        return command_app(settings), settings.command_port
    if service == "projection":
        from services.projection.app import create_app as projection_app

        return projection_app(settings), settings.projection_port
    if service == "scoring":
        from services.scoring.app import create_app as scoring_app

        return scoring_app(settings), settings.scoring_port
    if service == "archiver":
        from services.archiver.app import create_app as archiver_app

        return archiver_app(settings), settings.archiver_port
    if service == "bots":
        from services.bots.app import create_app as bots_app

        return bots_app(settings), settings.bots_port
    if service == "notifier":
        from services.notifier.app import create_app as notifier_app

        return notifier_app(settings), settings.notifier_port
    if service == "matchmaker":
        from services.matchmaker.app import create_app as matchmaker_app

        return matchmaker_app(settings), settings.matchmaker_port
    raise SystemExit(f"unknown service {service!r}; choose one of {', '.join(SERVICES)} or all")


class _Granian:
    """granian's embedded server with uvicorn's face here: ``serve()``, ``should_exit``, ``started``."""

    def __init__(self, app: Any, settings: Settings, port: int) -> None:
        from granian.constants import Interfaces
        from granian.server.embed import Server
        from granian.utils.proxies import wrap_asgi_with_proxy_headers

        # The client address (per-IP rate limits) is X-Forwarded-For's only from these proxies.
        app = wrap_asgi_with_proxy_headers(app, settings.forwarded_allow_ips)
        self.server = Server(app, address=settings.host, port=port, interface=Interfaces.ASGI, backlog=4096,
                             log_enabled=False, websockets=True)
        self.started = False

    @property
    def should_exit(self) -> bool:
        return False

    @should_exit.setter
    def should_exit(self, value: bool) -> None:
        if value:
            self.server.stop()  # type: ignore[no-untyped-call]  # granian's embedded Server: unannotated

    async def serve(self) -> None:
        self.started = True
        await self.server.serve()


async def serve(services: list[str], settings: Settings, port: int | None = None) -> None:
    if settings.http_server not in ("uvicorn", "granian"):
        raise SystemExit(f"BENTHIC_HTTP_SERVER={settings.http_server!r}: choose uvicorn or granian")
    servers: list[Any] = []
    for service in services:
        app, default_port = build_app(service, settings)
        at = port if port is not None and len(services) == 1 else default_port
        if settings.http_server == "granian":
            servers.append(_Granian(app, settings, at))
            continue
        config = uvicorn.Config(
            app,
            host=settings.host,
            port=at,
            log_config=None,
            access_log=False,
            lifespan="on",
            timeout_graceful_shutdown=settings.shutdown_timeout_s,
            timeout_keep_alive=30,
            backlog=4096,
            # The client address (per-IP rate limits) is X-Forwarded-For's only from these proxies.
            proxy_headers=True,
            forwarded_allow_ips=settings.forwarded_allow_ips,
            # a request's head within the same limits for HTTP and WebSocket handshakes, answered when over them
            http=BoundedHttpToolsProtocol,
            ws=AnsweringWebSocketProtocol,
        )
        servers.append(_Server(config))
    loop = asyncio.get_running_loop()

    def stop() -> None:
        for server in servers:
            server.should_exit = True

    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop)
    tasks = [asyncio.create_task(server.serve()) for server in servers]
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    stop()  # one server ending (a signal, or a failed start) ends them all
    await asyncio.gather(*pending, return_exceptions=True)
    failed = [task.exception() for task in done if not task.cancelled() and task.exception() is not None]
    if failed or any(not server.started for server in servers):
        for error in failed:
            log().error("server_failed", error=repr(error))
        raise SystemExit(3)


def run(service: str, settings: Settings, port: int | None = None) -> None:
    check_production(settings)
    # Request handling allocates many short-lived objects and few cycles: collect the young generation less
    # often, and keep everything loaded at start-up (engines, content) out of the collector's way.
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 20, 20)
    services = list(SERVICES) if service == "all" else [service]
    configure_logging(settings, service)
    if service == "all" and not settings.archive_url:
        services.remove("archiver")
        log().warning("archiver_disabled", reason="BENTHIC_ARCHIVE_URL is not set: finished games stay in Redis")
    from benthic import __version__

    BUILD_INFO.info({"version": __version__, "services": ",".join(services)})
    log().info("starting", services=services, redis=settings.redis_url.split("@")[-1])
    try:
        import uvloop

        runner: Any = uvloop.run
    except ImportError:
        runner = asyncio.run
    runner(serve(services, settings, port))
