"""The whole platform on one machine: Redis (private, or ``REDIS_URL``) and the three services as separate
processes, with fresh token keys.  Used by ``benthic run``, the end-to-end tests and the benchmark."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from benthic.devredis import PrivateRedis, free_port

SERVICES = ("command", "projection", "scoring")


class LocalPlatform:
    def __init__(
        self,
        redis_url: str | None = None,
        env: dict[str, str] | None = None,
        log_dir: str | None = None,
        ports: dict[str, int] | None = None,
        quiet: bool = True,
        niceness: dict[str, int] | None = None,
    ) -> None:
        self._redis: PrivateRedis | None = None
        self.redis_url = redis_url
        self.ports = ports or {s: free_port() for s in SERVICES}
        self.log_dir = Path(log_dir or tempfile.mkdtemp(prefix="benthic-logs-")).resolve()
        self.operator_token = secrets.token_urlsafe(24)
        self.env = {
            **os.environ,
            "BENTHIC_TOKEN_KEYS": f"k1:{secrets.token_urlsafe(32)}",
            "BENTHIC_OPERATOR_TOKEN": self.operator_token,
            "BENTHIC_LOG_FORMAT": "json",
            **(env or {}),
        }
        self.quiet = quiet
        # On a shared machine the command path is the latency-critical one; consumers can run nicer.
        self.niceness = niceness or {}
        self.processes: dict[str, subprocess.Popen[bytes]] = {}

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
            for service in SERVICES:
                self.start_service(service)
            self.wait_ready(timeout)
        except BaseException:
            self.stop()
            raise
        return self

    def start_service(self, service: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        log = open(self.log_dir / f"{service}.log", "ab")  # noqa: SIM115 - owned by the child
        process = subprocess.Popen(
            [sys.executable, "-m", "benthic.cli", "serve", service, "--port", str(self.ports[service])],
            env={**self.env, **(env or {})},
            stdout=log,
            stderr=subprocess.STDOUT if self.quiet else None,
            preexec_fn=(lambda n=self.niceness[service]: os.nice(n)) if self.niceness.get(service) else None,  # noqa: PLW1509
        )
        self.processes[service] = process
        return process

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

    def __enter__(self) -> LocalPlatform:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
