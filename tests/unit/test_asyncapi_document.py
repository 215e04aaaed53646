"""The AsyncAPI document of the integration events (``GET /asyncapi.json`` of the read API) names every event type
and gives each the JSON Schema of its Struct, which the events' own JSON satisfies."""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import msgspec
import pytest

from benthic.feed.integration import (
    EVENTS,
    GameCreated,
    GameFinished,
    GameScored,
    GameStarted,
    IntegrationEvent,
    MatchedSeat,
    MatchFound,
    RatingChanged,
    SeatHolder,
    SeatResult,
    TicketExpired,
    TurnStarted,
    event_type,
)
from benthic.runtime.config import from_env
from benthic.service.asyncapi import asyncapi_document
from services.projection.app import create_app

STREAM = "benthic:integration"
EXAMPLES: list[IntegrationEvent] = [
    GameCreated(id="g:game.created", game_id="g", game_type="nautilus", at=1, version=8, status="open", rated=True,
                seats=[SeatHolder(seat=0, kind="player", player_id="p", name="P"), SeatHolder(seat=1, kind="open")]),
    GameStarted(id="g:game.started", game_id="g", game_type="nautilus", at=2, version=8,
                seats=[SeatHolder(seat=0, kind="bot", player_id="b", name="B", bot="greedy")]),
    TurnStarted(id="g:9:turn.started", game_id="g", game_type="nautilus", at=3, version=9, seats=[0, 1],
                prompt="choose", deadline_ms=5),
    GameFinished(id="g:game.finished", game_id="g", game_type="nautilus", at=4, version=90, outcome="aborted",
                 reason="operator"),
    GameScored(id="g:game.scored", game_id="g", game_type="nautilus", at=5, version=91, rated=False,
               results=[SeatResult(seat=0, player_id=None, score=3, rank=1)]),
    RatingChanged(id="g:p:rating", game_id="g", game_type="nautilus", at=6, player_id="p", rating=1.5, mu=26.0,
                  sigma=8.0),
    MatchFound(id="m:match.found", game_id="g", game_type="nautilus", at=7, match_id="m", rated=True, pace="daily",
               seats=[MatchedSeat(seat=0, player_id="p", ticket_id="t"), MatchedSeat(seat=1, player_id="q")]),
    TicketExpired(id="t:ticket.expired", game_type="nautilus", at=8, ticket_id="t", player_id="p", waited_ms=5),
]


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return json.loads(json.dumps(asyncapi_document(STREAM)))  # what is served: plain JSON


def _resolve(document: dict[str, Any], ref: str) -> Any:
    node: Any = document
    for part in ref.removeprefix("#/").split("/"):
        node = node[part]
    return node


def test_the_document_names_every_event_type_on_the_stream(document: dict[str, Any]) -> None:
    assert document["asyncapi"] == "3.0.0"
    types = [event_type(e) for e in EVENTS]
    assert types == ["game.created", "game.started", "turn.started", "game.finished", "game.scored", "rating.changed",
                     "match.found", "ticket.expired"]
    for type_ in types:
        channel = document["channels"][type_]
        assert channel["address"] == STREAM
        assert channel["bindings"]["redis"] == {"channel": STREAM, "method": "xadd", "bindingVersion": "custom"}
        assert document["operations"][type_]["action"] == "send"
    subscriber = document["channels"]["consume"]["bindings"]["redis"]
    assert subscriber["method"] == "xreadgroup" and subscriber["channel"] == STREAM


def test_each_message_schema_is_its_structs(document: dict[str, Any]) -> None:
    _, components = msgspec.json.schema_components(EVENTS, ref_template="#/components/schemas/{name}")
    schemas = document["components"]["schemas"]
    for name, schema in components.items():
        assert schemas[name] == json.loads(json.dumps(schema)), name
    for event in EVENTS:
        message = _resolve(document, document["channels"][event_type(event)]["messages"]["Message"]["$ref"])
        payload = _resolve(document, message["payload"]["$ref"])
        assert _resolve(document, payload["$ref"]) == schemas[event.__name__]
        assert schemas[event.__name__]["properties"]["type"] == {"enum": [event_type(event)]}


def test_every_event_validates_against_its_message_payload_and_no_other(document: dict[str, Any]) -> None:
    assert {type(e) for e in EXAMPLES} == set(EVENTS)
    for example in EXAMPLES:
        body = json.loads(msgspec.json.encode(example))
        for event in EVENTS:
            schema = {"$ref": f"#/components/schemas/{event_type(event)}:Message:Payload", **document}
            if isinstance(example, event):
                jsonschema.validate(body, schema)
            else:
                with pytest.raises(jsonschema.ValidationError):
                    jsonschema.validate(body, schema)
        union = {"$ref": "#/components/schemas/consume:Message:Payload", **document}
        jsonschema.validate(body, union)


def test_the_read_api_routes_the_document() -> None:
    app = create_app(from_env({"REDIS_URL": "redis://127.0.0.1:1/0"}))
    assert "/asyncapi.json" in {route.path for route in app.routes}
