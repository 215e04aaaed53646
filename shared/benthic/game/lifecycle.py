"""The game lifecycle around the rules: who controls each seat (its player, its bot, or the house bot after a
takeover, a resignation or a forfeit), turn clocks, resignations, aborts.  Pure: folded from the platform
events of a game's stream (kind ``p``) and the timestamps of its commits, like an engine state from its events.

Platform events (public, shown in every history as stored): their Structs and their folds into the lifecycle are
one table, ``benthic.game.platform_events`` (``clocks_started``, ``clock_expired``, ``seat_taken_over``,
``seat_reclaimed``, ``player_resigned``, ``seat_forfeited``, ``game_aborted``, ``game_ended``, ``vacation_started``,
``vacation_ended``; ``command_undone`` and ``game_scored`` leave the lifecycle as it is).

Clocks (docs/INTEGRATION.md, "Bots, clocks, resign and abort"): a *move* is one accepted command of the seat.
Fischer: each seat has ``initial_s`` and gains ``increment_s`` per move; its time runs while it is prompted.
Per move: each move must come within ``per_move_s`` of the seat being prompted.  A seat on vacation (the
matchmaker's vacations, services/matchmaker) has its clock stopped: a running stretch is closed when the vacation
starts and the seat's clock starts again at its ``until_ms`` (``since`` is then in the future), or at the
``vacation_ended`` before it; the seat's own move ends its vacation in the game too.  A seat's clock restarts from
scratch when the player reclaims it; the clock of a seat the house bot plays is not enforced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib.resources import files
from typing import Any

import msgspec

from benthic.game import platform_events
from benthic.game.platform_events import back_from_vacation
from benthic.rules import AnyEngine, FinalScores, SeatResult

HOUSE_BOT = "greedy"  # the bot that plays a seat after a takeover, a resignation or a forfeit
POLICIES = ("takeover", "forfeit", "abort")
UNDO_MODES = ("turn", "off")  # the option undo (benthic.game.undo)
MIN_SEATS_IN_PLAY = 2  # a resignation or forfeit leaving fewer seats in play ends the game (every game type)


def bots_look_after(seats: Sequence[Any], options: Mapping[str, Any]) -> bool:
    """The bots service looks after a game from its creation when a bot plays a seat or its seats have clocks
    (later, when the house bot takes a seat over: the platform commit flags it)."""
    return "clock" in options or any(s is not None and s.kind == "bot" for s in seats)


# --- options ----------------------------------------------------------------------------------------------------

class ClockOption(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """``options.clock``: ``{"mode": "fischer", "initial_s", "increment_s"}`` or ``{"mode": "per_move",
    "per_move_s"}``."""

    mode: str
    initial_s: int = 0
    increment_s: int = 0
    per_move_s: int = 0


class LifecycleOptions(msgspec.Struct, frozen=True):
    clock: ClockOption | None = None
    on_expiry: str = "takeover"
    undo: str = "turn"  # benthic.game.undo: "turn" or "off"


PLATFORM_OPTIONS = ("clock", "on_expiry", "undo")  # game options the platform reads; the engine never sees them
# How /game-types/{type} describes them ({name, default, values, text}, like an engine's options)
OPTION_DOCS: list[dict[str, Any]] = msgspec.json.decode(
    files("benthic.game").joinpath("platform_options.json").read_bytes())
_clock_decoder = msgspec.json.Decoder(ClockOption)


class InvalidOption(ValueError):
    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def parse_options(options: dict[str, Any]) -> LifecycleOptions:
    """The platform's part of a game's options; InvalidOption names the option and its rule."""
    clock = None
    raw = options.get("clock")
    if raw is not None:
        try:
            clock = msgspec.convert(raw, ClockOption)
        except msgspec.ValidationError as error:
            raise InvalidOption(f"clock: {error}") from None
        if clock.mode == "fischer":
            if not 1 <= clock.initial_s <= 7 * 86_400 or not 0 <= clock.increment_s <= 3_600 or clock.per_move_s:
                raise InvalidOption("clock: fischer takes initial_s in 1..604800 and increment_s in 0..3600")
        elif clock.mode == "per_move":
            if not 1 <= clock.per_move_s <= 30 * 86_400 or clock.initial_s or clock.increment_s:
                raise InvalidOption("clock: per_move takes per_move_s in 1..2592000 (30 days)")
        else:
            raise InvalidOption(f"clock: mode must be 'fischer' or 'per_move', not {clock.mode!r}")
    policy = options.get("on_expiry", "takeover")
    if policy not in POLICIES:
        raise InvalidOption(f"on_expiry must be one of {list(POLICIES)}, not {policy!r}")
    if raw is None and "on_expiry" in options:
        raise InvalidOption("on_expiry needs a clock")
    undo = options.get("undo", "turn")
    if undo not in UNDO_MODES:
        raise InvalidOption(f"undo must be one of {list(UNDO_MODES)}, not {undo!r}")
    return LifecycleOptions(clock, policy, undo)


def engine_options(options: dict[str, Any]) -> dict[str, Any]:
    """The options the engine validates (every option but the platform's)."""
    return {k: v for k, v in options.items() if k not in PLATFORM_OPTIONS}


# --- the folded lifecycle ---------------------------------------------------------------------------------------

class Lifecycle(msgspec.Struct, frozen=True):
    """Treat as immutable: every change makes a new one (``advance``)."""

    taken_over: tuple[int, ...] = ()  # seats the house bot plays after a clock takeover (reclaimable)
    out: tuple[int, ...] = ()  # resigned or forfeited seats, in the order they left (ranked last)
    forfeited: tuple[int, ...] = ()
    aborted: str | None = None
    ended: str | None = None
    clock_on: bool = False
    since: dict[int, int] = {}  # seat -> ms since when it has been prompted (clock running)
    used: dict[int, int] = {}  # seat -> ms used while prompted (closed stretches)
    moves: dict[int, int] = {}  # seat -> moves made (Fischer increments)
    last_ts: int = 0  # the newest commit's time
    away: dict[int, int] = {}  # seat -> until (ms) of its player's vacation (clock stopped until then)

    @property
    def over(self) -> bool:
        return self.aborted is not None or self.ended is not None

    def house_plays(self, seat: int) -> bool:
        return seat in self.taken_over or seat in self.out


_encoder = msgspec.msgpack.Encoder()
_decoder = msgspec.msgpack.Decoder(Lifecycle)


def encode(life: Lifecycle) -> bytes:
    return _encoder.encode(life)


def decode(raw: bytes) -> Lifecycle:
    return _decoder.decode(raw) if raw else Lifecycle()


def advance(
    life: Lifecycle, engine: AnyEngine, state: Any, ts_ms: int, seat: int | None, engine_commit: bool,
    platform: Sequence[tuple[str, bytes]] = (),
) -> Lifecycle:
    """``life`` after one commit made at ``ts_ms`` (by ``seat`` if an engine commit), ``state`` the engine state
    after it, ``platform`` its platform events (type, JSON)."""
    for type_, data in platform:
        life = platform_events.fold(life, type_, data, ts_ms)
    if life.away and engine_commit and seat in life.away:  # the seat's own move ends its vacation here
        life = back_from_vacation(life, seat, ts_ms)
    if not life.clock_on:
        return msgspec.structs.replace(life, last_ts=ts_ms) if ts_ms != life.last_ts else life
    prompted: set[int] = set()
    if not life.over:
        prompt = engine.prompt(state)
        prompted = set(prompt.seats) if prompt is not None else set()
    since, used, moves = dict(life.since), dict(life.used), dict(life.moves)
    for s, start in list(since.items()):
        moved = engine_commit and seat == s
        if moved or s not in prompted:
            used[s] = used.get(s, 0) + max(0, ts_ms - start)
            del since[s]
    if engine_commit and seat is not None:
        moves[seat] = moves.get(seat, 0) + 1
    for s in prompted:
        if s not in since:
            since[s] = max(ts_ms, life.away.get(s, 0))  # on vacation: the clock starts when it ends
    return msgspec.structs.replace(life, since=since, used=used, moves=moves, last_ts=ts_ms)


# --- clocks -----------------------------------------------------------------------------------------------------

class SeatClock(msgspec.Struct, frozen=True):
    seat: int
    remaining_ms: int | None  # Fischer: time left as of ``as_of_ms`` (None for per-move clocks)
    running: bool  # prompted and enforced: its time is running


class ClockView(msgspec.Struct, frozen=True):
    mode: str
    as_of_ms: int  # the time of the newest commit; a running clock has ``remaining_ms - (now - as_of_ms)`` left
    deadline_ms: int | None  # the earliest deadline of a running clock (None: none runs)
    deadline_seat: int | None
    seats: list[SeatClock]
    on_expiry: str


def deadlines(life: Lifecycle, options: LifecycleOptions, seats: int) -> dict[int, int]:
    """seat -> deadline (ms) of every running, enforced clock."""
    clock = options.clock
    if clock is None or not life.clock_on or life.over:
        return {}
    out: dict[int, int] = {}
    for s, start in life.since.items():
        if s >= seats or life.house_plays(s):
            continue
        if clock.mode == "fischer":
            bank = clock.initial_s * 1000 + life.moves.get(s, 0) * clock.increment_s * 1000 - life.used.get(s, 0)
            out[s] = start + bank
        else:
            out[s] = start + clock.per_move_s * 1000
    return out


def next_deadline(life: Lifecycle, options: LifecycleOptions, seats: int) -> tuple[int, int] | None:
    """(deadline ms, seat) of the earliest running clock, or None."""
    due = deadlines(life, options, seats)
    if not due:
        return None
    seat = min(due, key=lambda s: (due[s], s))
    return due[seat], seat


def clock_view(life: Lifecycle, options: LifecycleOptions, seats: int) -> ClockView | None:
    clock = options.clock
    if clock is None:
        return None
    due = deadlines(life, options, seats)
    rows = []
    for s in range(seats):
        remaining = None
        if clock.mode == "fischer":
            bank = clock.initial_s * 1000 + life.moves.get(s, 0) * clock.increment_s * 1000 - life.used.get(s, 0)
            start = life.since.get(s)
            remaining = bank - (max(0, life.last_ts - start) if start is not None else 0)
        rows.append(SeatClock(s, remaining, s in due))
    first = next_deadline(life, options, seats)
    return ClockView(clock.mode, life.last_ts, first[0] if first else None, first[1] if first else None, rows,
                     options.on_expiry)


# --- who plays each seat, and the end ---------------------------------------------------------------------------

def seat_status(life: Lifecycle, seat: int) -> str:
    if seat in life.forfeited:
        return "forfeited"
    if seat in life.out:
        return "resigned"
    if seat in life.taken_over:
        return "taken_over"
    return "playing"


def summary(life: Lifecycle, options: LifecycleOptions, seats: int) -> dict[str, Any]:
    """What every view shows of the lifecycle: each seat's status and clock (``vacation_until``: its player is on
    vacation until then), the current deadline, an abort."""
    clock = clock_view(life, options, seats)
    return {
        "seats": [{"seat": s, "status": seat_status(life, s)} if s not in life.away or life.away[s] <= life.last_ts
                  else {"seat": s, "status": seat_status(life, s), "vacation_until": life.away[s]}
                  for s in range(seats)],
        "clock": msgspec.to_builtins(clock) if clock is not None else None,
        "aborted": life.aborted,
        "ended": life.ended,
    }


def ends_after_leaving(life: Lifecycle, seats: int) -> bool:
    """After a resignation or forfeit already folded into ``life``: too few seats remain in play."""
    return seats - len(life.out) < min(MIN_SEATS_IN_PLAY, seats) or len(life.out) >= seats


def final_scores(engine: AnyEngine, state: Any, life: Lifecycle, seats: int) -> FinalScores | None:
    """The result of a finished game, the lifecycle applied: None while it runs; no results for an aborted
    game; resigned and forfeited seats ranked last (the earlier a seat left, the lower its rank), the others
    keeping their order (by the rules, or sharing rank 1 when the platform ended the game early)."""
    if life.aborted is not None:
        return FinalScores(results=(), details={"aborted": life.aborted})
    if life.ended is not None:
        playing = [SeatResult(s, 0, 1, {}) for s in range(seats) if s not in life.out]
        details: dict[str, Any] = {"ended": life.ended}
    elif engine.is_over(state):
        scores = engine.final_scores(state)
        playing = [r for r in scores.results if r.seat not in life.out]
        details = dict(scores.details)
        if not life.out:
            return scores
    else:
        return None
    ranks = sorted({r.rank for r in playing})
    dense = {rank: i + 1 for i, rank in enumerate(ranks)}
    results = [msgspec.structs.replace(r, rank=dense[r.rank]) for r in playing]
    next_rank = len(ranks) + 1
    for s in reversed(life.out):
        results.append(SeatResult(s, _score_of(engine, state, s), next_rank,
                                  {"left": "forfeited" if s in life.forfeited else "resigned"}))
        next_rank += 1
    details["left"] = {str(s): seat_status(life, s) for s in life.out}
    return FinalScores(results=tuple(results), details=details)


def _score_of(engine: AnyEngine, state: Any, seat: int) -> int:
    if engine.is_over(state):
        for r in engine.final_scores(state).results:
            if r.seat == seat:
                return r.score
    return 0


def is_finished(engine: AnyEngine, state: Any, life: Lifecycle) -> bool:
    return life.over or engine.is_over(state)
