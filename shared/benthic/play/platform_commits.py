"""The platform's own commits to a game: resign, reclaim, abort, clock expiry, clocks started, vacations.  Each
function decides, from the game's meta and folded state, the platform events to append (the Structs of
benthic.game.platform_events) or refuses with a clear error; ``PlayPath.platform`` appends them with the expected
version, so each applies exactly once.  (The lifecycle these events fold into, seats, clocks and their rules, is
benthic.game.lifecycle.)"""

from __future__ import annotations

import msgspec

from benthic.errors import ApiError
from benthic.game import lifecycle as lc
from benthic.game import platform_events as pe
from benthic.game.events import PLATFORM
from benthic.game.gamestate import Folded
from benthic.rules import AnyEngine
from benthic.store import GameMeta, NewEvent

MANAGED = {"bots": "1"}  # meta flag: the bots service looks after this game (house-bot seats, clocks)


class PlatformCommit(msgspec.Struct, frozen=True):
    events: list[NewEvent]
    ended: bool = False
    meta: dict[str, str] = {}


def event(made: pe.PlatformEvent) -> NewEvent:
    """The entry to append for a platform event (its type, its JSON)."""
    return NewEvent(pe.type_of(type(made)), pe.encode(made), kind=PLATFORM)


def _check_running(engine: AnyEngine, folded: Folded) -> None:
    if lc.is_finished(engine, folded.state, folded.life):
        raise ApiError(409, "game_finished", "the game is over: it accepts no more commands")


def _leaving(meta: GameMeta, folded: Folded, seat: int, left: list[NewEvent]) -> PlatformCommit:
    """A seat leaves (resigned or forfeited): the house bot plays it on, or the game ends when too few seats
    remain in play (lifecycle.MIN_SEATS_IN_PLAY)."""
    life = folded.life
    out = (*life.out, seat) if seat not in life.out else life.out
    after = msgspec.structs.replace(life, out=out)
    events = list(left)
    if lc.ends_after_leaving(after, len(meta.seats)):
        events.append(event(pe.GameEnded(reason="too_few_seats_in_play")))
        return PlatformCommit(events, ended=True, meta=MANAGED)
    reason = "resigned" if left[-1].type == pe.PLAYER_RESIGNED else "forfeit"
    events.append(event(pe.SeatTakenOver(seat=seat, reason=reason, bot=lc.HOUSE_BOT)))
    return PlatformCommit(events, meta=MANAGED)


def resign(engine: AnyEngine, meta: GameMeta, folded: Folded, seat: int, player_id: str) -> PlatformCommit:
    _check_running(engine, folded)
    if seat in folded.life.out:
        raise ApiError(409, "seat_resigned", f"seat {seat} has already left the game")
    return _leaving(meta, folded, seat, [event(pe.PlayerResigned(seat=seat, player_id=player_id))])


def reclaim(engine: AnyEngine, meta: GameMeta, folded: Folded, seat: int, player_id: str) -> PlatformCommit:
    _check_running(engine, folded)
    if seat in folded.life.out:
        raise ApiError(409, "seat_resigned", f"seat {seat} has left the game (resigned or forfeited) for good")
    if seat not in folded.life.taken_over:
        raise ApiError(409, "seat_not_taken_over", f"seat {seat} is played by its player: nothing to reclaim")
    return PlatformCommit([event(pe.SeatReclaimed(seat=seat, player_id=player_id))])


def abort(engine: AnyEngine, meta: GameMeta, folded: Folded, reason: str, by: str) -> PlatformCommit:
    _check_running(engine, folded)
    return PlatformCommit([event(pe.GameAborted(reason=reason, by=by))], ended=True)


def clocks_started(engine: AnyEngine, meta: GameMeta, folded: Folded) -> PlatformCommit | None:
    if folded.life.clock_on or lc.is_finished(engine, folded.state, folded.life) or meta.status != "running":
        return None
    return PlatformCommit([event(pe.ClocksStarted())], meta=MANAGED)


def expire(engine: AnyEngine, meta: GameMeta, folded: Folded, now_ms: int) -> tuple[PlatformCommit, int, str] | None:
    """The expiry of the earliest running clock if its deadline has passed: (commit, seat, policy)."""
    if lc.is_finished(engine, folded.state, folded.life):
        return None
    options = lc.parse_options(meta.options)
    due = lc.next_deadline(folded.life, options, len(meta.seats))
    if due is None or due[0] > now_ms:
        return None
    deadline, seat = due
    policy = options.on_expiry
    expired = event(pe.ClockExpired(seat=seat, deadline_ms=deadline, policy=policy))
    if policy == "abort":
        aborted = event(pe.GameAborted(reason=f"clock_expired:seat{seat}", by="timekeeper"))
        return PlatformCommit([expired, aborted], ended=True), seat, policy
    if policy == "forfeit":
        return _leaving(meta, folded, seat, [expired, event(pe.SeatForfeited(seat=seat))]), seat, policy
    taken = event(pe.SeatTakenOver(seat=seat, reason="clock", bot=lc.HOUSE_BOT))
    return PlatformCommit([expired, taken], meta=MANAGED), seat, policy


def _seat_of(meta: GameMeta, player_id: str) -> int | None:
    return next((i for i, s in enumerate(meta.seats) if s is not None and s.kind != "bot" and s.player_id == player_id),
                None)


def vacation_started(engine: AnyEngine, meta: GameMeta, folded: Folded, player_id: str,
                     until_ms: int) -> PlatformCommit | None:
    """The player's seat goes on vacation until ``until_ms`` (its clock stops); None when the game is over, the
    player holds no seat, or the seat is away already."""
    seat = _seat_of(meta, player_id)
    if seat is None or lc.is_finished(engine, folded.state, folded.life) or seat in folded.life.away:
        return None
    return PlatformCommit([event(pe.VacationStarted(seat=seat, player_id=player_id, until_ms=until_ms))])


def vacation_ended(engine: AnyEngine, meta: GameMeta, folded: Folded, player_id: str,
                   reason: str) -> PlatformCommit | None:
    """The player's seat is back (``reason``: returned, moved, elapsed); None when it is not away (or the game is
    over).  ``moved``: the seat's move just ended it in the fold (the command service saw the seat away when it
    decided the move), so it is recorded even though the seat is no longer away, and even when that move ended
    the game: this event is how the matchmaker learns of the move and ends the vacation in the other games."""
    seat = _seat_of(meta, player_id)
    away = seat in folded.life.away or reason == "moved"
    over = lc.is_finished(engine, folded.state, folded.life) and reason != "moved"
    if seat is None or not away or over:
        return None
    return PlatformCommit([event(pe.VacationEnded(seat=seat, player_id=player_id, reason=reason))])
