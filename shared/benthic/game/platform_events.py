"""Every platform event in one table: its type (the name stored in the stream), its msgspec Struct (the JSON
stored and served, ``{"type": ..., <fields in declaration order>}``) and its fold into the lifecycle
(:class:`benthic.game.lifecycle.Lifecycle`).  Platform events are the entries of kind ``p`` of a game's stream,
appended by the platform beside the engine's (the decisions: ``benthic.play.platform_commits``, the undo
``benthic.game.undo``, the scoring service); they are public, every history shows them as stored.

Adding one (CONTRIBUTING.md, "Adding a platform event"): its Struct and fold here plus one row of ``EVENTS``, the
decision in ``platform_commits.py``, its route, its sentence (``benthic/i18n/platform_sentences.json`` and the
``.po``).  tests/unit/test_platform_events.py fails while one of them is missing.

The JSON of each Struct is exactly the bytes the streams, archives and clients hold: do not rename, reorder or
remove a field (a new field gets a default, so the entries stored before it still decode).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, NamedTuple

import msgspec

if TYPE_CHECKING:
    from benthic.game.lifecycle import Lifecycle


class PlatformEvent(msgspec.Struct, frozen=True, tag_field="type"):
    """What every platform event is: a Struct tagged with its type (``type`` is the first key of its JSON)."""


CLOCKS_STARTED = "clocks_started"
CLOCK_EXPIRED = "clock_expired"
SEAT_TAKEN_OVER = "seat_taken_over"
SEAT_RECLAIMED = "seat_reclaimed"
PLAYER_RESIGNED = "player_resigned"
SEAT_FORFEITED = "seat_forfeited"
GAME_ABORTED = "game_aborted"
GAME_ENDED = "game_ended"
VACATION_STARTED = "vacation_started"
VACATION_ENDED = "vacation_ended"
COMMAND_UNDONE = "command_undone"
GAME_SCORED = "game_scored"


# --- the events -------------------------------------------------------------------------------------------------

class ClocksStarted(PlatformEvent, frozen=True, tag=CLOCKS_STARTED):
    """The game is running: the seats' clocks run from now on."""


class ClockExpired(PlatformEvent, frozen=True, tag=CLOCK_EXPIRED):
    """A seat's time ran out (appended by the timekeeper); ``policy``: the game's option ``on_expiry``."""

    seat: int
    deadline_ms: int
    policy: str


class SeatTakenOver(PlatformEvent, frozen=True, tag=SEAT_TAKEN_OVER):
    """The house bot plays the seat (``reason``: clock, resigned, forfeit); only a clock takeover is reclaimable."""

    seat: int
    reason: str
    bot: str


class SeatReclaimed(PlatformEvent, frozen=True, tag=SEAT_RECLAIMED):
    """The player took the seat back after a clock takeover."""

    seat: int
    player_id: str


class PlayerResigned(PlatformEvent, frozen=True, tag=PLAYER_RESIGNED):
    """Ranked last; the house bot plays the seat on."""

    seat: int
    player_id: str


class SeatForfeited(PlatformEvent, frozen=True, tag=SEAT_FORFEITED):
    """Clock expiry under the forfeit policy: ranked last."""

    seat: int


class GameAborted(PlatformEvent, frozen=True, tag=GAME_ABORTED):
    """The operator (or a clock under the abort policy) aborted the game: unrated."""

    reason: str
    by: str


class GameEnded(PlatformEvent, frozen=True, tag=GAME_ENDED):
    """The platform ends the game before the rules do."""

    reason: str


class VacationStarted(PlatformEvent, frozen=True, tag=VACATION_STARTED):
    """The seat's player is on vacation: its clock stops until ``until_ms``."""

    seat: int
    player_id: str
    until_ms: int


class VacationEnded(PlatformEvent, frozen=True, tag=VACATION_ENDED):
    """Back before the end (``reason``: returned, moved, moved_elsewhere, elapsed)."""

    seat: int
    player_id: str
    reason: str


class CommandUndone(PlatformEvent, frozen=True, tag=COMMAND_UNDONE):
    """``seat`` took back its commit ``command_id`` (versions first..last): every fold skips those versions
    (``benthic.game.undo``, ``benthic.game.gamestate``)."""

    seat: int
    command_id: str
    first_version: int
    last_version: int


class GameScored(PlatformEvent, frozen=True, tag=GAME_SCORED):
    """Appended by the scoring service from the engine's final_scores."""

    game_type: str
    results: list[dict[str, Any]]
    details: dict[str, Any] = {}
    players: list[str] = []
    rated: bool = False  # only rated games change ratings and leaderboards


# --- the folds: the lifecycle after one event at ts_ms ------------------------------------------------------------

def unchanged(life: Lifecycle, event: Any, ts_ms: int) -> Lifecycle:
    """The fold of an event the lifecycle does not read (the lifecycle skips decoding it)."""
    return life


def _clocks_started(life: Lifecycle, event: ClocksStarted, ts_ms: int) -> Lifecycle:
    return msgspec.structs.replace(life, clock_on=True)


def _seat_taken_over(life: Lifecycle, event: SeatTakenOver, ts_ms: int) -> Lifecycle:
    if event.reason != "clock":  # after a resignation or forfeit the seat is out already
        return life
    return msgspec.structs.replace(life, taken_over=(*life.taken_over, event.seat))


