"""The waves: every ``BENTHIC_MATCH_WAVE_S`` the waiting tickets are paired (pairing.py) and the tables decided
are appended to the pool as ``match_made`` events; between waves, what the pool's fold says is still to do is done:
games created for the matches made (``match_seated``), their ``match.found`` published (``announced``), tickets
past their expiry closed (``ticket_expired``, then ``ticket.expired`` published), invitations started or expired.

Idempotent whatever is killed when: a match is appended before its game exists and names its game id (derived from
the match id), so the game is created through the play path's idempotent creation at most once however often it is
tried; a ticket leaves the waiting tickets in the same append that matches it, so it is never at two tables; every
decision is appended at the pool version it was decided on (store.py), so a wave racing a cancellation, or another
replica, loses cleanly and decides again.  One replica at a time runs the waves (a lease in the pool's slot); the
lease is for economy only: correctness never depends on it."""

from __future__ import annotations

import asyncio
import contextlib
import time
from typing import Any

import msgspec

from benthic.errors import ApiError
from benthic.feed.integration import (
    MatchedSeat,
    MatchFound,
    TicketExpired,
    encode_entry,
    match_found_id,
    ticket_expired_id,
    webhook_stream,
)
from benthic.game.keys import PlayerKeys
from benthic.play.creation import GameCreation
from benthic.rules import get_engine
from benthic.runtime.config import Settings
from benthic.runtime.redisconn import is_unavailable
from benthic.runtime.telemetry import (
    MATCH_PAIRING_SECONDS,
    MATCH_TICKETS_WAITING,
    MATCH_WAVES,
    MATCHES_MADE,
    TICKETS_CLOSED,
    log,
)
from benthic.store import Actor, SeatInfo
from services.matchmaker import events as ev
from services.matchmaker.pairing import Candidate, Pairing, Params, game_id_of, match_id, seat_order
from services.matchmaker.pool import WAITING, Invitation, Match, Pool
from services.matchmaker.store import Streams, pool_tag

MATCHMAKER = Actor("matchmaker", "matchmaker")
CHUNK = 200  # matches per append


def now_ms() -> int:
    return int(time.time() * 1000)


def params_of(settings: Settings) -> Params:
    return Params(window_base=settings.match_window_base, window_growth=settings.match_window_growth,
                  window_max=settings.match_window_max, priority=settings.match_priority)


