"""Finished games leave Redis for the archive, exactly once and crash safe.

1. ``schedule`` (the feed handler): a notification carrying ``game_scored`` puts the game in its partition's
   due set, due ``archive_after_s`` later (a repeated notification changes nothing).
2. ``step`` takes the due games of every partition with a lease (take_due.lua: their score moves to now +
   lease, so no other replica takes them meanwhile and a dead archiver's games come back by themselves),
   then for each game:
   read   the game from Redis; if it is not finished, scored (ratings applied) and projected to its last
          version yet, leave it: the lease brings it back;
   put    the copy into PostgreSQL (idempotent: an identical copy already there is a no-op);
   verify the copy: event count and digest recomputed from what PostgreSQL returns equal Redis';
   delete every key of the game in ONE atomic script, only if its meta and read model are still at the
          copied version; the due entry stays, pushed a lease later;
   later, the game comes due again and is no longer in Redis: its ratings marker (another slot) is deleted
          and it leaves the due sets (``unschedule``).
   A crash anywhere leaves either the whole game in Redis (authoritative; the archive copy, if any, is a
   verified or an unverified duplicate that the next put finds identical) or none of it (the verified copy
   is authoritative); the lease makes the game come back and the step resumes where it stopped.
3. Retention: ``purge`` removes archived games older than ``archive_retention_days`` (0: never).

``crash_at``: a test-only hook (BENTHIC_ARCHIVER_CRASH_AT=<step>) that SIGKILLs this process right after
that step, to prove the above with real kills.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import time
from datetime import timedelta
from typing import Any

from benthic.archive import Archive, ArchiveConflict, ArchiveError, ArchiveMismatch
from benthic.archive.due import DueGames
from benthic.archive.records import read_models_digest
from benthic.feed.notification import Notification
from benthic.rules import game_types
from benthic.runtime.config import Settings
from benthic.runtime.telemetry import (
    ARCHIVE_DUE,
    ARCHIVE_FAILURES,
    ARCHIVE_LAG,
    ARCHIVE_PURGED,
    ARCHIVE_SIZE,
    GAMES_ARCHIVED,
    REDIS_MEMORY_BY_KIND,
    log,
)
from benthic.store.durability import NO_ACK, Ack
from services.archiver.memory import memory_by_kind
from services.archiver.redisgame import GONE, FinishedGame, GameDeleter, NotReady, read_game

STEPS = ("taken", "read", "put", "verified", "deleted", "marker_deleted", "unscheduled")
RETENTION_INTERVAL_S = 3600.0
MEMORY_SAMPLE_EVERY = 6  # metrics ticks between two samples of Redis memory by kind


def now_ms() -> int:
    return int(time.time() * 1000)


class Archiver:
    def __init__(self, redis: Any, archive: Archive, settings: Settings, crash_at: str = "", ack: Ack = NO_ACK) -> None:
        if crash_at and crash_at not in STEPS:
            raise ValueError(f"unknown archiver step {crash_at!r}; steps: {', '.join(STEPS)}")
        self.redis = redis
        self.archive = archive
        self.settings = settings
        self.due = DueGames(redis, settings.partitions)
        self.deleter = GameDeleter(redis, settings.partitions, ack)
        self.after_ms = int(settings.archive_after_s * 1000)
        self.lease_ms = max(1, int(settings.archive_lease_s * 1000))
        self.batch = max(1, settings.archive_batch)
        self.crash_at = crash_at
        self.poll_s = min(1.0, max(0.05, settings.archive_after_s / 10)) if settings.archive_after_s else 0.1
        self._stopping = False
        self._wake = asyncio.Event()

    # --- the feed consumer ------------------------------------------------------------------------
    async def schedule(self, notes: list[Notification]) -> None:
        due = now_ms() + self.after_ms
        scored = {n.game_id for n in notes if "game_scored" in n.types}
        for game_id in scored:
            await self.due.schedule(game_id, due)
        if scored and not self.after_ms:
            self._wake.set()

    # --- archiving --------------------------------------------------------------------------------
    async def run(self) -> None:
        while not self._stopping:
            try:
                taken = await self.step()
            except Exception as error:  # noqa: BLE001 - Redis or PostgreSQL away: try again shortly
                log().warning("archive_step_failed", error=repr(error))
                taken = 0
            if not taken:
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.poll_s)

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()

    async def step(self) -> int:
        """Take the due games of every partition (a batch each) and archive them; returns how many."""
        taken = 0
        due = await self.due.take_all(list(range(self.settings.partitions)), now_ms(), self.lease_ms, self.batch)
        for games in due:
            if self._stopping:
                break  # what this replica leased and leaves is taken again when the lease ends
            if not games:
                continue
            taken += len(games)
            self._reached("taken")
            await asyncio.gather(*(self._archive_logged(game_id) for game_id in games))
        return taken

    async def _archive_logged(self, game_id: str) -> None:
        try:
            await self.archive_game(game_id)
        except Exception as error:  # noqa: BLE001 - the lease brings the game back; the others go on
            log().error("archive_failed", game_id=game_id, error=repr(error))

    async def archive_game(self, game_id: str) -> str:
        """One game, one pass: 'archived', 'not_ready', 'unscheduled' (gone from Redis), or the failed step."""
        try:
            found = await read_game(self.redis, game_id, self.settings.partitions)
        except Exception:
            ARCHIVE_FAILURES.labels("copy").inc()
            raise
        self._reached("read")
        if found == GONE:
            return await self._finish_gone(game_id)
        if isinstance(found, NotReady):
            log().info("archive_not_ready", game_id=game_id, reason=found.reason)
            return "not_ready"
        assert isinstance(found, FinishedGame)
        return await self._copy_verify_delete(found)

    async def _copy_verify_delete(self, found: FinishedGame) -> str:
        game = found.game
        try:
            await self.archive.put(game)
        except ArchiveConflict as conflict:
            ARCHIVE_FAILURES.labels("copy").inc()
            log().error("archive_conflict", game_id=game.game_id, error=str(conflict))
            return "copy"
        except Exception:
            ARCHIVE_FAILURES.labels("copy").inc()
            raise
        self._reached("put")
        try:
            await self.archive.verify(
                game.game_id, game.event_count, found.digest, read_models_digest(game.read_models))
        except ArchiveMismatch as mismatch:
            ARCHIVE_FAILURES.labels("verify").inc()
            log().error("archive_verify_failed", game_id=game.game_id, error=str(mismatch))
            return "verify"
        except Exception:
            ARCHIVE_FAILURES.labels("verify").inc()
            raise
        self._reached("verified")
        try:
            outcome = await self.deleter.delete(
                game.game_id, game.game_type, found.seats, found.version, now_ms() + self.lease_ms
            )
        except Exception:
            ARCHIVE_FAILURES.labels("delete").inc()
            raise
        if outcome == "changed":
            ARCHIVE_FAILURES.labels("delete").inc()
            log().error("archive_game_changed", game_id=game.game_id, version=found.version)
            return "delete"
        if outcome == "deleted":
            self._reached("deleted")
            GAMES_ARCHIVED.labels(game.game_type).inc()
            log().info("game_archived", game_id=game.game_id, version=found.version, events=game.event_count)
        return "archived"

    async def _finish_gone(self, game_id: str) -> str:
        """The game is no longer in Redis: if the archive has it, drop its ratings marker; unschedule it."""
        info = await self.archive.info(game_id)
        if info is not None:
            await self.deleter.delete_marker(game_id, info.game_type)
            self._reached("marker_deleted")
        else:
            log().warning("archive_unknown_game", game_id=game_id)
        await self.due.unschedule(game_id)
        self._reached("unscheduled")
        return "unscheduled"

    def _reached(self, step: str) -> None:
        if step == self.crash_at:
            log().warning("archiver_crash_hook", step=step)
            os.kill(os.getpid(), signal.SIGKILL)

    # --- retention and metrics --------------------------------------------------------------------
    async def purge(self) -> int:
        days = self.settings.archive_retention_days
        if days <= 0:
            return 0
        try:
            removed = await self.archive.purge(timedelta(days=days))
        except ArchiveError:
            ARCHIVE_FAILURES.labels("purge").inc()
            raise
        if removed:
            ARCHIVE_PURGED.inc(removed)
            log().info("archive_purged", games=removed, older_than_days=days)
        return removed

    async def retention_loop(self, interval_s: float = RETENTION_INTERVAL_S) -> None:
        while not self._stopping and self.settings.archive_retention_days > 0:
            try:
                await self.purge()
            except Exception as error:  # noqa: BLE001 - try again next time
                log().warning("archive_purge_failed", error=repr(error))
            await self._sleep(interval_s)

    async def metrics_loop(self) -> None:
        tick = 0
        while not self._stopping:
            with contextlib.suppress(Exception):
                due, lag = await self.due.stats(now_ms())
                ARCHIVE_DUE.set(due)
                ARCHIVE_LAG.set(lag)
            with contextlib.suppress(Exception):
                ARCHIVE_SIZE.set(await self.archive.size_bytes())
            if tick % MEMORY_SAMPLE_EVERY == 0:
                with contextlib.suppress(Exception):
                    sampled = await memory_by_kind(self.redis, self.settings.partitions, game_types())
                    for kind, used in sampled.items():
                        REDIS_MEMORY_BY_KIND.labels(kind).set(used)
            tick += 1
            await self._sleep(self.settings.metrics_interval_s)

    async def _sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while not self._stopping and (left := deadline - time.monotonic()) > 0:
            await asyncio.sleep(min(left, 0.5))
