"""Scoring's AsyncAPI document (its ``GET /asyncapi.json``) names its subscription as it runs: a reader and a claimer
of the consumer group ``scoring`` on every partition's lifecycle feed, each message the feed notification's JSON
Schema (which a real notification satisfies), and the Redis server without its credentials."""

from __future__ import annotations

import json

import jsonschema
import msgspec

from benthic.feed.keys import lifecycle_key
from benthic.feed.notification import Notification
from benthic.runtime.config import Settings
from benthic.service.asyncapi import subscription_document
from services.scoring.app import subscription


def _document() -> dict:  # type: ignore[type-arg]
    settings = Settings(redis_url="redis://scorer:s3cret-pw@redis-a:6380/2", consumer_name="pod-7")
    group = subscription(settings, None)  # type: ignore[arg-type]  # never started: the document only
    return subscription_document(group.broker, "scoring", "its subscription", Notification)


def test_every_lifecycle_feed_has_a_reader_and_a_claimer_of_the_scoring_group() -> None:
    document = _document()
    assert document["asyncapi"].startswith("3.")
    bindings = [channel["bindings"]["redis"] for channel in document["channels"].values()]
    assert sorted(b["channel"] for b in bindings) == sorted([lifecycle_key(p) for p in range(16)] * 2)
    assert {(b["groupName"], b["consumerName"]) for b in bindings} == {("scoring", "scoring-pod-7")}
    assert len(document["operations"]) == 32
    assert {o["action"] for o in document["operations"].values()} == {"receive"}


def test_each_message_is_a_feed_notification_and_the_server_has_no_credentials() -> None:
    document = _document()
    messages = document["components"]["messages"].values()
    assert {json.dumps(m["payload"]) for m in messages} == {'{"$ref": "#/components/schemas/Notification"}'}
    schema = document["components"]["schemas"]["Notification"]
    note = Notification(game_id="g", game_type="nautilus", kind="events", first_version=3, last_version=4,
                        ts_ms=5, ended=True, types=["game_scored"])
    jsonschema.validate(msgspec.to_builtins(note), schema)
    assert "EmptyPayload" not in document["components"]["schemas"]
    text = json.dumps(document)
    assert "s3cret-pw" not in text and "scorer:" not in text
    assert document["servers"]["development"]["host"] == "redis-a:6380"
