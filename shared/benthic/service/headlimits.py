"""The limits of a request's head, the same for plain HTTP and for the play socket's WebSocket handshake, enforced by
uvicorn's protocols while the head is read (nothing beyond a limit is buffered) and answered at once:

- the request target (path and query) at most ``MAX_TARGET`` bytes: ``414 request_line_too_long``;
- at most ``MAX_FIELDS`` header fields, each (``name: value``) at most ``MAX_FIELD`` bytes, and at most
  ``MAX_HEAD`` bytes of head in all: ``431 request_headers_too_large``.

The ``websockets`` library parses a handshake again after uvicorn, with lines of at most 8,192 bytes and 128
header fields: nothing within these limits is refused there.  uvicorn's ``websockets-sansio`` protocol drops that
library's refusals without answering (the socket stays open, with no timeout: issue 33);
:class:`AnsweringWebSocketProtocol` answers them.  With ``BENTHIC_HTTP_SERVER=granian``, granian's own limits
apply, to both alike.
"""

from __future__ import annotations

import asyncio
import http
from collections.abc import Sequence
from typing import Any

import msgspec
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import HeaderLineTooLong, RequestLineTooLong, TooManyHeaders

MAX_TARGET = 8000  # bytes of a request's target: its path and query
MAX_FIELD = 8190  # bytes of a header field: name, ": " and value (8 KiB with its CRLF, as websockets reads it)
MAX_FIELDS = 100
MAX_HEAD = 64 * 1024

LINE_TOO_LONG = (414, "request_line_too_long", f"the request's target is longer than {MAX_TARGET} bytes")
FIELD_TOO_LONG = (431, "request_headers_too_large", f"a header field is longer than {MAX_FIELD} bytes")
TOO_MANY_FIELDS = (431, "request_headers_too_large", f"the request has more than {MAX_FIELDS} header fields")
HEAD_TOO_LARGE = (431, "request_headers_too_large", f"the request's head is larger than {MAX_HEAD} bytes")
UNREADABLE = (400, "invalid_request", "the WebSocket handshake is not a valid HTTP request")
# After a refusal, what the client still sends is read and dropped for this long before the connection is closed:
# a close with data unread resets the connection, and the client may lose the answer (a "lingering close").
LINGER_S = 2.0

Refusal = tuple[int, str, str]


def answer(refusal: Refusal, default_headers: Sequence[tuple[bytes, bytes]] = ()) -> bytes:
    """The whole HTTP/1.1 response of a refusal: the services' error body, and the connection closed."""
    status, code, message = refusal
    body = msgspec.json.encode({"code": code, "message": message})
    head = [f"HTTP/1.1 {status} {http.HTTPStatus(status).phrase}".encode()]
    head += [name + b": " + value for name, value in default_headers]
    head += [b"content-type: application/json", b"content-length: %d" % len(body), b"connection: close"]
    return b"\r\n".join(head) + b"\r\n\r\n" + body


def answer_and_close(transport: asyncio.Transport, response: bytes) -> None:
    """Send ``response``, then close our side; the connection goes once the client closes its own, or after
    ``LINGER_S`` (the protocol drops what arrives meanwhile)."""
    transport.write(response)
    if transport.can_write_eof():
        transport.write_eof()
        asyncio.get_running_loop().call_later(LINGER_S, transport.close)
    else:
        transport.close()


class _Refused(Exception):
    """Raised from a parser callback to stop parsing a head over a limit."""


class BoundedHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools protocol, refusing a head over the limits as it is read (plain HTTP and WebSocket
    upgrades alike: the upgrade is handed over only after the whole head passed)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._refusal: Refusal | None = None
        self._in_head = False
        self._head_bytes = 0  # of the reads after the one the head began in (bounded by one read more)
        self._fields = 0

    def data_received(self, data: bytes) -> None:
        if self._refusal is not None:
            return  # answered: nothing more is read
        if self._in_head:
            self._head_bytes += len(data)
        super().data_received(data)
        if self._refusal is None and self._in_head and self._head_bytes > MAX_HEAD:
            self._refuse(HEAD_TOO_LARGE)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        self._in_head, self._head_bytes, self._fields = True, 0, 0

    def on_url(self, url: bytes) -> None:
        super().on_url(url)
        if len(self.url) > MAX_TARGET:
            self._stop(LINE_TOO_LONG)

    def on_header(self, name: bytes, value: bytes) -> None:
        self._fields += 1
        if self._fields > MAX_FIELDS:
            self._stop(TOO_MANY_FIELDS)
        if len(name) + 2 + len(value) > MAX_FIELD:
            self._stop(FIELD_TOO_LONG)
        super().on_header(name, value)

    def on_headers_complete(self) -> None:
        self._in_head = False
        super().on_headers_complete()

    def _stop(self, refusal: Refusal) -> None:
        self._refusal = refusal
        raise _Refused  # httptools raises it out of feed_data as a parser error: uvicorn answers with the 400 below

    def send_400_response(self, msg: str) -> None:
        if self._refusal is None:
            super().send_400_response(msg)
        else:
            self._answer()

    def _refuse(self, refusal: Refusal) -> None:
        self._refusal = refusal
        self._answer()

    def _answer(self) -> None:
        assert self._refusal is not None
        if not self.transport.is_closing():
            answer_and_close(self.transport, answer(self._refusal, self.server_state.default_headers))


class AnsweringWebSocketProtocol(WebSocketsSansIOProtocol):
    """uvicorn's websockets-sansio protocol, answering a handshake the ``websockets`` library refuses (a line over
    its limits, a request it cannot read) instead of leaving the socket open unanswered."""

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        refused = self.conn.handshake_exc
        if refused is None or self.handshake_initiated or self.close_sent:
            return
        self.conn.data_to_send()  # websockets' own answer (text), replaced by the services' error body
        if isinstance(refused, RequestLineTooLong):
            refusal = LINE_TOO_LONG
        elif isinstance(refused, HeaderLineTooLong):
            refusal = FIELD_TOO_LONG
        elif isinstance(refused, TooManyHeaders):
            refusal = TOO_MANY_FIELDS
        else:
            refusal = UNREADABLE
        self.close_sent = True
        self.handshake_complete = True
        answer_and_close(self.transport, answer(refusal, self.default_headers))
