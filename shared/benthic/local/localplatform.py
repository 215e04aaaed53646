"""The whole platform on one machine: Redis (private, or ``REDIS_URL``), PostgreSQL for the archive (private,
or ``archive_url``) and the services as separate processes, with fresh token keys.  Used by ``benthic run``,
the end-to-end tests and the benchmark.

Without an identity provider in ``env`` (``BENTHIC_JWKS_URL``/``BENTHIC_JWKS_FILE``) the services use the
development issuer, whose keys live in ``dev_issuer_dir``: :meth:`LocalPlatform.mint` makes player and
backend JWTs with it."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from benthic.local.devpostgres import PrivatePostgres
from benthic.local.devredis import PrivateRedis, free_port
from benthic.trust.devissuer import DevIssuer

SERVICES = ("command", "projection", "scoring", "archiver", "bots", "notifier", "matchmaker")


class LocalPlatform:
    def __init__(
        self,
        redis_url: str | None = None,
        env: dict[str, str] | None = None,
        log_dir: str | None = None,
        ports: dict[str, int] | None = None,
        quiet: bool = True,
        niceness: dict[str, int] | None = None,
        archive_url: str | None = None,
        durable_archive: bool = False,
    ) -> None:
        self._redis: PrivateRedis | None = None
        self.redis_url = redis_url
        self._postgres: PrivatePostgres | None = None
        self.archive_url = archive_url
        self.durable_archive = durable_archive  # fsync on for the private PostgreSQL (make run), off for tests
        self.ports = ports or {s: free_port() for s in SERVICES}
        self.log_dir = Path(log_dir or tempfile.mkdtemp(prefix="benthic-logs-")).resolve()
        self.operator_token = secrets.token_urlsafe(24)
        self.env = {
            **os.environ,
            "BENTHIC_TOKEN_KEYS": f"k1:{secrets.token_urlsafe(32)}",
            "BENTHIC_OPERATOR_TOKEN": self.operator_token,
            "BENTHIC_LOG_FORMAT": "json",
            "BENTHIC_DEV_ISSUER_DIR": str(self.log_dir / "dev-issuer"),
            # The web client (served by the read API) calls the command API on its own port.
            "BENTHIC_PUBLIC_COMMAND_URL": f"http://127.0.0.1:{self.ports['command']}",
            "BENTHIC_PUBLIC_MATCHMAKER_URL": f"http://127.0.0.1:{self.ports['matchmaker']}",
            "BENTHIC_CORS_ORIGINS": f"http://127.0.0.1:{self.ports['projection']},"
                                    f"http://localhost:{self.ports['projection']}",
            # Local development: webhook receivers on this machine (the notifier refuses private addresses otherwise).
            "BENTHIC_WEBHOOK_ALLOW_PRIVATE": "true",
            **(env or {}),
        }
        self._dev_issuer: DevIssuer | None = None
        self.quiet = quiet
        # On a shared machine the command path is the latency-critical one; consumers can run nicer.
        self.niceness = niceness or {}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

    @property
    def dev_issuer(self) -> DevIssuer:
        if self.env.get("BENTHIC_JWKS_URL") or self.env.get("BENTHIC_JWKS_FILE"):
            raise RuntimeError("this platform trusts an identity provider: it mints no development tokens")
        if self._dev_issuer is None:
            self._dev_issuer = DevIssuer.load_or_create(self.env["BENTHIC_DEV_ISSUER_DIR"])
        return self._dev_issuer

    def mint(self, subject: str, scopes: tuple[str, ...] | list[str] = (), ttl_s: int = 3600) -> str:
        """A JWT of the development issuer (a player, or with scopes a backend or an operator)."""
        return self.dev_issuer.mint(subject, scopes, ttl_s)

    def url(self, service: str) -> str:
        return f"http://127.0.0.1:{self.ports[service]}"

    @property
    def command_url(self) -> str:
        return self.url("command")

    @property
    def read_url(self) -> str:
        return self.url("projection")

    def start(self, timeout: float = 60.0) -> LocalPlatform:
        if self.redis_url is None:
            self._redis = PrivateRedis(str(self.log_dir / "redis")).start()
            self.redis_url = self._redis.url
        self.env["REDIS_URL"] = self.redis_url
        self.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            if self.archive_url is None:
                self._postgres = PrivatePostgres(str(self.log_dir / "postgres"), durable=self.durable_archive).start()
                self.archive_url = self._postgres.dsn
            self.env["BENTHIC_ARCHIVE_URL"] = self.archive_url
            for service in SERVICES:
                self.start_service(service)
            self.wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def start_service(
        self, service: str, env: dict[str, str] | None = None, name: str | None = None
    ) -> subprocess.Popen[bytes]:
        """Start ``service`` as process ``name`` (default: the service's own name; another name starts a
        replica on a port of its own: ``url(name)``)."""
        name = name or service
        port = self.ports.setdefault(name, free_port())
        with open(self.log_dir / f"{name}.log", "ab") as log:  # the child holds its own copy of the descriptor
            process = subprocess.Popen(
                [sys.executable, "-m", "benthic.cli", "serve", service, "--port", str(port)],
                env={**self.env, **(env or {})},
                stdout=log,
                stderr=subprocess.STDOUT if self.quiet else None,
                preexec_fn=(lambda n=self.niceness[service]: os.nice(n)) if self.niceness.get(service) else None,  # noqa: PLW1509
            )
        self.processes[name] = process
        return process

    def start_replica(self, service: str, name: str, timeout: float = 60.0) -> str:
        """One more process of ``service`` (same Redis, keys and settings), ready; returns its URL."""
        self.start_service(service, name=name)
        self.wait_ready(timeout, (name,))
        return self.url(name)

    def wait_ready(self, timeout: float = 60.0, services: tuple[str, ...] = SERVICES) -> None:
        deadline = time.monotonic() + timeout
        for service in services:
            while True:
                process = self.processes[service]
                if process.poll() is not None:
                    raise RuntimeError(f"{service} exited with {process.returncode}; see {self.log_dir}/{service}.log")
                try:
                    if httpx.get(f"{self.url(service)}/readyz", timeout=1.0).status_code == 200:
                        break
                except httpx.HTTPError:
                    pass
                if time.monotonic() > deadline:
                    raise RuntimeError(f"{service} not ready after {timeout}s; see {self.log_dir}/{service}.log")
                time.sleep(0.1)

    def pids(self) -> dict[str, int]:
        """The process id of every server process this platform runs: each service, and ``redis`` when the
        Redis is the private one it started (not one named by ``redis_url``)."""
        pids = {service: process.pid for service, process in self.processes.items()}
        if self._redis is not None and self._redis.process is not None:
            pids["redis"] = self._redis.process.pid
        return pids

    def kill(self, service: str) -> None:
        process = self.processes.pop(service)
        process.kill()
        process.wait()

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
        for process in self.processes.values():
            try:
                process.wait(timeout=25)
            except subprocess.TimeoutExpired:
                process.kill()
        self.processes.clear()
        if self._redis is not None:
            self._redis.stop()
        if self._postgres is not None:
            self._postgres.stop()

    def __enter__(self) -> LocalPlatform:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
