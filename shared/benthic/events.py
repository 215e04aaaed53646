"""The envelope the store keeps around every event, platform events, and the feed notification."""

from __future__ import annotations

from typing import Any

import msgspec

ENGINE = "e"  # an event of the game's rules engine
PLATFORM = "p"  # an event the platform adds (game_scored)


class Envelope(msgspec.Struct, frozen=True):
    """One entry of a game stream, with the metadata of the commit it belongs to."""

    version: int
    type: str
    data: bytes  # the event's JSON
    kind: str = ENGINE
    command_id: str = ""
    seat: int | None = None
    ts_ms: int = 0
    actor: str = ""  # who acted (a player id), when known
    credential: str = ""  # how they proved it (player, matchmaker, operator, bot)

    @property
    def is_engine(self) -> bool:
        return self.kind == ENGINE


class GameScored(msgspec.Struct, frozen=True, tag_field="type", tag="game_scored"):
    """Appended by the scoring service from the engine's final_scores."""

    game_type: str
    results: list[dict[str, Any]]
    details: dict[str, Any] = {}
    players: list[str] = []


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