class Waves:
    def __init__(self, streams: Streams, creation: GameCreation, settings: Settings, redis: Any) -> None:
        self.streams = streams
        self.creation = creation
        self.redis = redis
        self.settings = settings
        self.params = params_of(settings)
        self.wave_ms = int(settings.match_wave_s * 1000)
        self.me = settings.consumer_name
        self.lease_key = f"{pool_tag()}:leader"
        self._wake = asyncio.Event()
        self._stopping = False
        self._next_wave = 0
        self.last_wave_ms = 0.0

    def kick(self) -> None:
        """Something may be due now (an invitation answered): look soon, without waiting for the next wave."""
        self._wake.set()

    def stop(self) -> None:
        self._stopping = True
        self._wake.set()

    async def run(self) -> None:
        while not self._stopping:
            try:
                if await self._lead():
                    await self.step()
            except Exception as error:  # noqa: BLE001 - Redis away, a bug: log, go on
                _log_failure("matchmaker_step_failed", error)
                await asyncio.sleep(1.0)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), min(1.0, self.settings.match_wave_s))
            self._wake.clear()

    async def _lead(self) -> bool:
        lease = max(3 * self.wave_ms, 5000)
        if await self.redis.set(self.lease_key, self.me, nx=True, px=lease):
            return True
        holder = await self.redis.get(self.lease_key)
        if holder is not None and (holder.decode() if isinstance(holder, bytes) else holder) == self.me:
            await self.redis.pexpire(self.lease_key, lease)
            return True
        return False

    async def step(self) -> None:
        """What is due now: the pending work, and a wave when its time has come."""
        await self.settle()
        if now_ms() >= self._next_wave:
            self._next_wave = now_ms() + self.wave_ms
            await self.wave()
            await self.settle()

    # --- the wave ---------------------------------------------------------------------------------------------
    async def wave(self) -> int:
        """Pair the waiting tickets; returns the matches made."""
        pool = await self.streams.catch_up(self.streams.pool)
        waiting = list(pool.waiting.values())
        MATCH_TICKETS_WAITING.set(len(waiting))
        if not waiting:
            return 0
        started = time.perf_counter()
        players = [t.player_id for t in waiting]
        folds = await self.streams.players(players)
        open_games = await self._open_games(players)
        now = now_ms()
        cap = self.settings.max_open_games_per_player
        candidates = []
        for t in waiting:
            if folds[t.player_id].on_vacation(now) or (cap and open_games.get(t.player_id, 0) >= cap):
                continue
            o = t.opened
            candidates.append(Candidate(t.id, t.player_id, o.rating, pool.misses(t), o.seats_min, o.seats_max,
                                        (o.game_type, _key(o.options), o.pace, o.rated), o.window))

        def blocked(a: str, b: str) -> bool:
            return b in folds[a].blocks or a in folds[b].blocks

        tables = Pairing(self.params, blocked).tables(candidates)
        tables = _within_cap(tables, open_games, cap)
        MATCH_PAIRING_SECONDS.observe(time.perf_counter() - started)
        self.last_wave_ms = (time.perf_counter() - started) * 1000
        wave = pool.waves + 1
        made = [self._made(pool, wave, [c.ticket_id for c in table], now) for table in tables]
        chunks = [made[i:i + CHUNK] for i in range(0, len(made), CHUNK)] or [[]]
        matched = 0
        for i, chunk in enumerate(chunks):
            last = i == len(chunks) - 1

            def decide(pool: Pool, chunk: list[ev.MatchMade] = chunk, last: bool = last, so_far: int = matched,
                       ) -> list[ev.Event]:
                fresh: list[ev.Event] = [m for m in chunk if all(
                    (t := pool.tickets.get(tid)) is not None and t.status == WAITING for tid in m.tickets)]
                if last and pool.waves < wave:
                    fresh.append(ev.WaveRan(at=now, wave=wave, waiting=len(waiting), matched=so_far + len(fresh)))
                return fresh

            _, appended = await self.streams.transact(self.streams.pool, decide)
            matched += sum(isinstance(e, ev.MatchMade) for e in appended)
        MATCH_WAVES.inc()
        if matched:
            MATCHES_MADE.labels("wave").inc(matched)
        log().info("wave", wave=wave, waiting=len(waiting), candidates=len(candidates), matched=matched,
                   pairing_ms=round(self.last_wave_ms, 1))
        return matched

    def _made(self, pool: Pool, wave: int, ticket_ids: list[str], now: int) -> ev.MatchMade:
        mid = match_id(ticket_ids)
        ordered = seat_order(mid, ticket_ids)
        first = pool.tickets[ordered[0]].opened
        return ev.MatchMade(at=now, match_id=mid, game_id=game_id_of(mid, first.game_type), game_type=first.game_type,
                            options=first.options, rated=first.rated, pace=first.pace,
                            players=[pool.tickets[t].player_id for t in ordered],
                            names=[pool.tickets[t].opened.name for t in ordered], tickets=ordered, wave=wave)

    async def _open_games(self, players: list[str]) -> dict[str, int]:
        unique = list(dict.fromkeys(players))
        async with self.redis.pipeline(transaction=False) as pipe:
            for p in unique:
                pipe.zcard(PlayerKeys(p).games)
            counts = await pipe.execute()
        return dict(zip(unique, (int(c) for c in counts), strict=True))

    # --- what the pool says is still to do --------------------------------------------------------------------
    async def settle(self) -> None:
        await self._close_due()
        await self._seat_pending()
        await self._announce()

    async def _close_due(self) -> None:
        now = now_ms()

        def decide(pool: Pool) -> list[ev.Event]:
            made: list[ev.Event] = [ev.TicketExpired(at=now, ticket_id=t.id) for t in pool.waiting.values()
                                    if t.opened.expires_at <= now]
            for invitation in pool.invitations.values():
                if invitation.status == "open":
                    made.extend(_invitation_due(invitation, now))
            return made

        _, closed = await self.streams.transact(self.streams.pool, decide)
        for event in closed:
            if isinstance(event, ev.TicketExpired):
                TICKETS_CLOSED.labels("expired").inc()
            elif isinstance(event, ev.MatchMade):
                MATCHES_MADE.labels("invitation").inc()

    async def _seat_pending(self) -> None:
        pool = await self.streams.catch_up(self.streams.pool)
        for match in [m for m in pool.pending.values() if not m.seated]:
            await self._seat(match)

    async def _seat(self, match: Match) -> None:
        made = match.made
        seats: list[SeatInfo | None] = [SeatInfo(p, n, "player") for p, n in zip(made.players, made.names,
                                                                                   strict=True)]
        try:
            opened = await self.creation.create(get_engine(made.game_type), made.game_id, seats, made.options,
                                                rated=made.rated, actor=MATCHMAKER, capped=False)
        except ApiError as refused:
            if refused.status >= 500:
                raise
            log().error("match_game_refused", match_id=made.match_id, code=refused.code, error=refused.message)
            outcome: ev.Event = ev.MatchFailed(at=now_ms(), match_id=made.match_id, reason=refused.code)
        else:
            outcome = ev.MatchSeated(at=now_ms(), match_id=made.match_id, game_id=opened.game_id,
                                     version=opened.version)
            log().info("match_seated", match_id=made.match_id, game_id=opened.game_id, duplicate=opened.duplicate,
                       players=made.players)

        def decide(pool: Pool) -> list[ev.Event]:
            current = pool.matches.get(made.match_id)
            return [outcome] if current is not None and not current.seated and not current.failed else []

        await self.streams.transact(self.streams.pool, decide)

    async def _announce(self) -> None:
        """Publish ``match.found`` of the seated matches and ``ticket.expired`` of the expired tickets, then record
        that they were (published again after a crash in between: at least once, the same event ids)."""
        pool = await self.streams.catch_up(self.streams.pool)
        matches = [m for m in pool.pending.values() if m.seated and not m.announced]
        tickets = list(pool.unannounced.values())
        if not matches and not tickets:
            return
        stream, cap = self.settings.integration_stream, self.settings.integration_maxlen
        notified = webhook_stream(stream)  # the notifier's copy (few: one entry per match or expired ticket)
        async with self.redis.pipeline(transaction=False) as pipe:
            for m in matches:
                made = m.made
                seats = [MatchedSeat(seat=i, player_id=p, ticket_id=made.tickets[i] if made.tickets else None)
                         for i, p in enumerate(made.players)]
                found = MatchFound(id=match_found_id(made.match_id), game_id=made.game_id, game_type=made.game_type,
                                   at=made.at, match_id=made.match_id, rated=made.rated, pace=made.pace, seats=seats,
                                   invitation_id=made.invitation_id or None)
                entry = encode_entry(found)
                pipe.xadd(stream, {"__data__": entry}, maxlen=cap, approximate=True)
                pipe.xadd(notified, {"__data__": entry}, maxlen=cap, approximate=True)
            for t in tickets:
                expired = TicketExpired(id=ticket_expired_id(t.id), game_type=t.opened.game_type,
                                        at=t.closed_at or now_ms(), ticket_id=t.id, player_id=t.player_id,
                                        waited_ms=(t.closed_at or now_ms()) - t.opened.at)
                entry = encode_entry(expired)
                pipe.xadd(stream, {"__data__": entry}, maxlen=cap, approximate=True)
                pipe.xadd(notified, {"__data__": entry}, maxlen=cap, approximate=True)
            await pipe.execute()
        done = ev.Announced(at=now_ms(), matches=[m.id for m in matches], tickets=[t.id for t in tickets])
        await self.streams.transact(self.streams.pool, lambda pool: [done])


