"""A platform team's consumer of Benthic's public integration events (docs/INTEGRATION_EVENTS.md): a FastStream
application reading the integration stream in a consumer group and printing each event as one JSON line.

    REDIS_URL=redis://127.0.0.1:6379/0 python examples/integration_consumer.py [--from-start]
    # or: faststream run examples.integration_consumer:app

Environment: ``REDIS_URL``, ``BENTHIC_INTEGRATION_STREAM`` (default ``benthic:integration``), ``CONSUMER_GROUP``
(default ``integration-example``: one group per consuming team; its members share the events), ``CONSUMER_NAME``
(default ``consumer-1``: one per process), ``CLAIM_IDLE_MS`` (default 30000).  ``--from-start``: a new group
starts from the oldest event the stream still holds (otherwise from the events published after it was created).

Delivery is at least once: an event may come twice (same ``id``), so the handler drops the ids it has seen (a real
consumer keeps them with what it stores).  FastStream acknowledges an event once the handler returns; an event whose
handler raised stays pending in the group, and so does one delivered to a process that died before acknowledging
it: the second subscriber claims such events once idle for ``CLAIM_IDLE_MS`` and handles them again.

Stopped and started again, the consumer goes on where its group is: with the events after the last one delivered
to the group (``>``), nothing acknowledged again, nothing skipped.  (The group is made here, once, at ``$`` or
``0``; a FastStream subscriber given ``last_id="$"`` or ``"0"`` makes the group on its first start but then reads
from that id on every later start: ``$`` is refused by ``XREADGROUP``, ``0`` reads only its own pending events.)
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
from redis.asyncio import Redis
from redis.exceptions import ResponseError

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/0")
STREAM = os.environ.get("BENTHIC_INTEGRATION_STREAM", "benthic:integration")
GROUP = os.environ.get("CONSUMER_GROUP", "integration-example")
CONSUMER = os.environ.get("CONSUMER_NAME", "consumer-1")
CLAIM_IDLE_MS = int(os.environ.get("CLAIM_IDLE_MS", "30000"))
FROM_START = "--from-start" in sys.argv[1:]

logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
broker = RedisBroker(REDIS_URL, logger=logging.getLogger("integration_consumer"))  # logs on stderr, events on stdout
app = FastStream(broker)
seen: set[str] = set()


@app.on_startup
async def make_group() -> None:
    """The consumer group, at its first start only: from the events published after now, or (``--from-start``)
    from the oldest the stream holds.  Once it exists, the group alone says where its consumers are."""
    redis = Redis.from_url(REDIS_URL)
    try:
        await redis.xgroup_create(STREAM, GROUP, id="0" if FROM_START else "$", mkstream=True)
    except ResponseError as error:
        if "BUSYGROUP" not in str(error):
            raise
    finally:
        await redis.aclose()


@broker.subscriber(stream=StreamSub(STREAM, group=GROUP, consumer=CONSUMER, last_id=">"))  # never delivered yet
@broker.subscriber(stream=StreamSub(STREAM, group=GROUP, consumer=CONSUMER, last_id=">",
                                    min_idle_time=CLAIM_IDLE_MS))  # delivered, never acknowledged: claimed again
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
