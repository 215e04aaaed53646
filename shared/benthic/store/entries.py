"""The layout of a game stream's entries.

Every entry has the same two fields, so Redis keeps the field names once per stream node: ``d``, the event's
JSON (which names its own type), and ``m``, the commit's metadata on the first event of each commit (empty on
the others: they share it).  Entry ID = ``<version>-0``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import msgspec

from benthic.game.events import ENGINE, Envelope

DATA = b"d"
HEAD = b"m"
_TYPE_PREFIX = b'{"type":"'


class CommitHead(msgspec.Struct, frozen=True, array_like=True):
    """What every event of one commit shares."""

    ts_ms: int
    events: int
    kind: str = ENGINE
    command_id: str = ""
    seat: int | None = None
    actor: str = ""
    actor_kind: str = ""
    engine_version: int = 1  # of the engine that recorded the commit's events (heads without one predate it: 1)


_head_encoder = msgspec.msgpack.Encoder()
_head_decoder = msgspec.msgpack.Decoder(CommitHead)
_type_decoder = msgspec.json.Decoder(dict[str, object])


def encode_head(head: CommitHead) -> bytes:
    return _head_encoder.encode(head)


def decode_head(raw: bytes) -> CommitHead:
    return _head_decoder.decode(raw)


def event_type(data: bytes) -> str:
    """The ``type`` of an event's JSON: msgspec writes a tagged struct's tag first, so this is a slice."""
    if data.startswith(_TYPE_PREFIX):
        end = data.find(b'"', len(_TYPE_PREFIX))
        if end > 0:
            return data[len(_TYPE_PREFIX):end].decode()
    value = _type_decoder.decode(data).get("type")
    return value if isinstance(value, str) else ""


def version_of(entry_id: bytes | str) -> int:
    raw = entry_id.encode() if isinstance(entry_id, str) else entry_id
    return int(raw.split(b"-", 1)[0])


def starts_inside_commit(entries: Sequence[tuple[bytes, dict[bytes, bytes]]]) -> bool:
    return bool(entries) and not entries[0][1].get(HEAD)


def envelopes(entries: Iterable[tuple[bytes, dict[bytes, bytes]]], head: CommitHead | None = None) -> list[Envelope]:
    """Envelopes of consecutive entries.  ``head`` is the commit of the first entry when the entries start
    inside a commit (see ``starts_inside_commit``)."""
    out: list[Envelope] = []
    for entry_id, fields in entries:
        raw_head = fields.get(HEAD)
        if raw_head:
            head = decode_head(raw_head)
        data = fields[DATA]
        if head is None:
            raise ValueError(f"stream entry {entry_id!r} has no commit metadata before it")
        out.append(
            Envelope(
                version=version_of(entry_id),
                type=event_type(data),
                data=data,
                kind=head.kind,
                command_id=head.command_id,
                seat=head.seat,
                ts_ms=head.ts_ms,
                actor=head.actor,
                actor_kind=head.actor_kind,
                engine_version=head.engine_version,
            )
        )
    return out


def last_head(entries: Sequence[tuple[bytes, dict[bytes, bytes]]]) -> CommitHead | None:
    """The newest commit head among entries read backwards (XREVRANGE order)."""
    for _entry_id, fields in entries:
        raw_head = fields.get(HEAD)
        if raw_head:
            return decode_head(raw_head)
    return None
