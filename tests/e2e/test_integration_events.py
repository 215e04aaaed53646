"""End to end: a bot game of every type, played over HTTP on the services as processes, leaves its public
integration events on the integration stream in order, with nothing a spectator does not see, and the example
FastStream consumer (examples/integration_consumer.py, a real process) receives them; the read API serves their
AsyncAPI document."""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import msgspec
import pytest
from redis.asyncio import Redis

from benthic.clients.bots_http import HttpGame, start_bot_game
from benthic.clients.client import ApiFailure, BenthicClient
from benthic.feed.encoding import DATA_FIELD, decode_message
from benthic.feed.integration import EVENTS, event_type
from benthic.local.localplatform import LocalPlatform
from benthic.rules import game_types, get_engine
from tests.e2e.waiting import until
from tests.engine_harness import hidden_from, strings_in
from tests.platform_helpers import GENEROUS_LIMITS, PlatformFactory, raw_game

GAMES = game_types()
STREAM = f"benthic:integration:e2e-{uuid.uuid4().hex[:8]}"
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "integration_consumer.py"
FIELDS = {event_type(e): {f.encode_name for f in msgspec.structs.fields(e)} | {"type"} for e in EVENTS}
ORDER = re.compile(r"game\.created game\.started( turn\.started)+ game\.finished game\.scored( rating\.changed)+")
CLOCK = {"clock": {"mode": "per_move", "per_move_s": 3600}}


@pytest.fixture(scope="module")
def platform(make_platform: PlatformFactory) -> LocalPlatform:
    return make_platform({**GENEROUS_LIMITS, "BENTHIC_INTEGRATION_STREAM": STREAM})


@pytest.fixture(scope="module")
def consumer_output(platform: LocalPlatform, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The example consumer as a process, in its own group from the stream's start; its stdout's file."""
    out = tmp_path_factory.mktemp("consumer") / "stdout.jsonl"
    env = {**os.environ, "REDIS_URL": platform.redis_url, "BENTHIC_INTEGRATION_STREAM": STREAM,
           "CONSUMER_GROUP": f"e2e-{uuid.uuid4().hex[:6]}", "CONSUMER_NAME": "e2e-1"}
    with out.open("wb") as stdout, out.with_suffix(".log").open("wb") as stderr:  # files: a full pipe would block it
        process = subprocess.Popen([sys.executable, str(EXAMPLE), "--from-start"], stdout=stdout, stderr=stderr,
                                   env=env)
    try:
        yield out
    finally:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _stream_events(platform: LocalPlatform, game_id: str) -> list[dict[str, Any]]:
    redis = Redis.from_url(platform.redis_url)
    try:
        entries = await redis.xrange(STREAM)
    finally:
        await redis.aclose()
    events = [msgspec.json.decode(decode_message(fields[DATA_FIELD.encode()])) for _, fields in entries]
    return [e for e in events if e["game_id"] == game_id]


def _consumed(path: Path, game_id: str) -> list[dict[str, Any]]:
    lines = path.read_text().splitlines()
    return [e for e in (json.loads(line) for line in lines if line.strip()) if e["game_id"] == game_id]


@pytest.mark.parametrize("game_type", GAMES)
async def test_a_bot_game_publishes_its_public_events_in_order_and_the_example_consumer_gets_them(
    platform: LocalPlatform, client: BenthicClient, consumer_output: Path, game_type: str
) -> None:
    engine = get_engine(game_type)
    seats = engine.max_seats
    game_id, tokens = await start_bot_game(client, game_type, seats, name=f"ie{uuid.uuid4().hex[:4]}", options=CLOCK)
    await HttpGame(client, game_id, tokens, random.Random(11)).play()
    players = [s["player_id"] for s in (await client.summary(game_id))["seats"]]

    async def all_published() -> list[dict[str, Any]] | None:
        events = await _stream_events(platform, game_id)
        return events if sum(e["type"] == "rating.changed" for e in events) == seats else None

    events = await until(all_published, "every event of the game on the stream")
    assert ORDER.fullmatch(" ".join(e["type"] for e in events)), [e["type"] for e in events]
    assert len({e["id"] for e in events}) == len(events), "ids are unique"
    versions = [e["version"] for e in events if "version" in e]
    assert versions == sorted(versions), "in the order of the game's versions"
    for event in events:  # nothing beyond the event's Struct
        assert set(event) == FIELDS[event["type"]], event
        assert event["schema_version"] == 1 and event["game_type"] == game_type

    # nothing hidden: no secret of the game's state at the event's version, and what a spectator sees then
    engine_, envelopes, states = await raw_game(platform, game_id)
    summary = await client.summary(game_id)
    created, started = events[0], events[1]
    assert [s["player_id"] for s in created["seats"]] == players == [s["player_id"] for s in started["seats"]]
    assert [s["name"] for s in created["seats"]] == [s["name"] for s in summary["seats"]]
    turns = [e for e in events if e["type"] == "turn.started"]
    for turn in turns:
        state = states[turn["version"] - 1]
        assert not hidden_from(engine_, state, None) & strings_in(turn)
        prompt = engine_.prompt(state)
        assert turn["seats"] == list(prompt.seats) and turn["prompt"] == prompt.kind
        seen = await client.view(game_id, at=turn["version"])
        clock = seen["lifecycle"]["clock"]
        assert turn["deadline_ms"] == (clock["deadline_ms"] if clock else None)
    assert any(t["deadline_ms"] for t in turns), "the clock runs once the bots service started it"
    for event in events:
        assert not hidden_from(engine_, states[-1], None) & strings_in(event)
    finished = next(e for e in events if e["type"] == "game.finished")
    assert finished["outcome"] == "completed" and envelopes[finished["version"] - 1].type != "game_scored"
    scored = next(e for e in events if e["type"] == "game.scored")
    served = await until(lambda: client.scores(game_id), "final scores", retry_on=(ApiFailure,))
    assert [(r["seat"], r["score"], r["rank"]) for r in scored["results"]] == [
        (r["seat"], r["score"], r["rank"]) for r in served["results"]]
    assert envelopes[scored["version"] - 1].type == "game_scored" and scored["rated"]
    board = {p["player_id"]: p for p in (await client.leaderboard(game_type, 500))["players"]}
    for change in (e for e in events if e["type"] == "rating.changed"):
        ranked = board[change["player_id"]]
        assert (ranked["mu"], ranked["sigma"]) == pytest.approx((change["mu"], change["sigma"]), abs=1e-3)
    assert {e["player_id"] for e in events if e["type"] == "rating.changed"} == set(players)

    consumed = await until(lambda: _settled(consumer_output, game_id, len(events)), "the example consumer's output")
    assert consumed == events


async def _settled(path: Path, game_id: str, count: int) -> list[dict[str, Any]] | None:
    consumed = _consumed(path, game_id)
    return consumed if len(consumed) >= count else None


def test_the_read_api_serves_the_asyncapi_document_of_every_event(platform: LocalPlatform) -> None:
    document = httpx.get(f"{platform.read_url}/asyncapi.json", timeout=10).json()
    assert document["asyncapi"].startswith("3.")
    schemas = document["components"]["schemas"]
    for event in EVENTS:
        channel = document["channels"][event_type(event)]
        assert channel["address"] == STREAM and channel["bindings"]["redis"]["method"] == "xadd"
        payload = schemas[f"{event_type(event)}:Message:Payload"]
        assert schemas[payload["$ref"].rpartition("/")[2]]["properties"].keys() == FIELDS[event_type(event)]
