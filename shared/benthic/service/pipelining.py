"""Automatic pipelining of one Lua script: calls made concurrently are sent together in one pipeline.

Under load most of the cost of a script call in redis-py is per command (packing, a socket write, a timed
read), not in Redis.  Every call made while a pipeline is in flight joins the next one, so a busy process
sends a few large pipelines instead of many single commands; an idle one sends each call at once.
Calls stay independent: one failing does not fail the others.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import NoScriptError


class ScriptBatcher:
    def __init__(self, redis: Redis, source: str, max_batch: int = 256, max_in_flight: int = 2) -> None:
        self.redis = redis
        self.source = source
        self.max_batch = max_batch
        self.max_in_flight = max_in_flight
        self._sha: str | None = None
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
                self._sha = await self.redis.script_load(self.source)
            results = await self._execute(batch)
            if any(isinstance(r, NoScriptError) for r in results):  # Redis restarted or failed over
                self._sha = await self.redis.script_load(self.source)
                results = await self._execute(batch)
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

    async def _execute(self, batch: list[tuple[Sequence[Any], Sequence[Any], asyncio.Future[Any]]]) -> list[Any]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for keys, args, _ in batch:
                # execute_command, not evalsha: redis-py's cluster pipeline blocks its evalsha helper, but
                # routes a raw EVALSHA by its keys (which always share one slot here).
                pipe.execute_command("EVALSHA", self._sha, len(keys), *keys, *args)
            return await pipe.execute(raise_on_error=False)  # type: ignore[no-any-return]
