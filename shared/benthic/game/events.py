"""The envelope the store keeps around every event.  The platform events (kind ``p``) are
``benthic.game.platform_events``."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

import msgspec

ENGINE = "e"  # an event of the game's rules engine
PLATFORM = "p"  # an event the platform adds (benthic.game.platform_events)


class Envelope(msgspec.Struct, frozen=True):
    """One entry of a game stream, with the metadata of the commit it belongs to."""

    version: int
    type: str
    data: bytes  # the event's JSON
    kind: str = ENGINE
    command_id: str = ""
    seat: int | None = None
    ts_ms: int = 0
    actor: str = ""  # audit: who acted (player id, or a backend's client id)
    actor_kind: str = ""  # audit: with which credential (player, matchmaker, operator, bot)
    engine_version: int = 1  # of the engine that recorded it (entries without one predate versioning: 1)

    @property
    def is_engine(self) -> bool:
        return self.kind == ENGINE


_digest_encoder = msgspec.msgpack.Encoder()


def event_digest(envelopes: Iterable[Envelope]) -> str:
    """SHA-256 over every entry of a game stream in order (version, type, kind, data, command id, seat,
    timestamp, actor, actor kind, engine version): the same digest whether the entries come from Redis or from
    the archive."""
    digest = hashlib.sha256()
    for e in envelopes:
        digest.update(_digest_encoder.encode((e.version, e.type, e.kind, e.data, e.command_id, e.seat, e.ts_ms,
                                              e.actor, e.actor_kind, e.engine_version)))
    return "sha256:" + digest.hexdigest()
