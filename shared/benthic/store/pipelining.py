"""Automatic pipelining of one Lua script: calls made concurrently are sent together in one pipeline.

Under load most of the cost of a script call in redis-py is per command (packing, a socket write, a timed
read), not in Redis.  Every call made while a pipeline is in flight joins the next one, so a busy process
sends a few large pipelines instead of many single commands; an idle one sends each call at once.
Calls stay independent: one failing does not fail the others.

On one Redis server (not a Cluster, where the calls' keys live in different slots), the calls of a pipeline
are also fused: up to ``max_fused`` of them go as ONE ``EVALSHA`` of a wrapper script that runs the script's own
source as a function once per call, each under ``pcall``.  Redis then sets up one script call instead of
dozens, and the client packs and parses one command.  Each call keeps its own keys, arguments, effects and
reply; an error in one is that call's error alone.  A fused run holds Redis for its calls' time together, which
``max_fused`` bounds.

With an ``ack`` that waits (``benthic.store.durability``), every pipeline ends with ``WAIT`` (or ``WAITAOF``) on
its connection, one per cluster node it wrote to: a call's result is handed back only once its write is
confirmed on the replicas; otherwise the call raises ``DurabilityUnconfirmed``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis, RedisCluster
from redis.asyncio.sentinel import SentinelConnectionPool
from redis.exceptions import NoScriptError, ReadOnlyError, ResponseError

from benthic.runtime.telemetry import DURABILITY_UNCONFIRMED
from benthic.store.durability import NO_ACK, Ack, DurabilityUnconfirmed

# ARGV[1] = n calls, then n pairs (key count, argument count), then every call's arguments in order; KEYS are
# every call's keys in order.  Replies: per call {1, reply} (a nil reply leaves {1}) or {0, error}, the error a
# nested error reply, which redis-py's parser turns into the exception it raises for the call alone (an error
# Redis raised, such as OOM from redis.call, is passed on as raised).
_FUSED = """local function call(KEYS, ARGV)
%s
end
local n = tonumber(ARGV[1])
local out = {}
local k, a = 0, 1 + 2 * n
for i = 1, n do
  local nk, na = tonumber(ARGV[2 * i]), tonumber(ARGV[2 * i + 1])
  local keys, args = {}, {}
  for j = 1, nk do keys[j] = KEYS[k + j] end
  for j = 1, na do args[j] = ARGV[a + j] end
  k, a = k + nk, a + na
  local ok, reply = pcall(call, keys, args)
  if ok then
    out[i] = {1, reply}
  else
    if type(reply) ~= 'table' then
      reply = {err = tostring(reply)}
    elseif type(reply.err) ~= 'string' then
      reply = {err = tostring(reply.err or 'script error')}
    end
    out[i] = {0, reply}
  end
