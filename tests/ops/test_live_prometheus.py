"""A real Prometheus scrapes every service a running local platform starts (LocalPlatform: command,
projection, scoring, archiver and bots) while bots play a game of every registered game type; then every
expression of every dashboard panel and every alert rule must return data from it.

How each expression is evaluated (opstools.probes):
  * dashboard queries: as written, Grafana's variables substituted ($__rate_interval -> 1m, $game_type -> .+);
  * alert rules: a threshold (`X > 0.05`, a comparison with a number) is dropped and X evaluated; both sides
    of `and` / `or` / `unless` are evaluated on their own; `absent(X)` evaluates X.
Each must return at least one sample.  Besides, every vector selector of every expression must name a
metric that has series in this Prometheus, and every label its matchers use must exist on those series.

To give the rarely-moving series data, the test also makes the things they count happen: a bad command,
an illegal move and a stale expected_version (rejections by code, conflicts) and one poisoned feed entry
(a game whose metadata is garbage), which makes scoring fail and the consumers' batches fail and be retried.
The alert rules are loaded into the same Prometheus: every rule must evaluate without error, and the
poisoned entry must drive BenthicScoringFailing and BenthicConsumerFailures to pending or firing.
"""

from __future__ import annotations

import asyncio
import random
import subprocess
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from benthic.local.devredis import free_port
from benthic.rules import game_types, get_engine
from tests.ops.opstools import (
    RULE_FILES,
    TARGET_LABELS,
    all_expressions,
    module,
    probes,
    selectors,
    tool,
)

GAMES = game_types()
EXPECTED_ALERTS = {"BenthicScoringFailing", "BenthicConsumerFailures"}  # from the poisoned feed entry