def _invitation_due(invitation: Invitation, now: int) -> list[ev.Event]:
    """An open invitation's next step, if it has one: started (its match made), expired or declined."""
    s = invitation.sent
    accepted = invitation.accepted()
    seated = 1 + len(accepted)
    pending = len(s.invitees) - len(invitation.answers)
    if seated >= s.seats_max or (pending == 0 and seated >= s.seats_min) or (s.expires_at <= now
                                                                               and seated >= s.seats_min):
        players = [s.inviter, *accepted[:s.seats_max - 1]]
        names = [s.inviter_name, *(invitation.answers[p][1] for p in players[1:])]
        mid = "m_inv_" + s.invitation_id
        order = seat_order(mid, players)
        made = ev.MatchMade(at=now, match_id=mid, game_id=game_id_of(mid, s.game_type), game_type=s.game_type,
                            options=s.options, rated=s.rated, pace=s.pace, players=order,
                            names=[names[players.index(p)] for p in order], invitation_id=s.invitation_id)
        return [made, ev.InvitationClosed(at=now, invitation_id=s.invitation_id, outcome="started", match_id=mid)]
    if seated + pending < s.seats_min:
        return [ev.InvitationClosed(at=now, invitation_id=s.invitation_id, outcome="declined")]
    if s.expires_at <= now:
        return [ev.InvitationClosed(at=now, invitation_id=s.invitation_id, outcome="expired")]
    return []


def _within_cap(tables: list[tuple[Candidate, ...]], open_games: dict[str, int], cap: int) -> list[tuple[Candidate,
                                                                                                         ...]]:
    """The tables of a wave that keep every player within the cap on unfinished games (a player with several
    tickets may be matched at several tables in one wave)."""
    if not cap:
        return tables
    counts = dict(open_games)
    kept = []
    for table in tables:
        if all(counts.get(c.player_id, 0) < cap for c in table):
            kept.append(table)
            for c in table:
                counts[c.player_id] = counts.get(c.player_id, 0) + 1
    return kept


def _key(options: dict[str, Any]) -> str:
    return msgspec.json.encode(options, order="sorted").decode()


def _log_failure(event: str, error: Exception) -> None:
    if is_unavailable(error) or isinstance(error, ApiError) and error.status == 503:
        log().warning(event, error=repr(error), store_unavailable=True)
    else:
        log().error(event, error=repr(error))