def _seat_reclaimed(life: Lifecycle, event: SeatReclaimed, ts_ms: int) -> Lifecycle:
    seat = event.seat
    used = {s: v for s, v in life.used.items() if s != seat}
    moves = {s: v for s, v in life.moves.items() if s != seat}
    since = dict(life.since)
    if seat in since:
        since[seat] = ts_ms  # a fresh clock from now
    return msgspec.structs.replace(life, taken_over=tuple(s for s in life.taken_over if s != seat), used=used,
                                   moves=moves, since=since)


def _leaves(life: Lifecycle, seat: int, forfeit: bool) -> Lifecycle:
    if seat in life.out:
        return life
    forfeited = (*life.forfeited, seat) if forfeit else life.forfeited
    return msgspec.structs.replace(life, out=(*life.out, seat), forfeited=forfeited,
                                   taken_over=tuple(s for s in life.taken_over if s != seat))


def _player_resigned(life: Lifecycle, event: PlayerResigned, ts_ms: int) -> Lifecycle:
    return _leaves(life, event.seat, forfeit=False)


def _seat_forfeited(life: Lifecycle, event: SeatForfeited, ts_ms: int) -> Lifecycle:
    return _leaves(life, event.seat, forfeit=True)


def _game_aborted(life: Lifecycle, event: GameAborted, ts_ms: int) -> Lifecycle:
    return msgspec.structs.replace(life, aborted=event.reason)


def _game_ended(life: Lifecycle, event: GameEnded, ts_ms: int) -> Lifecycle:
    return msgspec.structs.replace(life, ended=event.reason)


def _vacation_started(life: Lifecycle, event: VacationStarted, ts_ms: int) -> Lifecycle:
    seat, until = event.seat, event.until_ms
    since, used = dict(life.since), dict(life.used)
    if seat in since:  # the running stretch ends now; the clock starts again when the vacation does
        used[seat] = used.get(seat, 0) + max(0, ts_ms - since[seat])
        since[seat] = max(ts_ms, until)
    return msgspec.structs.replace(life, away={**life.away, seat: until}, since=since, used=used)


def _vacation_ended(life: Lifecycle, event: VacationEnded, ts_ms: int) -> Lifecycle:
    return back_from_vacation(life, event.seat, ts_ms) if event.seat in life.away else life


def back_from_vacation(life: Lifecycle, seat: int, ts_ms: int) -> Lifecycle:
    """The seat's vacation ends at ``ts_ms``: a clock waiting for its end starts now (also the seat's own move)."""
    since = dict(life.since)
    if since.get(seat, 0) > ts_ms:
        since[seat] = ts_ms
    return msgspec.structs.replace(life, away={s: u for s, u in life.away.items() if s != seat}, since=since)


# --- the table --------------------------------------------------------------------------------------------------

Fold = Callable[["Lifecycle", Any, int], "Lifecycle"]


class Kind(NamedTuple):
    """One row of the table: a platform event's Struct, its fold, its JSON decoder."""

    struct: type[PlatformEvent]
    fold: Fold
    decoder: msgspec.json.Decoder[Any]


def type_of(struct: type[PlatformEvent]) -> str:
    """The type a Struct is stored under (its tag)."""
    return str(struct.__struct_config__.tag)


def _table(*rows: tuple[type[PlatformEvent], Fold]) -> dict[str, Kind]:
    return {type_of(struct): Kind(struct, fold, msgspec.json.Decoder(struct)) for struct, fold in rows}


EVENTS: dict[str, Kind] = _table(
    (ClocksStarted, _clocks_started),
    (ClockExpired, unchanged),  # what it does comes with it: a takeover, a forfeit or an abort
    (SeatTakenOver, _seat_taken_over),
    (SeatReclaimed, _seat_reclaimed),
    (PlayerResigned, _player_resigned),
    (SeatForfeited, _seat_forfeited),
    (GameAborted, _game_aborted),
    (GameEnded, _game_ended),
    (VacationStarted, _vacation_started),
    (VacationEnded, _vacation_ended),
    (CommandUndone, unchanged),  # voids versions: every fold skips them (benthic.game.gamestate)
    (GameScored, unchanged),
)
TYPES = frozenset(EVENTS)
AnyPlatformEvent = (ClocksStarted | ClockExpired | SeatTakenOver | SeatReclaimed | PlayerResigned | SeatForfeited
                    | GameAborted | GameEnded | VacationStarted | VacationEnded | CommandUndone | GameScored)

_encoder = msgspec.json.Encoder()


def encode(event: PlatformEvent) -> bytes:
    """The JSON stored in the stream (``{"type": ..., ...}``)."""
    return _encoder.encode(event)


def decode(type_: str, data: bytes) -> PlatformEvent | None:
    """The event an entry of kind ``p`` holds, or None for a type not in the table.  msgspec.ValidationError
    (a DecodeError) when ``data`` is not that event."""
    kind = EVENTS.get(type_)
    return kind.decoder.decode(data) if kind is not None else None


def fold(life: Lifecycle, type_: str, data: bytes, ts_ms: int) -> Lifecycle:
    """``life`` after one platform event (type, JSON) of a commit made at ``ts_ms``; a type not in the table, or
    one the lifecycle does not read, leaves it unchanged."""
    kind = EVENTS.get(type_)
    if kind is None or kind.fold is unchanged:
        return life
    return kind.fold(life, kind.decoder.decode(data), ts_ms)