class Prometheus:
    def __init__(self, directory: Path, targets: dict[str, str]) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = {
            "global": {"scrape_interval": "1s", "scrape_timeout": "900ms", "evaluation_interval": "1s"},
            "rule_files": [str(p) for p in RULE_FILES],
            "scrape_configs": [
                {"job_name": f"benthic-{service}", "static_configs": [{"targets": [target]}]}
                for service, target in targets.items()
            ],
        }
        (directory / "prometheus.yml").write_text(yaml.safe_dump(config))
        self.log = open(directory / "prometheus.log", "wb")  # noqa: SIM115 - closed in stop()
        self.process = subprocess.Popen(
            [
                tool("prometheus"),
                f"--config.file={directory / 'prometheus.yml'}",
                f"--storage.tsdb.path={directory / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--storage.tsdb.retention.time=1h",
                "--log.level=warn",
            ],
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.directory = directory

    def wait_ready(self, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process.poll() is None, (self.directory / "prometheus.log").read_text()
            try:
                if httpx.get(f"{self.url}/-/ready", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise AssertionError("prometheus not ready: " + (self.directory / "prometheus.log").read_text())

    def api(self, path: str, **params: Any) -> Any:
        response = httpx.get(f"{self.url}/api/v1/{path}", params=params, timeout=10)
        body = response.json()
        assert body.get("status") == "success", f"{path} {params}: {body}"
        return body["data"]

    def query(self, expr: str) -> list[dict[str, Any]]:
        data = self.api("query", query=expr)
        assert data["resultType"] in ("vector", "scalar"), data
        return data["result"] if data["resultType"] == "vector" else [{"value": data["result"]}]

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.log.close()


@pytest.fixture(scope="module")
def scraped_platform(
    redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Any, Prometheus]]:
    prometheus_binary = tool("prometheus")  # skip (or fail in CI) before starting anything
    assert prometheus_binary
    module("promql_parser")
    redis = module("redis").Redis.from_url(redis_url)
    redis.flushdb()
    # A maxmemory, so the Redis-memory ratio (used / max, where max > 0) has something to divide by.
    old_maxmemory = redis.config_get("maxmemory")["maxmemory"]
    if int(old_maxmemory) == 0:
        redis.config_set("maxmemory", str(4 * 2**30))
    from benthic.local.localplatform import LocalPlatform

    env = {
        "BENTHIC_METRICS_INTERVAL_S": "1",
        "BENTHIC_CLAIM_IDLE_MS": "1500",
        "BENTHIC_CLAIM_INTERVAL_S": "0.5",
        "BENTHIC_DRAIN_TIMEOUT_S": "2",
        "BENTHIC_LIMIT_COMMAND_PER_PLAYER": "1000/second",  # bots play as fast as they can
        "BENTHIC_LIMIT_COMMAND_PER_IP": "100000/second",
        "BENTHIC_BOT_MOVE_DELAY_MS": "0",
    }
    platform = LocalPlatform(
        redis_url=redis_url, env=env, log_dir=str(tmp_path_factory.mktemp("platform-logs"))
    )
    prometheus = None
    try:
        platform.start()
        prometheus = Prometheus(
            tmp_path_factory.mktemp("prometheus"),
            {s: f"127.0.0.1:{platform.ports[s]}" for s in platform.processes},  # every service it started
        )
        prometheus.wait_ready()
        asyncio.run(_drive(platform, redis_url))
        yield platform, prometheus
    finally:
        if prometheus is not None:
            prometheus.stop()
        platform.stop()
        redis.flushdb()  # the poisoned entry and the games go
        redis.config_set("maxmemory", old_maxmemory)
        redis.close()


async def _drive(platform: Any, redis_url: str) -> None:
    from benthic.clients.bots_http import HttpGame, start_bot_game
    from benthic.clients.client import BenthicClient

    async with BenthicClient(
        platform.command_url, platform.read_url, operator_token=platform.operator_token, mint=platform.mint
    ) as client:
        for game_type in GAMES:
            seats = get_engine(game_type).max_seats
            game_id, tokens = await start_bot_game(
                client, game_type, seats, name=f"ops{uuid.uuid4().hex[:4]}"
            )
            await HttpGame(client, game_id, tokens, random.Random(11)).play()
            await _refusals(client, platform, game_type)
        await _bot_game(client, GAMES[0])
    await _poison(redis_url, GAMES[0])


async def _bot_game(client: Any, game_type: str) -> None:
    """A game of bot seats, played by the bots service to its end (bot moves, think time, move lag)."""
    created = await client.create_game(game_type, [{"bot": "greedy"}, {"bot": "random"}])
    deadline = time.monotonic() + 300
    while True:
        try:
            if (await client.summary(created["game_id"])).get("scored"):
                return
        except Exception:  # noqa: BLE001 - not projected yet
            pass
        assert time.monotonic() < deadline, "the bot game did not end"
        await asyncio.sleep(0.5)


async def _refusals(client: Any, platform: Any, game_type: str) -> None:
    """An unknown command type (rejected, 400), a move out of turn (rejected, 422) and a stale
    expected_version (conflict, 409), on a new game."""
    from benthic.clients.bots_http import start_bot_game

    seats = get_engine(game_type).max_seats
    game_id, tokens = await start_bot_game(client, game_type, seats, name=f"ref{uuid.uuid4().hex[:4]}")
    url = f"{platform.command_url}/games/{game_id}/commands"
    legal = await client.legal(game_id, tokens[0])
    acting = legal["prompt"]["seats"][0]
    command = (await client.legal(game_id, tokens[acting]))["commands"][0]
    auth = {"Authorization": f"Bearer {tokens[acting]}"}
    http = client.http
    response = await http.post(
        url, json={"command_id": "ops-bad", "command": {"type": "no_such_command"}}, headers=auth
    )
    assert response.status_code == 400, response.text
    response = await http.post(
        url,
        json={"command_id": "ops-stale", "command": command, "expected_version": legal["version"] - 1},
        headers=auth,
    )
    assert response.status_code == 409, response.text
    idle = next((s for s in tokens if s not in legal["prompt"]["seats"]), None)
    if idle is not None:
        response = await http.post(
            url,
            json={"command_id": "ops-idle", "command": command},
            headers={"Authorization": f"Bearer {tokens[idle]}"},
        )
        assert response.status_code == 422, response.text


async def _poison(redis_url: str, game_type: str) -> None:
    """A lifecycle-feed notification (what scoring reads) that a game ended, for a game whose metadata is
    garbage: scoring fails on it, every delivery (the claimer retries it) until it is dead-lettered."""
    from redis.asyncio import Redis

    from benthic.feed.encoding import DATA_FIELD, encode_notification
    from benthic.feed.keys import lifecycle_key
    from benthic.feed.notification import Notification
    from benthic.game.keys import GameKeys

    game_id = f"poison-{uuid.uuid4().hex[:8]}"
    keys = GameKeys(game_id, 16)
    redis = Redis.from_url(redis_url)
    try:
        await redis.hset(
            keys.meta, mapping={"game_type": game_type, "seats": "not-a-number", "status": "finished"}
        )
        note = Notification(
            game_id=game_id,
            game_type=game_type,
            kind="events",
            first_version=1,
            last_version=1,
            ts_ms=int(time.time() * 1000),
            ended=True,
            types=["game_over"],
        )
        await redis.xadd(lifecycle_key(keys.partition), {DATA_FIELD: encode_notification(note)})
    finally:
        await redis.aclose()


def _failures(prometheus: Prometheus) -> list[str]:
    """What returned no data, or lacks a label a query uses."""
    failures = []
    series_labels: dict[str, set[str] | None] = {}
    for expression in all_expressions():
        for selector in selectors(expression.expr):
            if selector.metric not in series_labels:
                found = prometheus.api("series", **{"match[]": selector.metric})
                series_labels[selector.metric] = set().union(*(s.keys() for s in found)) if found else None
            labels = series_labels[selector.metric]
            if labels is None:
                failures.append(f"{expression.source}: metric {selector.metric} has no series")
            elif not selector.labels <= labels | TARGET_LABELS:
                failures.append(
                    f"{expression.source}: {selector.metric} has no label {selector.labels - labels}"
                )
        for how, expr in probes(expression.expr):
            if not prometheus.query(expr):
                failures.append(f"{expression.source}: no data for {expr!r}" + (f" ({how})" if how else ""))
    active = {a["labels"]["alertname"] for a in prometheus.api("alerts")["alerts"]}
    if missing := EXPECTED_ALERTS - active:
        failures.append(f"alerts not pending or firing after a scoring failure: {missing}")
    return failures


def test_every_dashboard_and_alert_expression_returns_data(scraped_platform: tuple[Any, Prometheus]) -> None:
    _platform, prometheus = scraped_platform
    deadline = time.monotonic() + 90
    failures = ["not evaluated"]
    while failures and time.monotonic() < deadline:
        failures = _failures(prometheus)
        if failures:
            time.sleep(2)
    assert not failures, "\n".join(failures)
    evaluated = sum(len(probes(e.expr)) for e in all_expressions())
    assert evaluated >= 40, f"only {evaluated} expressions evaluated"
