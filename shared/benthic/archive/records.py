"""What the archive keeps of a finished game, and how it is packed: the event log and the read models are
MessagePack (every stream entry as an array) compressed with Zstandard; digests are SHA-256."""

from __future__ import annotations

import hashlib
from typing import Any

import msgspec
import zstandard

from benthic.game.events import Envelope, event_digest
from benthic.store import SeatInfo

CODEC = "msgpack+zstd"
_LEVEL = 9  # a finished game is written once and read rarely: spend a little CPU on a smaller record


class ArchivedGame(msgspec.Struct, frozen=True):
    """A finished game as it is put into the archive and as ``get`` returns it."""

    game_id: str
    game_type: str
    engine_version: str
    options: dict[str, Any]
    seats: list[SeatInfo | None]
    created_ms: int
    finished_ms: int  # when the game ended (its last engine event)
    envelopes: list[Envelope]  # every stream entry, platform events (game_scored) included
    read_models: dict[str, bytes]  # the read-model hash as served: summary, view:pub, view:<seat>, scores, ...
    archived_ms: int = 0  # set by the archive

    @property
    def last_version(self) -> int:
        return self.envelopes[-1].version if self.envelopes else 0

    @property
    def event_count(self) -> int:
        return len(self.envelopes)

    @property
    def digest(self) -> str:
        return event_digest(self.envelopes)

    @property
    def players(self) -> list[str]:
        return [s.player_id for s in self.seats if s is not None]


class ArchiveInfo(msgspec.Struct, frozen=True):
    """An archived game without its event log and read models: what ``info`` and ``find`` return."""

    game_id: str
    game_type: str
    engine_version: str
    options: dict[str, Any]
    seats: list[SeatInfo | None]
    created_ms: int
    finished_ms: int
    archived_ms: int
    last_version: int
    event_count: int
    digest: str
    codec: str
    events_bytes: int  # compressed, as stored
    events_raw_bytes: int
    read_models_bytes: int
    read_models_raw_bytes: int


class _Entry(msgspec.Struct, array_like=True, frozen=True):
    """One stream entry in the packed log: an array, not a map (no field names repeated per event)."""

    version: int
    type: str
    kind: str
    data: bytes
    command_id: str
    seat: int | None
    ts_ms: int
    actor: str = ""
    actor_kind: str = ""
    engine_version: int = 1


_entries_decoder = msgspec.msgpack.Decoder(list[_Entry])
_models_decoder = msgspec.msgpack.Decoder(dict[str, bytes])
_encoder = msgspec.msgpack.Encoder()


def pack_events(envelopes: list[Envelope]) -> tuple[bytes, int]:
    """(compressed log, its uncompressed size)."""
    raw = _encoder.encode(
        [_Entry(e.version, e.type, e.kind, e.data, e.command_id, e.seat, e.ts_ms, e.actor, e.actor_kind,
                e.engine_version) for e in envelopes]
    )
    return zstandard.ZstdCompressor(level=_LEVEL).compress(raw), len(raw)


def unpack_events(blob: bytes) -> list[Envelope]:
    entries = _entries_decoder.decode(zstandard.ZstdDecompressor().decompress(blob))
    return [Envelope(e.version, e.type, e.data, e.kind, e.command_id, e.seat, e.ts_ms, e.actor, e.actor_kind,
                     e.engine_version) for e in entries]


def pack_read_models(models: dict[str, bytes]) -> tuple[bytes, int]:
    raw = _encoder.encode(dict(sorted(models.items())))
    return zstandard.ZstdCompressor(level=_LEVEL).compress(raw), len(raw)


def unpack_read_models(blob: bytes) -> dict[str, bytes]:
    return _models_decoder.decode(zstandard.ZstdDecompressor().decompress(blob))


def read_models_digest(models: dict[str, bytes]) -> str:
    digest = hashlib.sha256()
    for field, value in sorted(models.items()):
        digest.update(_encoder.encode((field, value)))
    return "sha256:" + digest.hexdigest()