end
return out
"""


class ScriptBatcher:
    def __init__(
        self, redis: Redis, source: str | bytes | memoryview, max_batch: int = 256, max_in_flight: int = 2,
        max_fused: int = 64, ack: Ack = NO_ACK, operation: str = "append",
    ) -> None:
        self.redis = redis
        self.ack = ack
        self.operation = operation  # what the writes are, for benthic_durability_unconfirmed_total
        self.source = source if isinstance(source, str) else bytes(source).decode()
        self.max_batch = max_batch
        self.max_in_flight = max_in_flight
        # a script with a shebang (Redis 7 flags) cannot be wrapped in a function
        fusable = not isinstance(redis, RedisCluster) and not self.source.startswith("#!")
        self.max_fused = max_fused if fusable else 1
        self._sha: str | None = None
        self._fused_sha: str | None = None
        self._pending: list[tuple[Sequence[Any], Sequence[Any], asyncio.Future[Any]]] = []
        self._in_flight = 0
        self._flushers: set[asyncio.Task[None]] = set()  # strong references: the loop keeps only weak ones

    async def __call__(self, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending.append((keys, args, future))
        self._start_flush()
        return await future

    async def many(self, calls: Sequence[tuple[Sequence[Any], Sequence[Any]]]) -> list[Any]:
        """Several calls at once (in one pipeline, up to ``max_batch``): each one's result or exception."""
        loop = asyncio.get_running_loop()
        futures: list[asyncio.Future[Any]] = []
        for keys, args in calls:
            futures.append(loop.create_future())
            self._pending.append((keys, args, futures[-1]))
        if futures:
            self._start_flush()
        return await asyncio.gather(*futures, return_exceptions=True)

    def _start_flush(self) -> None:
        if self._in_flight < self.max_in_flight:
            self._in_flight += 1
            task = asyncio.get_running_loop().create_task(self._flush())
            self._flushers.add(task)
            task.add_done_callback(self._flushers.discard)

    async def _flush(self) -> None:
        try:
            while self._pending:
                batch = self._pending[: self.max_batch]
                del self._pending[: self.max_batch]
                await self._send(batch)
        finally:
            self._in_flight -= 1

    async def _send(self, batch: list[tuple[Sequence[Any], Sequence[Any], asyncio.Future[Any]]]) -> None:
        try:
            if self._sha is None:
                await self._load()
            results = await self._execute(batch)
            if any(isinstance(r, NoScriptError) for r in results):  # Redis restarted or failed over
                await self._load()
                results = await self._execute(batch)
            if any(_demoted(r) for r in results):
                await self._find_the_primary_again()
        except BaseException as error:  # noqa: BLE001 - hand the failure to every waiting caller
            for _, _, future in batch:
                if not future.done():
                    future.set_exception(error if isinstance(error, Exception) else RuntimeError(repr(error)))
            if not isinstance(error, Exception):
                raise
            return
        for (_, _, future), result in zip(batch, results, strict=True):
            if future.done():
                continue
            if isinstance(result, Exception):
                future.set_exception(result)
            else:
                future.set_result(result)

    async def _find_the_primary_again(self) -> None:
        """The server answered as a replica (READONLY) or as a primary cut off from its replicas (NOREPLICAS):
        under Sentinel it may have been failed over.  A fused call's error comes back inside the wrapper's reply,
        where redis-py's Sentinel connection never sees it (it drops a connection that reads READONLY itself), so
        the idle connections are dropped here: the next ones ask the Sentinels for the primary."""
        pool = getattr(self.redis, "connection_pool", None)
        if isinstance(pool, SentinelConnectionPool):
            await pool.disconnect(inuse_connections=False)

    async def _load(self) -> None:
        # Both known before either is used: another flusher that finds ``_sha`` set may fuse its calls at once.
        fused_sha = await self.redis.script_load(_FUSED % self.source) if self.max_fused > 1 else None
        self._sha, self._fused_sha = await self.redis.script_load(self.source), fused_sha

    async def _execute(self, batch: list[tuple[Sequence[Any], Sequence[Any], asyncio.Future[Any]]]) -> list[Any]:
        groups = [batch[i : i + self.max_fused] for i in range(0, len(batch), self.max_fused)]
        waits: list[Any] = []  # the cluster nodes written to (one None on a single server)
        async with self.redis.pipeline(transaction=False) as pipe:
            for group in groups:
                if len(group) == 1:
                    keys, args, _ = group[0]
                    # execute_command, not evalsha: redis-py's cluster pipeline blocks its evalsha helper, but
                    # routes a raw EVALSHA by its keys (which always share one slot here).
                    pipe.execute_command("EVALSHA", self._sha, len(keys), *keys, *args)
                else:
                    pipe.execute_command("EVALSHA", self._fused_sha, *_fused_arguments(group))
            if self.ack.waits:
                waits = self._wait_targets(groups)
                for node in waits:
                    pipe.execute_command(*self.ack.command(), **({"target_nodes": node} if node else {}))
            replies = await pipe.execute(raise_on_error=False)
        if waits:
            replies, confirmations = replies[: len(groups)], replies[len(groups):]
            unconfirmed = next((c for c in confirmations if not self.ack.confirmed(c)), None)
            if unconfirmed is not None or len(confirmations) != len(waits):
                return self._unconfirmed(groups, replies, unconfirmed)
        results: list[Any] = []
        for group, reply in zip(groups, replies, strict=True):
            if len(group) == 1 or isinstance(reply, Exception):
                results.extend([reply] * len(group))
            else:
                results.extend(_unfused(reply))
        return results


    def _wait_targets(self, groups: list[list[tuple[Sequence[Any], Sequence[Any], Any]]]) -> list[Any]:
        """Where the confirming command goes: after the writes on their connection (one server), or on the
        connection of each cluster node written to (its pipeline's part for that node)."""
        if not isinstance(self.redis, RedisCluster):
            return [None]
        nodes = {}
        for group in groups:
            node = self.redis.get_node_from_key(group[0][0][0])
            nodes[node.name] = node
        return list(nodes.values())

    def _unconfirmed(self, groups: list[Any], replies: list[Any], reply: Any) -> list[Any]:
        """Every call's own error, or DurabilityUnconfirmed carrying its result (which may say it wrote nothing)."""
        results: list[Any] = []
        for group, grouped in zip(groups, replies, strict=True):
            if isinstance(grouped, Exception):
                results.extend([grouped] * len(group))
                continue
            for result in [grouped] if len(group) == 1 else _unfused(grouped):
                failed = isinstance(result, Exception)
                results.append(result if failed else DurabilityUnconfirmed(self.ack, reply, result))
        DURABILITY_UNCONFIRMED.labels(self.operation).inc(sum(isinstance(r, DurabilityUnconfirmed) for r in results))
        return results


def _demoted(result: Any) -> bool:
    return isinstance(result, ReadOnlyError) or (isinstance(result, ResponseError)
                                                 and str(result).startswith(("NOREPLICAS", "READONLY")))


def _fused_arguments(group: Sequence[tuple[Sequence[Any], Sequence[Any], Any]]) -> list[Any]:
    """numkeys, every key, then the wrapper's ARGV (``_FUSED``)."""
    keys: list[Any] = []
    counts: list[int] = []
    args: list[Any] = []
    for call_keys, call_args, _ in group:
        keys.extend(call_keys)
        args.extend(call_args)
        counts.extend((len(call_keys), len(call_args)))
    return [len(keys), *keys, len(group), *counts, *args]


def _unfused(reply: list[Any]) -> list[Any]:
    """Each call's reply, or its error as redis-py raises it for the call alone (OOM -> OutOfMemoryError, ...)."""
    return [entry[1] if len(entry) > 1 else None for entry in reply]
