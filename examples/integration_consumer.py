"""A platform team's consumer of Benthic's public integration events (docs/INTEGRATION_EVENTS.md): a FastStream
application reading the integration stream in a consumer group and printing each event as one JSON line.

    REDIS_URL=redis://127.0.0.1:6379/0 python examples/integration_consumer.py [--from-start]
    # or: faststream run examples.integration_consumer:app

Environment: ``REDIS_URL``, ``BENTHIC_INTEGRATION_STREAM`` (default ``benthic:integration``), ``CONSUMER_GROUP``
(default ``integration-example``: one group per consuming team; its members share the events), ``CONSUMER_NAME``
(default ``consumer-1``: one per process).  ``--from-start``: a new group starts from the oldest event the stream
still holds (otherwise from the events published after it was created).

Delivery is at least once: an event may come twice (same ``id``), so the handler drops the ids it has seen (a real
consumer keeps them with what it stores).  FastStream acknowledges an event once the handler returns; an event whose
handler raised stays pending in the group.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import sys
from typing import Any

from faststream import FastStream
from faststream.redis import RedisBroker, StreamSub

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
STREAM = os.environ.get("BENTHIC_INTEGRATION_STREAM", "benthic:integration")
GROUP = os.environ.get("CONSUMER_GROUP", "integration-example")
CONSUMER = os.environ.get("CONSUMER_NAME", "consumer-1")
FROM_START = "--from-start" in sys.argv[1:]

logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
broker = RedisBroker(REDIS_URL, logger=logging.getLogger("integration_consumer"))  # logs on stderr, events on stdout
app = FastStream(broker)
seen: set[str] = set()


@broker.subscriber(stream=StreamSub(STREAM, group=GROUP, consumer=CONSUMER, last_id="0" if FROM_START else "$"))
async def on_event(event: dict[str, Any]) -> None:
    """One integration event (its ``type`` says which: game.created, turn.started, rating.changed...)."""
    if event["id"] in seen:
        return
    seen.add(event["id"])
    print(json.dumps(event, sort_keys=True), flush=True)


@app.after_startup
async def ready() -> None:
    print(f"consuming {STREAM} as {GROUP}/{CONSUMER}", file=sys.stderr, flush=True)


if __name__ == "__main__":
    asyncio.run(app.run())
