"""examples/integration_consumer.py, a real process on a real Redis, stopped and started again: it goes on from its
consumer group, with no acknowledged event again and none lost (an event delivered to it but never acknowledged,
as when a process dies mid-event, is claimed again)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import msgspec
import pytest
from redis import Redis

from benthic.feed.encoding import DATA_FIELD, encode_message

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "integration_consumer.py"
WAIT_S = 60.0  # bounds a wait for the consumer's output: a failure, not a measure


def _publish(redis: Redis, stream: str, ids: list[str]) -> None:
    for event_id in ids:  # as the projection publishes them (benthic.feed.integration)
        body = msgspec.json.encode({"id": event_id, "type": "game.created", "game_id": "g"})
        redis.xadd(stream, {DATA_FIELD: encode_message(body, {"correlation_id": event_id,
                                                             "content-type": "application/json"})})


class Consumer:
    """The example as a process; its stdout (one JSON event a line) in a file."""

    def __init__(self, redis_url: str, stream: str, group: str, out: Path, *flags: str) -> None:
        env = {**os.environ, "REDIS_URL": redis_url, "BENTHIC_INTEGRATION_STREAM": stream, "CONSUMER_GROUP": group,
               "CONSUMER_NAME": "consumer-1", "CLAIM_IDLE_MS": "300"}
        self.out = out
        with out.open("wb") as stdout, out.with_suffix(".log").open("wb") as stderr:
            self.process = subprocess.Popen([sys.executable, str(EXAMPLE), *flags], stdout=stdout, stderr=stderr,
                                            env=env)

    def ids(self) -> list[str]:
        return [json.loads(line)["id"] for line in self.out.read_text().splitlines() if line.strip()]

    def until(self, count: int) -> list[str]:
        deadline = time.monotonic() + WAIT_S
        while len(ids := self.ids()) < count:
            log = self.out.with_suffix(".log").read_text()
            assert self.process.poll() is None, f"the consumer exited: {log[-3000:]}"
            assert time.monotonic() < deadline, f"{ids} after {WAIT_S}s; its log: {log[-3000:]}"
            time.sleep(0.1)
        return ids

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


@pytest.fixture
def sync_redis(redis_url: str) -> Iterator[Redis]:
    client = Redis.from_url(redis_url)
    try:
        yield client
    finally:
        client.close()


@pytest.mark.parametrize("again", [(), ("--from-start",)], ids=["restarted", "restarted-from-start"])
def test_a_restarted_consumer_goes_on_from_its_group(
    redis_url: str, sync_redis: Redis, tmp_path: Path, again: tuple[str, ...]
) -> None:
    stream, group = f"it:{uuid.uuid4().hex[:8]}", f"team-{uuid.uuid4().hex[:6]}"
    first = [f"e{i}" for i in range(5)]
    _publish(sync_redis, stream, first)
    consumer = Consumer(redis_url, stream, group, tmp_path / "first.jsonl", "--from-start")
    try:
        assert consumer.until(len(first)) == first
    finally:
        consumer.stop()
    assert sync_redis.xpending(stream, group)["pending"] == 0, "every event handled was acknowledged"

    later = [f"e{i}" for i in range(5, 10)]
    _publish(sync_redis, stream, later)
    # the first of them delivered to the consumer, never acknowledged: as if it had died handling it
    sync_redis.xreadgroup(group, "consumer-1", {stream: ">"}, count=1)
    assert sync_redis.xpending(stream, group)["pending"] == 1

    consumer = Consumer(redis_url, stream, group, tmp_path / "again.jsonl", *again)
    try:
        handled = consumer.until(len(later))
        assert sorted(handled) == later, "the events after the group's position, each once, none acknowledged again"
        deadline = time.monotonic() + WAIT_S
        while sync_redis.xpending(stream, group)["pending"]:
            assert time.monotonic() < deadline, "the claimed event was not acknowledged"
            time.sleep(0.1)
    finally:
        consumer.stop()
