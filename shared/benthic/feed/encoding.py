"""Partition feed entries in FastStream's Redis message format (``BinaryMessageFormatV1`` under the
``__data__`` field), so a FastStream ``StreamSub`` consumer parses what the Lua append writes."""

from __future__ import annotations

from struct import pack, unpack_from

from benthic.feed.notification import Notification, notification_encoder

DATA_FIELD = "__data__"
_IDENTITY = b"\x89BIN\x0d\x0a\x1a\x0a"
_VERSION = 1


def _string(value: str) -> bytes:
    raw = value.encode()
    return pack(">H", len(raw)) + raw


def encode_message(body: bytes, headers: dict[str, str]) -> bytes:
    """What FastStream's ``BinaryMessageFormatV1.encode`` produces for ``body`` with ``headers``."""
    header_bytes = b"".join(_string(k) + _string(v) for k, v in headers.items())
    headers_start = len(_IDENTITY) + 2 + 8
    data_start = 2 + headers_start + len(header_bytes)
    return b"".join(
        (
            _IDENTITY,
            pack(">H", _VERSION),
            pack(">I", headers_start),
            pack(">I", data_start),
            pack(">H", len(headers)),
            header_bytes,
            body,
        )
    )


def encode_notification(notification: Notification) -> bytes:
    correlation_id = f"{notification.game_id}:{notification.kind}:{notification.last_version}"
    return encode_message(
        notification_encoder.encode(notification),
        {"correlation_id": correlation_id, "content-type": "application/json"},
    )


def decode_message(raw: bytes) -> bytes:
    """The body of an entry written by :func:`encode_message` (or by FastStream); anything else is taken as a
    bare body."""
    if not raw.startswith(_IDENTITY):
        return raw
    (data_start,) = unpack_from(">I", raw, len(_IDENTITY) + 2 + 4)
    return raw[data_start:]
