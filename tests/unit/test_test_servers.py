"""Which servers the tests run against: the choice between Docker containers and private processes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from benthic.local.devredis import free_port
from tests.servers import (
    ENV,
    Choice,
    ContainerServers,
    DockerStatus,
    ProcessServers,
    ServerChoiceError,
    choose_backend,
    choose_from_environment,
    describe,
    named_server,
    probe_docker,
    servers_for,
)

UP = DockerStatus(True, "Docker 27.0")
DOWN = DockerStatus(False, "connection refused")
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("forced", "docker", "backend"),
    [
        (None, UP, "containers"),
        (None, DOWN, "processes"),
        ("", UP, "containers"),
        ("", DOWN, "processes"),
        ("processes", UP, "processes"),
        ("processes", DOWN, "processes"),
        ("containers", UP, "containers"),
        (" Containers ", UP, "containers"),
        ("PROCESSES", UP, "processes"),
    ],
)
def test_the_backend_follows_the_setting_then_the_docker_daemon(
    forced: str | None, docker: DockerStatus, backend: str
) -> None:
    choice = choose_backend(forced, docker)
    assert choice.backend == backend
    assert choice.reason  # the header says why
    assert (ENV in choice.reason) == bool(forced and forced.strip())


def test_forcing_containers_without_a_daemon_fails_and_says_what_to_do() -> None:
    with pytest.raises(ServerChoiceError) as refused:
        choose_backend("containers", DOWN)
    message = str(refused.value)
    assert f"{ENV}=containers" in message and "no Docker daemon is reachable" in message
    assert "connection refused" in message and f"{ENV}=processes" in message


def test_an_unknown_backend_is_refused_by_name() -> None:
    with pytest.raises(ServerChoiceError, match="'docker' is not a backend: choose one of containers, processes"):
        choose_backend("docker", UP)


def test_the_probe_reports_an_unreachable_daemon() -> None:
    """A real probe of a Docker endpoint where nothing listens."""
    previous = os.environ.get("DOCKER_HOST")
    os.environ["DOCKER_HOST"] = f"tcp://127.0.0.1:{free_port()}"
    try:
        status = probe_docker(timeout=2)
    finally:
        if previous is None:
            del os.environ["DOCKER_HOST"]
        else:
            os.environ["DOCKER_HOST"] = previous
    assert status.reachable is False and status.detail


def test_the_environment_choice_and_the_header() -> None:
    assert choose_from_environment({ENV: "processes"}, lambda: UP) == Choice("processes", f"forced by {ENV}")
    assert choose_from_environment({}, lambda: DOWN).backend == "processes"
    assert isinstance(servers_for(Choice("containers", "")), ContainerServers)
    assert isinstance(servers_for(Choice("processes", "")), ProcessServers)
    lines = describe(Choice("processes", "no Docker daemon reachable (x)"), {"REDIS_URL": "redis://elsewhere"})
    assert lines[0].startswith("benthic test servers: processes (no Docker daemon reachable (x))")
    assert "redis: REDIS_URL (from the environment)" in lines[1] and "postgresql: processes" in lines[1]


def test_servers_named_in_the_environment_are_not_shared_by_several_workers() -> None:
    env = {"REDIS_URL": "redis://elsewhere", "BENTHIC_ARCHIVE_URL": "postgresql://elsewhere/db"}
    assert named_server("REDIS_URL", env) == "redis://elsewhere"
    assert named_server("REDIS_URL", {**env, "PYTEST_XDIST_WORKER_COUNT": "1"}) == "redis://elsewhere"
    assert named_server("REDIS_URL", {**env, "PYTEST_XDIST_WORKER_COUNT": "2"}) is None
    assert named_server("BENTHIC_ARCHIVE_URL", env, workers=2) is None
    assert named_server("REDIS_CLUSTER_URL", env) is None
    lines = describe(Choice("processes", "x"), env, workers=2)
    assert "redis: processes, one per worker (2 workers)" in lines[1]
    assert "postgresql: processes, one per worker (2 workers)" in lines[1]


def _pytest(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """pytest in a subprocess on one trivial test, with this repository's settings and conftest."""
    probe = tmp_path / "test_probe.py"
    probe.write_text("def test_nothing():\n    assert True\n")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir", str(ROOT),
         "-p", "tests.conftest", "-p", "no:cacheprovider", str(probe)],
        cwd=ROOT, env={**os.environ, **env}, capture_output=True, text=True, timeout=120, check=False,
    )


def test_pytest_prints_the_choice_and_refuses_forced_containers_without_docker(tmp_path: Path) -> None:
    nowhere = f"tcp://127.0.0.1:{free_port()}"
    chosen = _pytest(tmp_path, {ENV: "processes", "DOCKER_HOST": nowhere})
    assert chosen.returncode == 0, chosen.stdout + chosen.stderr
    assert f"benthic test servers: processes (forced by {ENV})" in chosen.stdout
    refused = _pytest(tmp_path, {ENV: "containers", "DOCKER_HOST": nowhere})
    assert refused.returncode == pytest.ExitCode.USAGE_ERROR
    assert f"{ENV}=containers, but no Docker daemon is reachable" in refused.stdout + refused.stderr


def test_free_ports_are_drawn_below_the_kernel_s_ephemeral_range() -> None:
    import socket

    from benthic.local.devredis import _ephemeral_low

    low = _ephemeral_low()
    ports = {free_port() for _ in range(20)}
    assert all(10000 <= port < low for port in ports), (low, ports)
    assert len(ports) > 10  # drawn at random, not handed out in sequence
    for port in ports:
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", port))  # free indeed
