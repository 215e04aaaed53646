"""The matchmaker's upkeep, every few seconds: the vacation sweep (the players whose vacation still has something
to do: vacations.py) and the gauges sampled from the pool's fold."""

from __future__ import annotations

import asyncio
import time

from benthic.runtime.config import Settings
from benthic.runtime.telemetry import MATCH_OLDEST_WAITING, MATCH_TICKETS_WAITING, MATCH_UNSEATED, log
from services.matchmaker.store import Streams
from services.matchmaker.vacations import Vacations


async def upkeep_loop(streams: Streams, vacations: Vacations, settings: Settings) -> None:
    while True:
        try:
            await vacations.sweep()
            pool = await streams.catch_up(streams.pool)
            MATCH_TICKETS_WAITING.set(len(pool.waiting))
            oldest = next(iter(pool.waiting.values()), None)
            MATCH_OLDEST_WAITING.set(max(0.0, time.time() - oldest.opened.at / 1000) if oldest else 0.0)
            MATCH_UNSEATED.set(sum(not m.seated for m in pool.pending.values()))
        except Exception as error:  # noqa: BLE001 - Redis away: the next round
            log().warning("matchmaker_metrics_failed", error=repr(error))
        await asyncio.sleep(min(settings.metrics_interval_s, 5.0))
