"""The servers the tests run against (Redis, PostgreSQL), behind one interface with two backends:

- ``containers``: testcontainers' throwaway Docker containers, when a Docker daemon is reachable
  (developers' laptops, CI systems with Docker);
- ``processes``: private ``redis-server`` and ``postgres`` processes on free ports (benthic.local.devredis,
  benthic.local.devpostgres), everywhere else (these machines and their CI have no Docker daemon).

``BENTHIC_TEST_SERVERS=containers|processes`` forces one; forcing ``containers`` without a reachable daemon
is an error, never a silent fallback.  ``REDIS_URL`` and ``BENTHIC_ARCHIVE_URL`` still win over both: a
server named there is used as it is, except when pytest-xdist runs the tests in several workers (``make test``
does): the tests flush, fill and reconfigure their servers, so each worker starts its own instead of sharing
one (``named_server``).  The Redis Cluster of the cluster tests is always processes.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator, Mapping
from typing import NamedTuple, Protocol

ENV = "BENTHIC_TEST_SERVERS"
BACKENDS = ("containers", "processes")
REDIS_IMAGE = "redis:7.4-alpine"
POSTGRES_IMAGE = "postgres:16-alpine"


class ServerChoiceError(Exception):
    pass


class DockerStatus(NamedTuple):
    reachable: bool
    detail: str


class Choice(NamedTuple):
    backend: str  # "containers" | "processes"
    reason: str


def choose_backend(forced: str | None, docker: DockerStatus) -> Choice:
    """Which backend serves the tests, from ``BENTHIC_TEST_SERVERS`` (or None) and the Docker probe."""
    wanted = (forced or "").strip().lower()
    if wanted and wanted not in BACKENDS:
        raise ServerChoiceError(f"{ENV}={forced!r} is not a backend: choose one of {', '.join(BACKENDS)}")
    if wanted == "containers":
        if not docker.reachable:
            raise ServerChoiceError(
                f"{ENV}=containers, but no Docker daemon is reachable ({docker.detail}): start Docker "
                f"(or point DOCKER_HOST at one), or run with {ENV}=processes"
            )
        return Choice("containers", f"forced by {ENV} ({docker.detail})")
    if wanted == "processes":
        return Choice("processes", f"forced by {ENV}")
    if docker.reachable:
        return Choice("containers", f"Docker daemon reachable ({docker.detail})")
    return Choice("processes", f"no Docker daemon reachable ({docker.detail})")


def probe_docker(timeout: float = 3.0) -> DockerStatus:
    """Is a Docker daemon answering (DOCKER_HOST, or the default socket)?"""
    try:
        import docker
    except ImportError:
        return DockerStatus(False, "the docker package is not installed")
    try:
        client = docker.from_env(timeout=timeout)
        try:
            client.ping()
            return DockerStatus(True, f"Docker {client.version().get('Version', '?')}")
        finally:
            client.close()
    except Exception as error:  # noqa: BLE001 - any failure means: no usable daemon
        return DockerStatus(False, str(error).splitlines()[0][:160] if str(error) else type(error).__name__)


class TestServers(Protocol):
    backend: str

    def redis(self) -> contextlib.AbstractContextManager[str]:
        """A Redis 7 (noeviction); yields its URL."""

    def postgres(self) -> contextlib.AbstractContextManager[str]:
        """A PostgreSQL server with an empty database; yields its DSN (a libpq URI)."""


class ProcessServers:
    backend = "processes"

    @contextlib.contextmanager
    def redis(self) -> Iterator[str]:
        from benthic.local.devredis import PrivateRedis

        with PrivateRedis() as server:
            yield server.url

    @contextlib.contextmanager
    def postgres(self) -> Iterator[str]:
        from benthic.local.devpostgres import PrivatePostgres

        with PrivatePostgres(durable=False) as server:
            yield server.dsn


class ContainerServers:
    backend = "containers"

    @contextlib.contextmanager
    def redis(self) -> Iterator[str]:
        from testcontainers.community.redis import RedisContainer

        container = RedisContainer(REDIS_IMAGE).with_command(
            "redis-server --appendonly yes --appendfsync everysec --maxmemory-policy noeviction"
        )
        with container:
            yield f"redis://{container.get_container_host_ip()}:{container.get_exposed_port(6379)}/0"

    @contextlib.contextmanager
    def postgres(self) -> Iterator[str]:
        from testcontainers.community.postgres import PostgresContainer

        with PostgresContainer(POSTGRES_IMAGE, driver=None) as container:
            yield container.get_connection_url()


def servers_for(choice: Choice) -> TestServers:
    return ContainerServers() if choice.backend == "containers" else ProcessServers()


def choose_from_environment(
    env: Mapping[str, str] | None = None, probe: Callable[[], DockerStatus] = probe_docker
) -> Choice:
    env = os.environ if env is None else env
    return choose_backend(env.get(ENV), probe())


def named_server(variable: str, env: Mapping[str, str] | None = None, workers: int | None = None) -> str | None:
    """The server the environment names in ``variable`` (``REDIS_URL``, ``BENTHIC_ARCHIVE_URL``,
    ``REDIS_CLUSTER_URL``), or None: also None when the tests run in more than one pytest-xdist worker
    (``workers``, else ``PYTEST_XDIST_WORKER_COUNT``), where each worker starts servers of its own."""
    env = os.environ if env is None else env
    if workers is None:
        workers = int(env.get("PYTEST_XDIST_WORKER_COUNT") or "1")
    return None if workers > 1 else (env.get(variable) or None)


def describe(choice: Choice, env: Mapping[str, str] | None = None, workers: int = 1) -> list[str]:
    """The lines pytest prints in its header (``workers``: how many pytest-xdist workers run the tests)."""
    env = os.environ if env is None else env
    own = f"{choice.backend}, one per worker ({workers} workers)" if workers > 1 else choice.backend
    redis = "REDIS_URL (from the environment)" if named_server("REDIS_URL", env, workers) else own
    postgres = ("BENTHIC_ARCHIVE_URL (from the environment)" if named_server("BENTHIC_ARCHIVE_URL", env, workers)
                else own)
    return [
        f"benthic test servers: {choice.backend} ({choice.reason}); set {ENV}=containers|processes to force one",
        f"  redis: {redis}; postgresql: {postgres}; redis cluster: processes",
    ]
