"""Vacations in the games: a vacation started or ended in a player's stream (the budget's decision, player.py) is
carried to every game the player sat in when it started, as the platform events ``vacation_started`` /
``vacation_ended`` appended through the play path (benthic.play: the same path as the clocks' expiries), each with
a command id derived from the vacation (``vacation:<player>:<n>``, ``vacation-end:<player>:<n>``): applied once per
game however often it is tried.

What must still be done survives the process: before a vacation is decided, the player is put in a schedule
(``{mm:due}``: player -> when to look next); the sweep (:meth:`Vacations.sweep`) applies the current vacation to its
games again (duplicates change nothing), ends a vacation whose days ran out (``elapsed``), and takes the player out
once nothing is left.  A player's first move while on vacation ends it (the command service appends
``vacation_ended`` with reason ``moved`` to that game; :meth:`Vacations.handle` follows the lifecycle feeds and ends
it everywhere)."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import msgspec

from benthic.errors import ApiError
from benthic.feed.notification import Notification
from benthic.game import platform_events as pe
from benthic.play import PlayerGames, PlayPath, platform_commits
from benthic.runtime.telemetry import VACATIONS, log
from benthic.store import Actor
from services.matchmaker import events as ev
from services.matchmaker.player import DAY_MS, PlayerState
from services.matchmaker.store import Streams

DUE = "{mm:due}"
LEASE_MS = 30_000
_ended: msgspec.json.Decoder[pe.VacationEnded] = pe.EVENTS[pe.VACATION_ENDED].decoder


def now_ms() -> int:
    return int(time.time() * 1000)


class Vacations:
    def __init__(self, streams: Streams, play: PlayPath, players: PlayerGames, redis: Any) -> None:
        self.streams = streams
        self.play = play
        self.players = players
        self.redis = redis

    async def start(self, player_id: str, days: int) -> PlayerState:
        games = [m.game_id for m in await self.players.unfinished(player_id)]
        now = now_ms()
        await self.redis.zadd(DUE, {player_id: now})  # before the decision: a crash after it leaves work found

        def decide(state: PlayerState) -> list[ev.Event]:
            if state.on_vacation(now) is not None:
                raise ApiError(409, "already_on_vacation", "you are on vacation already")
            available = state.available(now)
            if state.current_record() is None and days > available:
                raise ApiError(409, "vacation_budget_exceeded", f"your vacation budget holds {available} days",
                               {"available_days": available})
            ending: list[ev.Event] = []
            old = state.current_record()
            if old is not None:  # ran out, not recorded yet
                ending.append(ev.VacationEnded(at=now, number=old.number, reason="elapsed",
                                               charged=state.policy.charge(old.started.at, old.started.until,
                                                                           old.started.days)))
            return [*ending, ev.VacationStarted(at=now, number=state.next_vacation(), days=days,
                                                until=now + days * DAY_MS, games=games)]

        state, made = await self.streams.transact(self.streams.player(player_id), decide)
        VACATIONS.labels("started").inc()
        started = next(e for e in made if isinstance(e, ev.VacationStarted))
        await self._apply_start(player_id, started)
        await self.redis.zadd(DUE, {player_id: started.until})
        log().info("vacation_started", player_id=player_id, days=days, until=started.until, games=len(games))
        return state

    async def end(self, player_id: str, reason: str, game_id: str = "", refuse: bool = True) -> PlayerState:
        """End the current vacation (``reason`` returned, moved, elapsed); 409 ``not_on_vacation`` (if ``refuse``)
        when there is none."""
        now = now_ms()
        await self.redis.zadd(DUE, {player_id: now})

        def decide(state: PlayerState) -> list[ev.Event]:
            current = state.current_record()
            if current is None:
                if refuse:
                    raise ApiError(409, "not_on_vacation", "you are not on vacation")
                return []
            s = current.started
            ended = min(now, s.until)
            why = "elapsed" if s.until <= now else reason
            return [ev.VacationEnded(at=now, number=s.number, reason=why, charged=state.policy.charge(s.at, ended,
                                                                                                       s.days),
                                     game_id=game_id)]

        state, made = await self.streams.transact(self.streams.player(player_id), decide)
        if made:
            done = made[0]
            assert isinstance(done, ev.VacationEnded)
            VACATIONS.labels(done.reason).inc()
            log().info("vacation_ended", player_id=player_id, reason=done.reason, charged=done.charged)
        await self._apply_ends(player_id, state)
        await self.redis.zrem(DUE, player_id)
        return state

    async def _apply_start(self, player_id: str, started: ev.VacationStarted) -> None:
        command_id = f"vacation:{player_id}:{started.number}"
        await asyncio.gather(*(self._platform(game, command_id, player_id, lambda e, m, f: platform_commits
                                              .vacation_started(e, m, f, player_id, started.until))
                               for game in started.games))

    async def _apply_ends(self, player_id: str, state: PlayerState) -> None:
        """Every ended vacation's games get their vacation_ended (a no-op where it is there already)."""
        for vacation in state.vacations[-2:]:
            if vacation.ended is None:
                continue
            command_id = f"vacation-end:{player_id}:{vacation.number}"
            back = _ender(player_id, vacation.ended.reason)
            await asyncio.gather(*(self._platform(game, command_id, player_id, back)
                                   for game in vacation.started.games))

    async def _platform(self, game_id: str, command_id: str, player_id: str, decide: Any) -> None:
        try:
            await self.play.platform(game_id, command_id, Actor(player_id, "matchmaker"), decide)
        except ApiError as refused:
            if refused.status >= 500:
                raise
            log().info("vacation_game_skipped", game_id=game_id, code=refused.code)  # gone, finished, archived

    # --- the schedule -----------------------------------------------------------------------------------------
    async def sweep(self) -> int:
        """Look at every player due now (leased: a sweeper that dies leaves them for another after LEASE_MS)."""
        now = now_ms()
        due = await self.redis.zrangebyscore(DUE, "-inf", now, start=0, num=100)
        for raw in due:
            player_id = raw.decode() if isinstance(raw, bytes) else raw
            await self.redis.zadd(DUE, {player_id: now + LEASE_MS}, xx=True)
            state = (await self.streams.players([player_id]))[player_id]
            current = state.current_record()
            if current is None:
                await self._apply_ends(player_id, state)
                await self.redis.zrem(DUE, player_id)
            elif current.started.until <= now:
                await self.end(player_id, "elapsed", refuse=False)
            else:
                await self._apply_start(player_id, current.started)
                await self.redis.zadd(DUE, {player_id: current.started.until})
        return len(due)

    # --- the lifecycle feeds: a move ends the vacation everywhere ---------------------------------------------
    async def handle(self, notes: list[Notification]) -> None:
        for note in notes:
            if pe.VACATION_ENDED not in note.types:
                continue
            for envelope in await self.play.store.load(note.game_id, after=note.first_version - 1,
                                                       until=note.last_version):
                if envelope.type != pe.VACATION_ENDED or envelope.is_engine:
                    continue
                ended = _ended.decode(envelope.data)
                if ended.reason == "moved":
                    await self.end(ended.player_id, "moved", note.game_id, refuse=False)


def _ender(player_id: str, reason: str) -> Any:
    """The decision of a vacation's end in one game: ``moved`` is the command service's (the move's own game);
    the player's other games record ``moved_elsewhere``, only where the seat is still away."""
    why = "moved_elsewhere" if reason == "moved" else reason
    return lambda engine, meta, folded: platform_commits.vacation_ended(engine, meta, folded, player_id, why)
