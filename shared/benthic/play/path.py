"""The play path: a game's meta and folded state, a seat's command decided and appended (``PlayPath.play``), the
platform's own commits appended (``PlayPath.platform``), with the guarantees the package docstring states."""

from __future__ import annotations

import asyncio
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import msgspec

from benthic.errors import ApiError
from benthic.game import lifecycle as lc
from benthic.game import undo as undoing
from benthic.game.events import PLATFORM
from benthic.game.gamestate import Folded
from benthic.play.outcome import CommandOutcome
from benthic.play.platform_commits import PlatformCommit
from benthic.play.players import PlayerGames
from benthic.rules import AnyEngine, RuleViolation, get_engine
from benthic.runtime.telemetry import APPEND_CONFLICTS, EVENTS_APPENDED, count_platform_events, log, series
from benthic.store import Actor, Commit, EventStore, GameMeta, NewEvent
from benthic.store.loader import StateLoader
from benthic.store.transact import Stale, TooManyConflicts, transact
from benthic.trust.identity import PLAYER

if TYPE_CHECKING:
    from benthic.archive import Archive

# (engine, meta, folded) -> the platform events to append, or None: nothing to do
DecidePlatform = Callable[[Any, GameMeta, Folded], PlatformCommit | None]


def now_ms() -> int:
    return int(time.time() * 1000)


class Played(msgspec.Struct, frozen=True):
    """A command's commit, as its seat may see it."""

    first_version: int
    last_version: int
    duplicate: bool  # committed before under the same command id: its first commit, nothing new
    events: list[dict[str, Any]]  # {version, event}, each event redacted for the seat
    state: Any = None  # the engine state after the commit (None for a duplicate)
    # the seat's player was on vacation (a field of the folded lifecycle): this move ends it (the command service
    # records vacation_ended, and the matchmaker ends it in the player's other games)
    back_from_vacation: bool = False


class Undone(msgspec.Struct, frozen=True):
    """An undo's commit: the game's version after it, and the commit it took back."""

    version: int
    duplicate: bool  # committed before under the same command id: its first answer, nothing new
    undone: undoing.CommandUndone | None  # None: the command id was first used for something other than an undo


UNDO_LOOKBACK = 64  # entries read back from the end to find the commit an undo takes back (else the whole stream)
_undo_json = msgspec.json.Encoder()


@dataclass
class _Refusal(Exception):  # raised out of the write loop: the decision refused
    outcome: str  # rejected | conflict
    code: str  # the outcome's code
    error: ApiError
    stale_may_explain: bool  # a cached state behind another replica's append may explain it: decide again, fresh
    may_be_done: bool  # the command may have been committed already (a retry): answer its first commit


class _Committed(Exception):
    """A refused undo whose command id was committed already (a retry): its first answer."""

    def __init__(self, commit: Commit) -> None:
        super().__init__(commit.first_version)
        self.commit = commit


