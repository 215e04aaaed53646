"""A TCP proxy whose link can be cut like a network partition, for failover tests.

The proxy runs its own asyncio loop in a background thread, so sync tests and asyncio tests (whose loop it never
touches) drive it alike."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from benthic.local.devredis import free_port

T = TypeVar("T")

_CHUNK = 65536


class _Link:
    """One proxied connection: the client's side and, unless it arrived during a cut, the target's side."""

    def __init__(self, client: asyncio.StreamWriter, cut: bool) -> None:
        self.client = client
        self.upstream: asyncio.StreamWriter | None = None
        self.cut = cut  # existed during a cut: its bytes are discarded, and heal() closes it
        self.pumps: list[asyncio.Task[None]] = []
        self.closed = False

    def close(self) -> None:
        self.closed = True
        for writer in (self.client, self.upstream):
            if writer is not None:
                writer.transport.abort()
        for pump in self.pumps:
            pump.cancel()


class LinkProxy:
    """Forwards 127.0.0.1:`port` to `target_host`:`target_port`, one upstream connection per client connection.

    `cut()` stops forwarding silently, as a partition or a stalled host looks: every connection stays open, the
    bytes arriving from either side are read and discarded, nothing is closed (not even on EOF), and a
    connection accepted during the cut never reaches the target.  `heal()` closes every connection that existed
    during the cut (a stream with bytes missing in the middle must never be resumed: both sides reconnect) and
    forwards new connections again.  Thread-safe; the proxy never uses the caller's event loop."""

    def __init__(self, target_port: int, target_host: str = "127.0.0.1", port: int | None = None) -> None:
        self.target_host = target_host
        self.target_port = target_port
        self._port = port or free_port()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._links: set[_Link] = set()
        self._handlers: set[asyncio.Task[Any]] = set()
        self._cut = False

    @property
    def port(self) -> int:
        return self._port

    def start(self) -> LinkProxy:
        if self._loop is not None:
            raise RuntimeError("the proxy is running already")
        loop = asyncio.new_event_loop()
        self._loop = loop
        self._thread = threading.Thread(target=loop.run_forever, name=f"linkproxy-{self._port}", daemon=True)
        self._thread.start()
        try:
            self._call(self._listen())
        except BaseException:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        """Closes the listener and every connection; idempotent."""
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        try:
            self._call(self._shutdown())
        finally:
            loop.call_soon_threadsafe(loop.stop)
            thread.join(timeout=5)
            loop.close()
            self._loop = self._thread = None
            self._cut = False

    def cut(self) -> None:
        self._call(self._set_cut())

    def heal(self) -> None:
        self._call(self._heal())

    def __enter__(self) -> LinkProxy:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _call(self, coroutine: Coroutine[Any, Any, T]) -> T:
        if self._loop is None:
            coroutine.close()
            raise RuntimeError("the proxy is not running")
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self._port)

    async def _set_cut(self) -> None:
        self._cut = True
        for link in self._links:
            link.cut = True

    async def _heal(self) -> None:
        for link in [link for link in self._links if link.cut]:
            link.close()
        self._cut = False

    async def _shutdown(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for link in list(self._links):
            link.close()
        if self._handlers:
            await asyncio.wait(list(self._handlers), timeout=2)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        handler = asyncio.current_task()
        assert handler is not None
        self._handlers.add(handler)
        link = _Link(writer, cut=self._cut)
        self._links.add(link)
        try:
            if link.cut:
                link.pumps = [asyncio.create_task(self._pump(link, reader, None))]
            else:
                try:
                    up_reader, up_writer = await asyncio.open_connection(self.target_host, self.target_port)
                except OSError:
                    return
                link.upstream = up_writer
                if link.closed:  # healed (or stopped) while connecting
                    return
                link.pumps = [asyncio.create_task(self._pump(link, reader, up_writer)),
                              asyncio.create_task(self._pump(link, up_reader, writer))]
            await asyncio.wait(link.pumps, return_when=asyncio.FIRST_COMPLETED)
        finally:
            link.close()
            self._links.discard(link)
            self._handlers.discard(handler)

    @staticmethod
    async def _pump(link: _Link, reader: asyncio.StreamReader, writer: asyncio.StreamWriter | None) -> None:
        try:
            while True:
                data = await reader.read(_CHUNK)
                if link.cut:
                    if not data:
                        await asyncio.Event().wait()  # a partition delivers no FIN either: hold until heal()
                    continue
                if not data or writer is None:
                    return
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            return
