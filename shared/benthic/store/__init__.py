"""The event store on Redis Streams: appends (one Lua script per commit), loads, snapshots."""

from benthic.store.eventstore import EventStore
from benthic.store.records import (
    Actor,
    Commit,
    GameMeta,
    GameNotFound,
    JoinRefused,
    NewEvent,
    SeatInfo,
    Snapshot,
    VersionConflict,
    parse_meta,
)

__all__ = [
    "Actor",
    "Commit",
    "EventStore",
    "GameMeta",
    "GameNotFound",
    "JoinRefused",
    "NewEvent",
    "SeatInfo",
    "Snapshot",
    "VersionConflict",
    "parse_meta",
]