class PlayPath:
    def __init__(
        self,
        store: EventStore,
        loader: StateLoader,
        players: PlayerGames,
        conflict_retries: int,
        archive: Archive | None = None,
    ) -> None:
        self.store = store
        self.players = players
        self.conflict_retries = conflict_retries
        self.archive = archive  # where finished games go once they leave Redis (None: no archive)
        self._loader = loader
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()

    # --- reading ------------------------------------------------------------------------------------------------
    async def meta(self, game_id: str) -> GameMeta:
        """The game's meta; 404 ``game_not_found``, or 409 ``game_finished`` once archived."""
        meta = await self.store.meta(game_id)
        if meta is None:
            await self.refuse_if_archived(game_id)
            raise ApiError(404, "game_not_found", f"no game {game_id!r}")
        if not meta.managed and lc.bots_look_after(meta.seats, meta.options):
            await self.store.flag_managed(game_id)  # created by an earlier release, which set no flag
            meta = msgspec.structs.replace(meta, managed=True)
        return meta

    async def refuse_if_archived(self, game_id: str) -> None:
        """409 game_finished when the game has left Redis for the archive (Redis is asked first: while the
        game's meta is there, Redis is authoritative)."""
        if self.archive is None or await self.store.version(game_id):
            return
        if await self.archive.exists(game_id):
            raise ApiError(409, "game_finished", f"game {game_id!r} is finished and archived; its record is read "
                           "through the read API (views, history, scores)")

    async def load(self, game_id: str, engine: AnyEngine) -> Folded:
        """The game's current folded state (from this process's cache when it is current)."""
        return await self._loader.load(game_id, engine)

    def cached(self, game_id: str) -> Folded | None:
        """The game's folded state as this process last knew it, maybe behind (no I/O)."""
        return self._loader.cached(game_id)

    def remember_created(self, game_id: str, engine: AnyEngine, folded: Folded) -> None:
        """Cache the state of a game just created (its first commit)."""
        self._loader.remember(game_id, engine, 0, folded)

    # --- writing ------------------------------------------------------------------------------------------------
    async def play(
        self, engine: AnyEngine, game_id: str, seat: int, command: Any, command_id: str, expected_version: int | None,
        actor: Actor, outcome: CommandOutcome | None = None,
    ) -> Played:
        """Decide ``seat``'s ``command`` and append its events; refusals are ApiErrors.  The outcome is recorded
        in ``outcome`` (counted when the caller's ``with`` ends), or counted here when none is given."""
        if outcome is None:
            with CommandOutcome(engine.game_type, engine.command_name(command)) as own:
                return await self.play(engine, game_id, seat, command, command_id, expected_version, actor, own)
        async with self._lock(game_id):
            return await self._decide_and_append(engine, game_id, seat, command, command_id, expected_version,
                                                 actor, outcome)

    async def platform(
        self, game_id: str, command_id: str, actor: Actor, decide: DecidePlatform,
        expected_version: int | None = None,
    ) -> tuple[Commit | None, Folded]:
        """Append the platform events ``decide`` makes of the current state, with the expected version (a lost
        race decides again on the new state, unless ``expected_version`` pins the state)."""
        meta = await self.meta(game_id)
        engine = get_engine(meta.game_type)

        def decided(folded: Folded) -> PlatformCommit | None:
            if expected_version is not None and folded.version != expected_version:
                return None  # pinned: a lost race is not decided again
            return decide(engine, meta, folded)

        async def append(folded: Folded, made: PlatformCommit) -> Commit:
            return await self.store.append(
                game_id, engine.game_type, folded.version, made.events, command_id=command_id, now_ms=now_ms(),
                ended=made.ended, meta=made.meta, actor=actor,
            )

        async with self._lock(game_id):
            done = await self._transact(game_id, engine, decided, append)
            commit, made = done.appended, done.decided
            if commit is None or made is None:
                return None, done.state
            self._loader.cache.drop(game_id)
            if not commit.duplicate:
                count_platform_events(engine.game_type, [e.type for e in made.events])
                log().info("platform_commit", game_id=game_id, command_id=command_id,
                           version=commit.last_version, events=[e.type for e in made.events])
                if made.ended:
                    await self._game_over(game_id)
            return commit, done.state

    async def undo(
        self, game_id: str, seat: int, command_id: str, expected_version: int | None, actor: Actor,
    ) -> Undone:
        """Take back ``seat``'s last commit (benthic.game.undo): append ``command_undone`` after the version it
        was decided on, as every commit is appended (expected version, command id, replicas' ack).  A repeated
        ``command_id`` answers its first undo (``duplicate``); refusals: 409 ``undo_not_allowed`` (details.reason),
        409 ``version_conflict`` for a stale ``expected_version``."""
        meta = await self.meta(game_id)
        engine = get_engine(meta.game_type)
        undo_mode = lc.parse_options(meta.options).undo

        async def decide(folded: Folded) -> undoing.CommandUndone:
            if expected_version is not None and expected_version != folded.version:
                decided: undoing.CommandUndone | ApiError = ApiError(
                    409, "version_conflict", f"expected version {expected_version}, the game is at "
                    f"{folded.version}", {"current_version": folded.version})
            elif folded.life.house_plays(seat):  # the house bot's moves are not the player's to take back
                decided = _house_plays(folded, seat)
            else:
                decided = await self._undo_of(engine, game_id, folded, undo_mode, seat)
            if isinstance(decided, ApiError):
                done = await self.store.committed(game_id, command_id)
                if done is not None:  # a retry of an undo made: its first answer
                    raise _Committed(done)
                raise decided
            return decided

        async def append(folded: Folded, decided: undoing.CommandUndone) -> Commit:
            made = NewEvent(undoing.COMMAND_UNDONE, _undo_json.encode(decided), kind=PLATFORM)
            return await self.store.append(game_id, engine.game_type, folded.version, [made],
                                           command_id=command_id, seat=seat, now_ms=now_ms(), actor=actor)

        async with self._lock(game_id):
            try:
                done = await self._transact(game_id, engine, decide, append)
            except _Committed as first:
                return await self._undone(game_id, first.commit)
            commit, decided = done.appended, done.decided
            assert commit is not None and decided is not None
            self._loader.cache.drop(game_id)  # the next load folds again from before the voided versions
            if commit.duplicate:
                return await self._undone(game_id, commit)
            log().info("command_undone", game_id=game_id, command_id=command_id, seat=seat,
                       version=commit.last_version, undone=decided.command_id)
            return Undone(commit.last_version, False, decided)

    async def _undo_of(
        self, engine: AnyEngine, game_id: str, folded: Folded, undo_mode: str, seat: int
    ) -> undoing.CommandUndone | ApiError:
        """The undo ``seat`` may make in ``folded``, or the refusal (409 undo_not_allowed)."""
        finished = lc.is_finished(engine, folded.state, folded.life)
        tail = await self.store.load(game_id, after=max(0, folded.version - UNDO_LOOKBACK), until=folded.version)
        try:
            decided = undoing.decide(engine, folded.state, finished, undo_mode, tail, seat)
        except undoing.NeedEarlier:  # a long run of undone commits: the whole stream
            tail = await self.store.load(game_id, until=folded.version)
            decided = undoing.decide(engine, folded.state, finished, undo_mode, tail, seat)
        if isinstance(decided, undoing.UndoRefused):
            return ApiError(409, "undo_not_allowed", decided.message, {"reason": decided.reason, **decided.details})
        return decided

    async def _undone(self, game_id: str, commit: Commit) -> Undone:
        """The first answer of a command id already committed (``undone`` None if it was not an undo)."""
        first = await self.store.load(game_id, after=commit.first_version - 1, until=commit.first_version)
        return Undone(commit.last_version, True, undoing.undone_by(first[0]) if first else None)

    def _lock(self, game_id: str) -> asyncio.Lock:
        """The game's lock: one write at a time per game in this process (weakly held: gone once unused)."""
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        return lock

    async def _transact(
        self, game_id: str, engine: AnyEngine, decide: Callable[[Folded], Any], append: Callable[[Folded, Any], Any],
        read: Callable[[bool], Any] | None = None, too_many: Callable[[], ApiError] | None = None,
    ) -> Any:
        """The write loop (benthic.store.transact) on the game's stream (by default every read a load: current);
        after the retries, ``too_many()`` is raised (by default 409 too_many_conflicts)."""

        async def load(_fresh: bool) -> Folded:
            return await self._loader.load(game_id, engine)

        try:
            return await transact(read or load, decide, append, retries=self.conflict_retries,
                                  on_conflict=APPEND_CONFLICTS.labels(engine.game_type).inc)
        except TooManyConflicts:
            raise (too_many or _too_many)() from None

    async def _decide_and_append(
        self, engine: AnyEngine, game_id: str, seat: int, command: Any, command_id: str, expected_version: int | None,
        actor: Actor, outcome: CommandOutcome,
    ) -> Played:
        cached = True  # whether the state decided on may be this process's cache, behind another replica's append
        decided_on = 0

        async def read(fresh: bool) -> Folded:
            nonlocal cached
            folded = None if fresh else self._loader.cached(game_id)
            cached = folded is not None and (expected_version is None or expected_version <= folded.version)
            return folded if cached and folded is not None else await self._loader.load(game_id, engine)

        def decide(folded: Folded) -> list[Any]:
            nonlocal decided_on
            decided_on = folded.version
            decided = _decide(engine, folded, seat, command, expected_version, actor)
            if isinstance(decided, _Refusal):
                raise Stale(decided) if decided.stale_may_explain and cached else decided
            return decided

        async def append(folded: Folded, decided: list[Any]) -> tuple[Commit, Any, int]:
            after = engine.fold(folded.state, decided)
            ts = now_ms()
            commit = await self.store.append(
                game_id,
                engine.game_type,
                folded.version,
                [NewEvent(engine.event_name(e), engine.encode_event(e), engine_version=engine.engine_version)
                 for e in decided],
                command_id=command_id,
                seat=seat,
                now_ms=ts,
                ended=engine.is_over(after),
                actor=actor,
            )
            return commit, after, ts

        def too_many() -> ApiError:
            return outcome.refuse("conflict", ApiError(409, "too_many_conflicts",
                                                       "the game changed too often while deciding; retry the command"))

        try:
            done = await self._transact(game_id, engine, decide, append, read, too_many)
        except _Refusal as refused:
            if refused.may_be_done and (first := await self.store.committed(game_id, command_id)) is not None:
                return await self._replayed(engine, game_id, seat, first, outcome)
            if refused.error.status == 422:  # a rule violation
                log().info("command_rejected", game_id=game_id, command_id=command_id, version=decided_on,
                           code=refused.code)
            outcome.record(refused.outcome, refused.code)
            raise refused.error from None
        folded, decided = done.state, done.decided
        commit, after, ts = done.appended
        if commit.duplicate:
            return await self._replayed(engine, game_id, seat, commit, outcome)
        life = lc.advance(folded.life, engine, after, ts, seat, True)
        self._loader.remember(game_id, engine, folded.version, Folded(commit.last_version, after, life))
        if engine.is_over(after):
            await self._game_over(game_id)
        outcome.record("accepted")
        series(EVENTS_APPENDED, engine.game_type).inc(len(decided))
        log().debug("command_accepted", game_id=game_id, command_id=command_id, version=commit.last_version,
                    events=len(decided))
        events = [_redacted(engine, e, seat, v) for v, e in enumerate(decided, commit.first_version)]
        away = folded.life.away and folded.life.away.get(seat, 0) > ts
        return Played(commit.first_version, commit.last_version, False, events, after, bool(away))

    async def _replayed(
        self, engine: AnyEngine, game_id: str, seat: int, commit: Any, outcome: CommandOutcome
    ) -> Played:
        outcome.record("duplicate")
        envelopes = await self.store.load(game_id, after=commit.first_version - 1, until=commit.last_version)
        events = [
            _redacted(engine, engine.decode_event(e.data, e.engine_version), seat, e.version)
            for e in envelopes if e.is_engine
        ]
        return Played(commit.first_version, commit.last_version, True, events)

    async def _game_over(self, game_id: str) -> None:
        """The players' lists of unfinished games lose this one (a miss is repaired when a list is read)."""
        try:
            await self.players.finished(await self.meta(game_id))
        except Exception as error:  # noqa: BLE001 - the commit stands; the lists prune themselves
            log().warning("player_games_not_updated", game_id=game_id, error=repr(error))


