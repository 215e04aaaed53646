"""`benthic serve all`: every service in one process, the archiver included when BENTHIC_ARCHIVE_URL is set,
left out (and said so) when it is not."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx
import pytest

from benthic.local.devredis import free_port

SERVICES = ("command", "projection", "scoring", "archiver", "bots", "notifier", "matchmaker")


def _serve_all(redis_url: str, archive_url: str | None) -> tuple[dict[str, int], str]:
    """Start `serve all`, wait until every port answers /readyz (or 60 s), stop it; the readiness codes
    per service (0: no answer) and its log.  Started again on other ports when a port chosen free was taken by
    another process before `serve all` bound it (the other test worker's servers: seen once in CI)."""
    for _attempt in range(3):
        codes, log = _serve_all_once(redis_url, archive_url)
        if "address already in use" not in log:
            break
    return codes, log


def _serve_all_once(redis_url: str, archive_url: str | None) -> tuple[dict[str, int], str]:
    ports = {s: free_port() for s in SERVICES}
    env = {**os.environ, "REDIS_URL": redis_url, "BENTHIC_LOG_FORMAT": "json",
           **{f"BENTHIC_{s.upper()}_PORT": str(p) for s, p in ports.items()}}
    env.pop("BENTHIC_ARCHIVE_URL", None)
    if archive_url:
        env["BENTHIC_ARCHIVE_URL"] = archive_url
    process = subprocess.Popen([sys.executable, "-m", "benthic.cli", "serve", "all"], env=env,
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    codes = dict.fromkeys(SERVICES, 0)
    expected = [s for s in SERVICES if archive_url or s != "archiver"]
    try:
        deadline = time.monotonic() + 60
        while (time.monotonic() < deadline and process.poll() is None
               and not all(codes[s] == 200 for s in expected)):
            for service in SERVICES:
                try:
                    codes[service] = httpx.get(f"http://127.0.0.1:{ports[service]}/readyz", timeout=1).status_code
                except httpx.HTTPError:
                    codes[service] = 0
            time.sleep(0.3)
    finally:
        process.terminate()
        _, log = process.communicate(timeout=30)
    return codes, log


@pytest.mark.parametrize("with_archive", [True, False])
def test_serve_all_runs_every_service(redis_url: str, archive_url: str, with_archive: bool) -> None:
    codes, log = _serve_all(redis_url, archive_url if with_archive else None)
    assert codes == {**dict.fromkeys(SERVICES, 200), "archiver": 200 if with_archive else 0}, log
    assert ("archiver_disabled" in log) is not with_archive
