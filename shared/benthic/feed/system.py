"""The system as data (in the spirit of the eventsourcing library's ``system.py``): every stream a service follows,
through which consumer group and which mechanism, with what guarantee.  Each service builds its consumer from its
row (``follower("scoring")``: the group, the keys, the mechanism); docs/OPERATIONS.md's table "What follows what"
is this table rendered (``scripts/system_table.py`` writes it; tests/unit/test_system.py fails when it differs, when
a row's mechanism is not what its service builds, or when the README's picture of a move leaves a follower out).

Two mechanisms, one per kind of follower:

- ``feed-consumer`` (``benthic.feed.consumer.FeedConsumer``) for the followers that take a **batch** of entries of
  many partitions at once and ack it in one pipeline: one blocking ``XREADGROUP`` over every partition, a round
  trip per batch whatever it holds (the projection, the bots, the archiver, the matchmaker: their handlers are
  idempotent by version or by command id, so a batch retried whole costs nothing but time);
- ``faststream`` (``benthic.feed.faststream_groups.GroupSubscription``) for the followers that handle **one entry at
  a time** and must set a failing one aside without holding the rest: a retry count per entry and a dead-letter
  stream (scoring: one game that cannot be scored must not stop the others; the notifier: one key, the stream of
  the events of players with a webhook, whose failing events stay pending until the queue drains).  The
  integration stream itself is followed by no service of the platform: it is the platform teams' (their own
  consumers, ``examples/integration_consumer.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from benthic.feed.integration import webhook_stream
from benthic.feed.keys import feed_key, lifecycle_key, managed_key
from benthic.runtime.config import Settings

FEED_CONSUMER = "feed-consumer"
FASTSTREAM = "faststream"


@dataclass(frozen=True)
class Stream:
    name: str
    pattern: str  # its Redis key, as the docs write it
    holds: str
    partition_key: Callable[[int], str] | None = None  # a key per partition
    setting_key: Callable[[Settings], str] | None = None  # else one key, named by the settings

    def keys(self, settings: Settings) -> list[str]:
        if self.partition_key is not None:
            return [self.partition_key(partition) for partition in range(settings.partitions)]
        assert self.setting_key is not None
        return [self.setting_key(settings)]


FEED = Stream("feed", "{pK}:feed", "every commit and join of the partition's games", feed_key)
LIFECYCLE = Stream("lifecycle", "{pK}:lifecycle", "the commits that end a game or carry platform events",
                   lifecycle_key)
MANAGED = Stream("managed", "{pK}:managed", "the commits and joins of the games the bots service looks after",
                 managed_key)
INTEGRATION = Stream("integration", "benthic:integration",
                     "the public integration events (BENTHIC_INTEGRATION_STREAM), for the platform's own consumers",
                     setting_key=lambda settings: settings.integration_stream)
WEBHOOKS = Stream("webhooks", "{webhooks:benthic:integration}:events",
                  "the integration events of players with a webhook, copied there by their publishers",
                  setting_key=lambda settings: webhook_stream(settings.integration_stream))
STREAMS = (FEED, LIFECYCLE, MANAGED, INTEGRATION, WEBHOOKS)


@dataclass(frozen=True)
class Follower:
    service: str
    group: str
    stream: Stream
    mechanism: str
    does: str
    guarantee: str

    def feed(self, partition: int) -> str:
        """The key of the followed stream in ``partition`` (a partitioned stream)."""
        if self.stream.partition_key is None:
            raise ValueError(f"{self.stream.name} is not partitioned")
        return self.stream.partition_key(partition)


FOLLOWERS = (
    Follower("projection", "projection", FEED, FEED_CONSUMER, "read models, views, deltas, live pushes",
             "at least once; its effect once by version"),
    Follower("scoring", "scoring", LIFECYCLE, FASTSTREAM, "game_scored, ratings, leaderboards",
             "at least once; its effect once (command id score:<game>, the ratings' marker)"),
    Follower("archiver", "archiver", LIFECYCLE, FEED_CONSUMER, "schedules scored games for the archive",
             "at least once; each game archived exactly once"),
    Follower("matchmaker", "matchmaker", LIFECYCLE, FEED_CONSUMER, "a move that ends a vacation ends it everywhere",
             "at least once; its effect once (the vacation's command ids)"),
    Follower("bots", "bots", MANAGED, FEED_CONSUMER, "bot moves and turn clocks, through the command path",
             "at least once; one move per prompt (the expected version)"),
    Follower("notifier", "notifier", WEBHOOKS, FASTSTREAM, "webhooks: turn.started, game.finished, match.found, ...",
             "at least once; deliveries at least once"),
)


def follower(service: str) -> Follower:
    for row in FOLLOWERS:
        if row.service == service:
            return row
    raise KeyError(f"{service} follows no stream (benthic.feed.system.FOLLOWERS)")


def markdown() -> str:
    """The table of docs/OPERATIONS.md's "What follows what"."""
    lines = ["| stream | holds | followed by | consumer group | mechanism | does | guarantee |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for row in FOLLOWERS:
        lines.append(f"| `{row.stream.pattern}` | {row.stream.holds} | {row.service} | `{row.group}` | {row.mechanism} "
                     f"| {row.does} | {row.guarantee} |")
    return "\n".join(lines) + "\n"