def _decide(
    engine: AnyEngine, folded: Folded, seat: int, command: Any, expected_version: int | None, actor: Actor
) -> list[Any] | _Refusal:
    """The events ``command`` makes in ``folded``, or why it is refused there."""
    if lc.is_finished(engine, folded.state, folded.life):
        return _Refusal("rejected", "game_finished",
                        ApiError(409, "game_finished", "the game is over: it accepts no more commands"),
                        stale_may_explain=False, may_be_done=True)
    if expected_version is not None and expected_version != folded.version:
        return _Refusal("conflict", "version_conflict", ApiError(
            409,
            "version_conflict",
            f"expected version {expected_version}, the game is at {folded.version}",
            {"current_version": folded.version},
        ), stale_may_explain=True, may_be_done=True)
    if folded.life.house_plays(seat) and actor.kind == PLAYER:
        refused = _house_plays(folded, seat)  # seat_taken_over, or seat_resigned for a seat that left
        return _Refusal("rejected", refused.code, refused, stale_may_explain=True, may_be_done=False)
    try:
        return engine.decide(folded.state, seat, command)
    except RuleViolation as violation:
        return _Refusal("rejected", violation.code, ApiError(422, violation.code, violation.message),
                        stale_may_explain=True, may_be_done=True)


def _too_many() -> ApiError:
    return ApiError(409, "too_many_conflicts", "the game changed too often; retry")


def _house_plays(folded: Folded, seat: int) -> ApiError:
    """The refusal of a player's command or undo for a seat the house bot plays."""
    if seat in folded.life.out:
        return ApiError(409, "seat_resigned", f"seat {seat} has left the game: the house bot plays it")
    return ApiError(409, "seat_taken_over", f"the house bot plays seat {seat} since its clock ran out: "
                    "reclaim it (POST /games/{id}/reclaim) to play again")


def _redacted(engine: AnyEngine, event: Any, seat: int, version: int) -> dict[str, Any]:
    """One event of a commit as ``seat`` sees it."""
    return {"version": version, "event": engine.redact(event, seat)}
