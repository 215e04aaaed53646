"""The feed notification: what a partition feed entry says about one commit or join."""

from __future__ import annotations

import msgspec


class Notification(msgspec.Struct, frozen=True, omit_defaults=True):
    """The body of a partition feed entry (inside FastStream's message format).  ``types`` lists the event
    types of a platform commit (``game_scored``, ...); an engine commit leaves it empty to keep the feed small."""

    game_id: str
    game_type: str
    kind: str  # "events" | "seats"
    first_version: int = 0
    last_version: int = 0
    ts_ms: int = 0
    ended: bool = False
    types: list[str] = []


notification_encoder = msgspec.json.Encoder()
notification_decoder = msgspec.json.Decoder(Notification)
