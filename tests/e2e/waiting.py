"""Waiting in the end-to-end tests: ``until`` polls a probe until it answers something true."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from benthic.clients.client import ApiFailure

T = TypeVar("T")


async def until(
    probe: Callable[[], Awaitable[T]],
    what: str,
    timeout: float = 30.0,
    *,
    interval: float = 0.1,
    retry_on: tuple[type[BaseException], ...] = (),
) -> T:
    """Await ``probe()`` every ``interval`` seconds until it returns something true, and return that; after
    ``timeout`` seconds an AssertionError naming ``what`` and the last answer.  An exception of a ``retry_on``
    type counts as a false answer (``(ApiFailure,)``: e.g. a 404 while the game is not projected yet); any other
    is raised at once."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while True:
        try:
            last = await probe()
            if last:
                return last
        except retry_on as failure:
            last = failure
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}; last: {last!r}")
        await asyncio.sleep(interval)


async def scored(client: Any, game_id: str, timeout: float = 240.0) -> dict[str, Any]:
    """The game's summary once it is scored (a 404 while it is not projected yet is waited out)."""

    async def probe() -> dict[str, Any] | None:
        try:
            summary = await client.summary(game_id)
        except ApiFailure as failure:
            if failure.status != 404:  # not projected yet
                raise
            return None
        return summary if summary.get("scored") else None

    return await until(probe, f"{game_id} scored", timeout)
