"""Bot seats and turn clocks.

``handle`` (the handler of the managed feed: the commits of the games flagged ``bots`` in their meta, those
with a bot seat, a clock or a seat the house bot plays) looks at every commit of such a game: it starts the
clocks once every seat is taken, and schedules in Redis (``duesets``) the game's next bot move (the newest
commit's time plus ``BENTHIC_BOT_MOVE_DELAY_MS``) and its earliest clock deadline.

``run`` takes due games (leased) and acts through the play path the command service uses (benthic.play):

- a bot move for the first prompted seat a bot plays (its own bot, or the house bot after a takeover,
  resignation or forfeit), with command id ``bot:<game>:<version>:<seat>`` and that expected version: each
  prompt gets exactly one move, whatever the replicas and crashes (the store dedupes the command id and
  refuses a stale version);
- a clock expiry when the earliest deadline has passed, with command id ``clock:<game>:<version>`` and that
  expected version: exactly once per deadline.

The new commit's notification schedules what comes next.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from typing import Any

from benthic.errors import ApiError
from benthic.feed.notification import Notification
from benthic.game import lifecycle as lc
from benthic.game.gamestate import Folded
from benthic.game.keys import partition_of
from benthic.play import PlayPath, platform_commits
from benthic.rules import UnknownGameType, get_engine
from benthic.rules.bots import make_bot
from benthic.runtime.config import Settings
from benthic.runtime.redisconn import is_unavailable
from benthic.runtime.telemetry import (
    BOT_FAILURES,
    BOT_MOVE_LAG,
    BOT_MOVES,
    BOT_THINK,
    CLOCK_EXPIRIES,
    CLOCK_OVERDUE,
    log,
)
from benthic.store import Actor, GameMeta
from benthic.trust.identity import BOT_PLAYER_PREFIX
from services.bots.duesets import CLOCKS, MOVES, DueSets

TIMEKEEPER = Actor("timekeeper", "bot")


def now_ms() -> int:
    return int(time.time() * 1000)


def bot_for(meta: GameMeta, life: lc.Lifecycle, seat: int) -> tuple[str, int | None, str] | None:
    """(bot name, level, player id) of the bot playing ``seat`` now, or None when its player plays it."""
    holder = meta.seats[seat] if seat < len(meta.seats) else None
    if life.house_plays(seat):
        return lc.HOUSE_BOT, None, f"{BOT_PLAYER_PREFIX}{lc.HOUSE_BOT}"
    if holder is not None and holder.kind == "bot":
        return holder.bot, holder.level, holder.player_id
    return None


def managed(meta: GameMeta) -> bool:
    return meta.managed or lc.bots_look_after(meta.seats, meta.options)


class BotRunner:
    def __init__(self, play: PlayPath, due: DueSets, settings: Settings) -> None:
        self.play = play
        self.store = play.store
        self.due = due
        self.partitions = settings.partitions
        self.delay_ms = settings.bot_move_delay_ms
        self.lease_ms = max(100, int(settings.bot_lease_s * 1000))
        self.poll_s = settings.bot_poll_ms / 1000
        self.idle_poll_ms = max(settings.bot_poll_ms, settings.bot_idle_poll_ms)
        self.batch = 50
        self._wake = asyncio.Event()
        self._stopping = False
        self._bots: dict[tuple[str, int | None], Any] = {}

    # --- the feed handler --------------------------------------------------------------------------------------
    async def handle(self, notes: list[Notification]) -> None:
        games = {n.game_id: n.game_type for n in notes}
        outcomes = await asyncio.gather(*(self._schedule_logged(g, t) for g, t in games.items()))
        failures = [o for o in outcomes if o is not None]
        if failures:
            raise failures[0]

    async def _schedule_logged(self, game_id: str, game_type: str) -> Exception | None:
        try:
            await self.schedule(game_id)
        except UnknownGameType:
            log().error("unknown_game_type", game_id=game_id, game_type=game_type)
        except Exception as error:  # noqa: BLE001 - schedule the others, then fail the batch
            _log_failure("bot_schedule_failed", error, game_id=game_id)
            return error
        return None

    async def schedule(self, game_id: str) -> None:
        partition = partition_of(game_id, self.partitions)
        meta = await self.store.meta(game_id)
        if meta is None or not managed(meta):
            return
        if meta.status == "open":
            return
        engine = get_engine(meta.game_type)
        folded = await self.play.load(game_id, engine)
        if lc.is_finished(engine, folded.state, folded.life):
            await self.due.schedule(MOVES, partition, game_id, None)
            await self.due.schedule(CLOCKS, partition, game_id, None)
            return
        options = lc.parse_options(meta.options)
        if options.clock is not None and not folded.life.clock_on:
            await self.play.platform(game_id, f"clocks:{game_id}", TIMEKEEPER, platform_commits.clocks_started)
            return  # the clocks_started commit's notification schedules the rest
        move_due = self._move_due(engine, meta, folded)
        await self.due.schedule(MOVES, partition, game_id, move_due)
        deadline = lc.next_deadline(folded.life, options, len(meta.seats))
        await self.due.schedule(CLOCKS, partition, game_id, deadline[0] if deadline else None)
        if move_due is not None and move_due <= now_ms() or deadline and deadline[0] <= now_ms():
            self._wake.set()

    def _move_due(self, engine: Any, meta: GameMeta, folded: Folded) -> int | None:
        prompt = engine.prompt(folded.state)
        if prompt is None or not any(bot_for(meta, folded.life, s) for s in prompt.seats):
            return None
        return folded.life.last_ts + self.delay_ms

    # --- the loops ---------------------------------------------------------------------------------------------
    async def run(self) -> None:
        """Take what is due, then sleep until something may be: the earliest score the sets hold (a due time, a
        lease's end) or a due time this process scheduled meanwhile, looked at every ``BENTHIC_BOT_POLL_MS`` with
        no I/O; the sets themselves at least every ``BENTHIC_BOT_IDLE_POLL_MS`` (what another replica scheduled)."""
        while not self._stopping:
            worked = False
            looked = now_ms()
            self.due.noted = float("inf")  # what is scheduled from now on: the take below may not see it
            try:
                worked = await self.step()
            except Exception as error:  # noqa: BLE001 - Redis down, or a bug: log and go on
                _log_failure("bots_step_failed", error)
                await asyncio.sleep(1.0)
            while not worked and not self._stopping:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.poll_s)
                if self._wake.is_set():
                    break
                now = now_ms()
                if now >= self.due.next_look_ms() or now - looked >= self.idle_poll_ms:
                    break
            self._wake.clear()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()

    async def step(self) -> bool:
        """One pass over the due clocks and bot moves; True if anything was due."""
        now = now_ms()
        clocks = await self.due.take(CLOCKS, now, self.lease_ms, self.batch)
        moves = await self.due.take(MOVES, now, self.lease_ms, self.batch)
        lease_end = now + self.lease_ms
        await asyncio.gather(*(self._expire_logged(p, g, d, lease_end) for p, g, d in clocks))
        by_game: dict[str, tuple[int, int]] = {g: (p, d) for p, g, d in moves}
        await asyncio.gather(*(self._move_logged(p, g, d, lease_end) for g, (p, d) in by_game.items()))
        return bool(clocks or moves)

    async def _expire_logged(self, partition: int, game_id: str, due_ms: int, lease_end: int) -> None:
        try:
            await self.expire(partition, game_id)
        except Exception as error:  # noqa: BLE001 - the lease brings the game back
            _log_failure("clock_expiry_failed", error, game_id=game_id)
            return
        await self.due.settle(CLOCKS, partition, game_id, lease_end)

    async def _move_logged(self, partition: int, game_id: str, due_ms: int, lease_end: int) -> None:
        try:
            await self.move(partition, game_id)
        except UnknownGameType:
            log().error("unknown_game_type", game_id=game_id)
        except Exception as error:  # noqa: BLE001 - the lease brings the game back
            with contextlib.suppress(Exception):
                meta = await self.store.meta(game_id)
                BOT_FAILURES.labels(meta.game_type if meta else "").inc()
            _log_failure("bot_move_failed", error, game_id=game_id)
            return
        await self.due.settle(MOVES, partition, game_id, lease_end)

    async def expire(self, partition: int, game_id: str) -> None:
        meta = await self.store.meta(game_id)
        if meta is None:
            await self.due.schedule(CLOCKS, partition, game_id, None)
            return
        engine = get_engine(meta.game_type)
        folded = await self.play.load(game_id, engine)
        now = now_ms()
        made = platform_commits.expire(engine, meta, folded, now)
        if made is None:  # not due (yet): schedule the current deadline again
            deadline = lc.next_deadline(folded.life, lc.parse_options(meta.options), len(meta.seats))
            if not lc.is_finished(engine, folded.state, folded.life):
                await self.due.schedule(CLOCKS, partition, game_id, deadline[0] if deadline else None)
            return
        commit_made, seat, policy = made
        commit, _ = await self.play.platform(
            game_id, f"clock:{game_id}:{folded.version}", TIMEKEEPER, lambda *_: commit_made,
            expected_version=folded.version,
        )
        if commit is not None and not commit.duplicate:
            CLOCK_EXPIRIES.labels(meta.game_type, policy).inc()
            deadline = lc.next_deadline(folded.life, lc.parse_options(meta.options), len(meta.seats))
            log().info("clock_expired", game_id=game_id, seat=seat, policy=policy, version=commit.last_version,
                       late_ms=now - deadline[0] if deadline else None)

    async def move(self, partition: int, game_id: str) -> None:
        meta = await self.store.meta(game_id)
        if meta is None:
            await self.due.schedule(MOVES, partition, game_id, None)
            return
        engine = get_engine(meta.game_type)
        folded = await self.play.load(game_id, engine)
        if lc.is_finished(engine, folded.state, folded.life):
            return
        due = self._move_due(engine, meta, folded)
        if due is None:
            return
        if due > now_ms():
            await self.due.schedule(MOVES, partition, game_id, due)
            return
        prompt = engine.prompt(folded.state)
        if prompt is None:  # finished, or no seat to decide (is_finished said not: nothing to do)
            return
        seat = next(s for s in prompt.seats if bot_for(meta, folded.life, s))
        name, level, player_id = bot_for(meta, folded.life, seat)  # type: ignore[misc]
        bot = self._bot(name, level)
        rng = random.Random(f"{game_id}:{folded.version}:{seat}")
        started = time.perf_counter()
        command = await asyncio.to_thread(bot.choose, engine, folded.state, seat, rng)
        BOT_THINK.labels(meta.game_type, name).observe(time.perf_counter() - started)
        try:
            played = await self.play.play(
                engine, game_id, seat, command, f"bot:{game_id}:{folded.version}:{seat}", folded.version,
                Actor(player_id, "bot"),
            )
        except ApiError as error:
            if error.code in ("version_conflict", "game_finished"):
                return  # the game moved on meanwhile (another replica, a reclaim): its notification reschedules
            raise
        if not played.duplicate:
            BOT_MOVES.labels(meta.game_type, name).inc()
            BOT_MOVE_LAG.labels(meta.game_type).observe(max(0.0, (now_ms() - due) / 1000))

    def _bot(self, name: str, level: int | None) -> Any:
        bot = self._bots.get((name, level))
        if bot is None:
            bot = self._bots[(name, level)] = make_bot(name, level)
        return bot

    # --- metrics -----------------------------------------------------------------------------------------------
    async def metrics_loop(self, interval_s: float) -> None:
        while not self._stopping:
            with contextlib.suppress(Exception):
                oldest = await self.due.oldest(CLOCKS)
                CLOCK_OVERDUE.set(max(0.0, (now_ms() - oldest) / 1000) if oldest is not None else 0.0)
            await asyncio.sleep(interval_s)


def _log_failure(event: str, error: Exception, **fields: Any) -> None:
    """A step that failed because Redis is away (a failover, a restart) is retried by its lease: a warning, not
    an error (an error is a bug or a refusal nobody retries away)."""
    if is_unavailable(error) or isinstance(error, ApiError) and error.status == 503:
        log().warning(event, error=repr(error), store_unavailable=True, **fields)
    else:
        log().error(event, error=repr(error), **fields)
