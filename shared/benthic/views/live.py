"""Live updates for every SSE and long-poll client of this process from ONE Redis subscription.

The projection publishes ``<game>:<version>`` on its partition's channel after each read-model write.  The hub
keeps the latest view of every (game, viewer) somebody watches; on a publish it reads the new views of that
game once (one HMGET for all its watched viewers) and hands the same bytes to every client.  A client has a
bounded buffer: one that falls that far behind is closed, so a slow client never delays the others and never
holds memory.  A client never touches Redis.

The hub subscribes only while it has live clients (and ``linger_s`` after the last one leaves, as long-polls
come and go): a process nobody watches through does not receive a message for every move of every game.  Once
the subscription is confirmed it refreshes every watched game, so a version written before is not missed.

For clients that take deltas (``deltas.py``) the hub also keeps, per watched (game, viewer), the step from its
previous view to its newest: its patch is computed once, by the first client on that base, and shared.  A
client on any other version gets the full view.

A stream of a game's views ends after the game's last version (:class:`StreamEnd`).
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from collections import defaultdict
from collections.abc import AsyncIterator

from redis.asyncio import Redis, RedisCluster

from benthic.game.keys import updates_channel
from benthic.runtime.telemetry import LIVE_CLIENTS, LIVE_CLIENTS_DROPPED, LIVE_STREAMS, log
from benthic.views.deltas import Delta, empty_delta
from benthic.views.readmodel import FINISHED_MARK, SCORED
from benthic.views.reads import ReadModels

Latest = tuple[int, bytes]  # (version, view JSON)
SCORED_WAIT_S = 30.0  # how long a stream waits for the game_scored version after the finished view


class LiveCapacityReached(Exception):
    """This process already serves its maximum of live clients."""


class LiveClient:
    """One SSE stream or long-poll waiter: the views of one (game, viewer) it has not consumed yet."""

    __slots__ = ("_queue", "dropped", "game_id", "stream", "viewer")

    def __init__(self, game_id: str, viewer: int | None, buffer: int, stream: bool = False) -> None:
        self.game_id = game_id
        self.viewer = viewer
        self.stream = stream
        self._queue: asyncio.Queue[Latest | None] = asyncio.Queue(buffer)
        self.dropped = False

    def offer(self, latest: Latest) -> bool:
        """Queue a new version; False (and the client is dropped) when its buffer is full."""
        if self.dropped:
            return False
        try:
            self._queue.put_nowait(latest)
        except asyncio.QueueFull:
            self.dropped = True
            self._queue = asyncio.Queue(1)  # wake the reader with the end marker, free what it held
            self._queue.put_nowait(None)
            return False
        return True

    def close(self) -> None:
        if not self.dropped:
            self.dropped = True
            with contextlib.suppress(asyncio.QueueFull):
                self._queue.put_nowait(None)

    async def next(self, timeout: float) -> Latest | None:
        """The next version, None when the client was dropped; TimeoutError after ``timeout`` seconds."""
        return await asyncio.wait_for(self._queue.get(), timeout)

    def newest(self, latest: Latest) -> Latest | None:
        """``latest`` or the newest version queued after it (the ones between are skipped: a delta client wants
        the view, not every step); None when the client was dropped."""
        while not self._queue.empty():
            queued = self._queue.get_nowait()
            if queued is None:
                return None
            latest = queued
        return latest


class LiveHub:
    def __init__(
        self, redis: Redis, reads: ReadModels, partitions: int, max_clients: int, buffer: int, linger_s: float = 30.0
    ) -> None:
        self.redis = redis
        self.reads = reads
        self.partitions = partitions
        self.max_clients = max_clients
        self.buffer = buffer
        self.linger_s = linger_s
        self.clients = 0  # SSE streams and long-poll waiters
        self.streams = 0  # SSE streams
        self._wanted = asyncio.Event()  # set while a client is registered: the listener subscribes
        self._idle_since: float | None = None  # when the last client left (monotonic)
        self._watchers: dict[str, dict[int | None, set[LiveClient]]] = defaultdict(lambda: defaultdict(set))
        self._latest: dict[tuple[str, int | None], Latest] = {}
        self._deltas: dict[tuple[str, int | None], Delta] = {}  # the step to each _latest from the one before
        self._fetching: dict[tuple[str, int | None], asyncio.Future[Latest | None]] = {}
        self._refreshing: dict[str, asyncio.Task[None]] = {}
        self._dirty: set[str] = set()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False
        self.subscribed = asyncio.Event()

    # --- lifecycle ------------------------------------------------------------------------------
    async def start(self) -> None:
        self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        self._stopping = True
        for watchers in list(self._watchers.values()):
            for clients in list(watchers.values()):
                for client in list(clients):
                    client.close()
        tasks = [t for t in (self._task, *self._refreshing.values()) if t is not None]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5)  # never hang on a cancellation a client library swallowed

    # --- clients --------------------------------------------------------------------------------
    @property
    def full(self) -> bool:
        return self.clients >= self.max_clients

    def open(self, game_id: str, viewer: int | None, stream: bool = False) -> LiveClient:
        """Register a client of (game, viewer) (``stream``: an SSE stream, else a long-poll waiter); release it
        with ``release``.  Raises LiveCapacityReached: the check and the registration are one step."""
        if self.full:
            raise LiveCapacityReached()
        client = LiveClient(game_id, viewer, self.buffer, stream)
        self._watchers[game_id][viewer].add(client)
        self._count(1, stream)
        return client

    def release(self, client: LiveClient) -> None:
        """Forget a client (idempotent)."""
        watchers = self._watchers.get(client.game_id)
        if watchers is None or client not in watchers.get(client.viewer, ()):
            return
        client.close()
        self._count(-1, client.stream)
        watchers[client.viewer].discard(client)
        if not watchers[client.viewer]:
            del watchers[client.viewer]
            self._latest.pop((client.game_id, client.viewer), None)
            self._deltas.pop((client.game_id, client.viewer), None)
        if not watchers:
            del self._watchers[client.game_id]

    @contextlib.asynccontextmanager
    async def watch(self, game_id: str, viewer: int | None) -> AsyncIterator[LiveClient]:
        """A long-poll waiter for as long as the block runs.  Raises LiveCapacityReached."""
        client = self.open(game_id, viewer)
        try:
            yield client
        finally:
            self.release(client)

    def _count(self, change: int, stream: bool) -> None:
        self.clients += change
        LIVE_CLIENTS.set(self.clients)
        if self.clients > 0:
            self._idle_since = None
            self._wanted.set()
        elif self._idle_since is None:
            self._idle_since = time.monotonic()
        if stream:
            self.streams += change
            LIVE_STREAMS.set(self.streams)

    async def current(self, game_id: str, viewer: int | None) -> Latest | None:
        """The newest view of (game, viewer): from memory while somebody watches it, else one read shared by
        every concurrent caller.  None when the game has no read model or no view for that viewer."""
        key = (game_id, viewer)
        latest = self._latest.get(key)
        if latest is not None:
            return latest
        pending = self._fetching.get(key)
        if pending is None:
            pending = asyncio.get_running_loop().create_future()
            self._fetching[key] = pending
            try:
                found = await self.reads.views(game_id, [viewer])
                result = None if found is None or viewer not in found[1] else (found[0], found[1][viewer])
                if result is not None:
                    # Watched: every client of the view gets this version too.  Remembered without being offered,
                    # it would make the refresh of its publish skip them (they would miss it until the next one).
                    self._deliver(game_id, result[0], {viewer: result[1]})
                pending.set_result(result)
            except BaseException as error:
                pending.set_exception(error)
                pending.exception()  # retrieved: concurrent callers re-raise it, nobody logs it as lost
                raise
            finally:
                del self._fetching[key]
            return result
        return await asyncio.shield(pending)

    def frame_for(self, game_id: str, viewer: int | None, since: int | None, latest: Latest) -> tuple[bool, bytes]:
        """What a delta client that has version ``since`` (None: nothing) is sent for ``latest``: (True, the
        delta frame's JSON) when the hub can diff against ``since``, else (False, the full view)."""
        version, body = latest
        if since == version:
            return True, empty_delta(version)
        delta = self._deltas.get((game_id, viewer))
        if since is not None and delta is not None and delta.base == since and delta.version == version:
            return True, delta.frame()
        return False, body

    async def is_last(self, game_id: str, latest: Latest) -> bool:
        """Whether ``latest`` is the last view the game will have: finished, and at (or after) the version that
        folded its ``game_scored``; a game no longer anywhere (deleted) has no next view either."""
        if FINISHED_MARK not in latest[1]:
            return False
        found = await self.reads.field(game_id, SCORED)
        return found is None or (found[1] == b"1" and found[0] <= latest[0])

    # --- updates --------------------------------------------------------------------------------
    def updated(self, game_id: str) -> None:
        """A new version of ``game_id`` was written: refresh its watched views (coalesced per game)."""
        if game_id not in self._watchers:
            return
        if game_id in self._refreshing:
            self._dirty.add(game_id)
            return
        self._refreshing[game_id] = asyncio.create_task(self._refresh(game_id))

    async def _refresh(self, game_id: str) -> None:
        try:
            while True:
                self._dirty.discard(game_id)
                watchers = self._watchers.get(game_id)
                if not watchers:
                    return
                try:
                    found = await self.reads.views(game_id, list(watchers))
                except Exception as error:  # noqa: BLE001 - the next publish or resubscription retries
                    log().warning("live_refresh_failed", game_id=game_id, error=repr(error))
                    return
                if found is not None:
                    self._deliver(game_id, found[0], found[1])
                if game_id not in self._dirty:
                    return
        finally:
            self._refreshing.pop(game_id, None)

    def _deliver(self, game_id: str, version: int, bodies: dict[int | None, bytes]) -> None:
        watchers = self._watchers.get(game_id, {})
        for viewer, body in bodies.items():
            key = (game_id, viewer)
            known = self._latest.get(key)
            if known is not None and known[0] >= version:
                continue
            clients = watchers.get(viewer)
            if not clients:
                continue
            latest = (version, body)
            self._latest[key] = latest
            if known is not None:
                self._deltas[key] = Delta(known[0], known[1], version, body)
            else:
                self._deltas.pop(key, None)
            for client in list(clients):
                if not client.offer(latest):
                    LIVE_CLIENTS_DROPPED.inc()

    def _wake_all(self) -> None:
        for game_id in list(self._watchers):
            self.updated(game_id)

    def _unwatched(self) -> bool:
        """Nobody has watched for ``linger_s``: time to stop receiving every publish."""
        return self._idle_since is not None and time.monotonic() - self._idle_since >= self.linger_s

    async def _listen(self) -> None:
        channels = [updates_channel(p) for p in range(self.partitions)]
        while not self._stopping:
            self._wanted.clear()
            if self.clients > 0:
                self._wanted.set()
            await self._wanted.wait()
            pubsub = None
            try:
                if isinstance(self.redis, RedisCluster):
                    await self.redis.initialize()  # its pubsub needs the slot map a first command would load
                pubsub = self.redis.pubsub()
                await pubsub.subscribe(*channels)
                unconfirmed = set(channels)
                while unconfirmed and not self._stopping:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "subscribe":
                        unconfirmed.discard(message["channel"].decode())
                self.subscribed.set()
                self._wake_all()  # versions published before the subscription held
                while not self._stopping and not self._unwatched():
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if message is None or message.get("type") != "message":
                        continue
                    self.updated(message["data"].decode().rpartition(":")[0])
                self.subscribed.clear()
            except asyncio.CancelledError:
                raise
            except Exception as error:  # noqa: BLE001 - resubscribe after a connection loss
                self.subscribed.clear()
                log().warning("updates_subscription_lost", error=repr(error))
                await asyncio.sleep(0.2)
            finally:
                if pubsub is not None:
                    with contextlib.suppress(Exception):
                        await pubsub.aclose()  # type: ignore[no-untyped-call]  # redis-py's PubSub: unannotated



class StreamEnd:
    """When a stream of one game's views (SSE, the play socket's view pushes) ends: after the view of the game's
    last version, the one that folds its ``game_scored`` (the scoring service appends it a moment after the end,
    with the final scores, and nothing comes after it), or SCORED_WAIT_S after the finished view if that version
    does not come (the scoring service down): a stream is never held open for good by a game that is over."""

    def __init__(self, hub: LiveHub, game_id: str) -> None:
        self._hub = hub
        self._game_id = game_id
        self._finished_at: float | None = None

    async def wait_after(self, sent: Latest) -> float | None:
        """After the view ``sent`` (the newest the stream sent): None when the stream ends, else how long to
        wait at most for a newer view (``inf`` while the game runs)."""
        if FINISHED_MARK not in sent[1]:
            return math.inf
        if await self._hub.is_last(self._game_id, sent):
            return None
        now = time.monotonic()
        if self._finished_at is None:
            self._finished_at = now
        left = self._finished_at + SCORED_WAIT_S - now
        return left if left > 0 else None
