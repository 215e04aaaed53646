"""The command side: create games, seat players, check every command against the engine and append."""

from __future__ import annotations

import asyncio
import re
import secrets
import time
import weakref
from typing import Any

import msgspec
from benthic.auth import SeatClaim, SeatTokens
from benthic.gamestate import Folded, StateLoader
from benthic.http import ApiError
from benthic.rules import (
    CommandFormatError,
    Description,
    Engine,
    GameConfig,
    RuleViolation,
    UnknownGameType,
    game_types,
    get_engine,
)
from benthic.store import EventStore, GameMeta, GameNotFound, JoinRefused, NewEvent, SeatInfo, VersionConflict
from benthic.telemetry import (
    APPEND_CONFLICTS,
    COMMAND_DURATION,
    COMMANDS,
    EVENTS_APPENDED,
    GAMES_CREATED,
    Timer,
    log,
)

_ID = re.compile(r"^[A-Za-z0-9_.:\-]{1,128}$")


class SeatRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    player_id: str
    name: str = ""


class CreateGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    game_type: str
    seats: list[SeatRequest | None]
    options: dict[str, Any] = {}
    seed: int | None = None


class JoinGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    player_id: str
    name: str = ""
    seat: int | None = None


class CommandRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    command_id: str
    command: dict[str, Any]
    expected_version: int | None = None


class SeatGrant(msgspec.Struct, frozen=True):
    seat: int
    player_id: str | None
    name: str | None
    token: str | None = None


class GameCreated(msgspec.Struct, frozen=True):
    game_id: str
    game_type: str
    version: int
    status: str
    seats: list[SeatGrant]


class Joined(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    token: str
    status: str


class CommandAccepted(msgspec.Struct, frozen=True):
    game_id: str
    command_id: str
    seat: int
    first_version: int
    last_version: int
    duplicate: bool
    events: list[dict[str, Any]]
    # With ?include=legal: the prompt after this commit and the caller's legal commands in it, and their labels
    # (aligned with `legal` by index).
    prompt: dict[str, Any] | None = None
    legal: list[Any] | None = None
    labels: list[Description] | None = None


class LegalCommands(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    version: int
    prompt: dict[str, Any] | None
    commands: list[Any]
    labels: list[Description]  # labels[i] describes commands[i]: {label, highlights}


def now_ms() -> int:
    return int(time.time() * 1000)


def _check_id(value: str, what: str) -> None:
    if not _ID.match(value):
        raise ApiError(400, "invalid_request", f"{what} must be 1-128 characters of [A-Za-z0-9_.:-]")


def _check_name(value: str, what: str) -> None:
    if len(value) > 64 or not value.isprintable():
        raise ApiError(400, "invalid_request", f"{what} must be at most 64 printable characters")


class CommandService:
    def __init__(self, store: EventStore, loader: StateLoader, tokens: SeatTokens, conflict_retries: int) -> None:
        self.store = store
        self.loader = loader
        self.tokens = tokens
        self.conflict_retries = conflict_retries
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._running: set[str] = set()  # games seen fully seated (status never goes back to open)
        self._types: dict[str, str] = {}  # game id -> game type (never changes)

    # --- lobby --------------------------------------------------------------------------------
    async def create(self, request: CreateGame, seed_allowed: bool) -> GameCreated:
        try:
            engine = get_engine(request.game_type)
        except UnknownGameType:
            raise ApiError(
                422, "unknown_game_type", f"unknown game type {request.game_type!r}; known: {', '.join(game_types())}"
            ) from None
        if request.seed is not None and not seed_allowed:
            raise ApiError(403, "seed_requires_operator", "only an operator may choose a game's seed")
        seats: list[SeatInfo | None] = []
        for i, seat in enumerate(request.seats):
            if seat is not None:
                _check_id(seat.player_id, f"seats[{i}].player_id")
                _check_name(seat.name, f"seats[{i}].name")
                if any(s is not None and s.player_id == seat.player_id for s in seats):
                    raise ApiError(422, "duplicate_player", f"player {seat.player_id!r} holds two seats")
            seats.append(SeatInfo(seat.player_id, seat.name or seat.player_id) if seat else None)
        seed = request.seed if request.seed is not None else secrets.randbits(62)
        try:
            events = engine.start(GameConfig(seats=len(seats), seed=seed, options=request.options))
        except RuleViolation as violation:
            raise ApiError(422, violation.code, violation.message) from None
        game_id = f"{request.game_type[:2]}_{secrets.token_hex(8)}"
        commit = await self.store.create(
            game_id,
            engine.game_type,
            [NewEvent(engine.event_name(e), engine.encode_event(e)) for e in events],
            seats=seats,
            options=request.options,
            engine_version=engine.version,
            seeded=request.seed is not None,
            now_ms=now_ms(),
        )
        self.loader.remember(game_id, engine, 0, Folded(commit.last_version, engine.replay(events)))
        GAMES_CREATED.labels(engine.game_type).inc()
        EVENTS_APPENDED.labels(engine.game_type).inc(len(events))
        status = "running" if all(seats) else "open"
        if status == "running":
            self._mark_running(game_id)
        self._types[game_id] = engine.game_type
        log().info("game_created", game_id=game_id, game_type=engine.game_type, seats=len(seats), version=commit.last_version)
        grants = [
            SeatGrant(i, s.player_id, s.name, self.tokens.issue(game_id, i, s.player_id))
            if s
            else SeatGrant(i, None, None)
            for i, s in enumerate(seats)
        ]
        return GameCreated(game_id, engine.game_type, commit.last_version, status, grants)

    async def join(self, game_id: str, request: JoinGame) -> Joined:
        _check_id(request.player_id, "player_id")
        _check_name(request.name, "name")
        meta = await self.meta(game_id)
        info = SeatInfo(request.player_id, request.name or request.player_id)
        candidates = [request.seat] if request.seat is not None else [i for i, s in enumerate(meta.seats) if s is None]
        if not candidates:
            raise ApiError(409, "no_open_seat", "every seat of this game is taken")
        for seat in candidates:
            try:
                status = await self.store.join(game_id, meta.game_type, seat, info, now_ms())
            except JoinRefused as refused:
                if refused.reason == "seat_taken" and request.seat is None:
                    continue
                raise _join_error(refused, seat) from None
            if status == "running":
                self._mark_running(game_id)
            log().info("seat_joined", game_id=game_id, seat=seat, status=status)
            return Joined(game_id, seat, self.tokens.issue(game_id, seat, request.player_id), status)
        raise ApiError(409, "no_open_seat", "every seat of this game is taken")

    # --- commands -----------------------------------------------------------------------------
    async def legal(self, game_id: str, claim: SeatClaim) -> LegalCommands:
        engine = get_engine(await self._game_type(game_id))
        _authorize(claim, game_id)
        running = await self._is_running(game_id)
        folded = await self.loader.load(game_id, engine)
        prompt = engine.prompt(folded.state)
        commands = engine.legal_commands(folded.state, claim.seat) if running else []
        return LegalCommands(
            game_id,
            claim.seat,
            folded.version,
            msgspec.to_builtins(prompt) if prompt else None,
            [engine.command_to_builtins(c) for c in commands],
            engine.describe_all(folded.state, commands, claim.seat) if commands else [],
        )

    async def command(
        self, game_id: str, claim: SeatClaim, request: CommandRequest, include_legal: bool = False
    ) -> CommandAccepted:
        _check_id(request.command_id, "command_id")
        engine = get_engine(await self._game_type(game_id))
        _authorize(claim, game_id)
        try:
            command = engine.decode_command(request.command)
        except CommandFormatError as error:
            COMMANDS.labels(engine.game_type, "", "rejected", error.code).inc()
            raise ApiError(400, error.code, error.message) from None
        name = engine.command_name(command)
        timer = Timer()
        if not await self._is_running(game_id):
            COMMANDS.labels(engine.game_type, name, "rejected", "seats_open").inc()
            raise ApiError(409, "seats_open", "the game starts when every seat is taken")
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        try:
            async with lock:
                result = await self._decide_and_append(
                    engine, game_id, claim.seat, command, name, request, include_legal
                )
        except ApiError:
            raise
        except Exception:
            COMMANDS.labels(engine.game_type, name, "error", "internal_error").inc()
            raise
        finally:
            COMMAND_DURATION.labels(engine.game_type).observe(timer.elapsed())
        return result

    async def _decide_and_append(
        self,
        engine: Engine,
        game_id: str,
        seat: int,
        command: Any,
        name: str,
        request: CommandRequest,
        include_legal: bool,
    ) -> CommandAccepted:
        folded = self.loader.cached(game_id)
        fresh = folded is None or (request.expected_version is not None and request.expected_version > folded.version)
        if fresh:
            folded = await self.loader.load(game_id, engine)
        assert folded is not None
        for _attempt in range(self.conflict_retries + 1):
            if engine.is_over(folded.state):
                if (done := await self.store.committed(game_id, request.command_id)) is not None:
                    return await self._replayed(engine, game_id, seat, name, request.command_id, done)
                COMMANDS.labels(engine.game_type, name, "rejected", "game_finished").inc()
                raise ApiError(409, "game_finished", "the game is over: it accepts no more commands")
            if request.expected_version is not None and request.expected_version != folded.version:
                if not fresh:
                    folded, fresh = await self.loader.load(game_id, engine), True
                    continue
                if (done := await self.store.committed(game_id, request.command_id)) is not None:
                    return await self._replayed(engine, game_id, seat, name, request.command_id, done)
                COMMANDS.labels(engine.game_type, name, "conflict", "version_conflict").inc()
                raise ApiError(
                    409,
                    "version_conflict",
                    f"expected version {request.expected_version}, the game is at {folded.version}",
                    {"current_version": folded.version},
                )
            try:
                events = engine.decide(folded.state, seat, command)
            except RuleViolation as violation:
                if not fresh:  # our cached state may be behind another replica's append
                    folded, fresh = await self.loader.load(game_id, engine), True
                    continue
                if (done := await self.store.committed(game_id, request.command_id)) is not None:
                    return await self._replayed(engine, game_id, seat, name, request.command_id, done)
                COMMANDS.labels(engine.game_type, name, "rejected", violation.code).inc()
                log().info("command_rejected", game_id=game_id, command_id=request.command_id,
                           version=folded.version, code=violation.code)
                raise ApiError(422, violation.code, violation.message) from None
            after = engine.fold(folded.state, events)
            try:
                commit = await self.store.append(
                    game_id,
                    engine.game_type,
                    folded.version,
                    [NewEvent(engine.event_name(e), engine.encode_event(e)) for e in events],
                    command_id=request.command_id,
                    seat=seat,
                    now_ms=now_ms(),
                    ended=engine.is_over(after),
                )
            except VersionConflict:
                APPEND_CONFLICTS.labels(engine.game_type).inc()
                folded, fresh = await self.loader.load(game_id, engine), True
                continue
            if commit.duplicate:
                return await self._replayed(engine, game_id, seat, name, request.command_id, commit)
            self.loader.remember(game_id, engine, folded.version, Folded(commit.last_version, after))
            COMMANDS.labels(engine.game_type, name, "accepted", "").inc()
            EVENTS_APPENDED.labels(engine.game_type).inc(len(events))
            log().debug("command_accepted", game_id=game_id, command_id=request.command_id,
                        version=commit.last_version, events=len(events))
            prompt = engine.prompt(after) if include_legal else None
            legal = engine.legal_commands(after, seat) if include_legal else []
            return CommandAccepted(
                game_id,
                request.command_id,
                seat,
                commit.first_version,
                commit.last_version,
                False,
                [_redacted(engine, e, seat, v) for v, e in enumerate(events, commit.first_version)],
                msgspec.to_builtins(prompt) if prompt else None,
                [engine.command_to_builtins(c) for c in legal] if include_legal else None,
                (engine.describe_all(after, legal, seat) if legal else []) if include_legal else None,
            )
        COMMANDS.labels(engine.game_type, name, "conflict", "too_many_conflicts").inc()
        raise ApiError(409, "too_many_conflicts", "the game changed too often while deciding; retry the command")

    async def _replayed(
        self, engine: Engine, game_id: str, seat: int, name: str, command_id: str, commit: Any
    ) -> CommandAccepted:
        COMMANDS.labels(engine.game_type, name, "duplicate", "").inc()
        envelopes = await self.store.load(game_id, after=commit.first_version - 1, until=commit.last_version)
        events = [
            _redacted(engine, engine.decode_event(e.data), seat, e.version) for e in envelopes if e.is_engine
        ]
        return CommandAccepted(game_id, command_id, seat, commit.first_version, commit.last_version, True, events)

    async def meta(self, game_id: str) -> GameMeta:
        meta = await self.store.meta(game_id)
        if meta is None:
            raise ApiError(404, "game_not_found", f"no game {game_id!r}")
        self._types[game_id] = meta.game_type
        if len(self._types) > 100_000:
            self._types.clear()
        return meta

    async def _is_running(self, game_id: str) -> bool:
        """Every seat is taken (the status never goes back to open, so only "open" is read again)."""
        if game_id in self._running:
            return True
        if (await self.meta(game_id)).status == "open":
            return False
        self._mark_running(game_id)
        return True

    def _mark_running(self, game_id: str) -> None:
        if len(self._running) > 100_000:
            self._running.clear()  # only costs one meta read per game later
        self._running.add(game_id)

    async def _game_type(self, game_id: str) -> str:
        game_type = self._types.get(game_id)
        return game_type if game_type is not None else (await self.meta(game_id)).game_type


def _authorize(claim: SeatClaim, game_id: str) -> None:
    if claim.game_id != game_id:
        raise ApiError(403, "wrong_game", "this seat token belongs to another game")


def _redacted(engine: Engine, event: Any, seat: int, version: int) -> dict[str, Any]:
    view = engine.redact(event, seat)
    return {"version": version, "event": view}


def _join_error(refused: JoinRefused, seat: int) -> ApiError:
    if refused.reason == "seat_taken":
        return ApiError(409, "seat_taken", f"seat {seat} is taken")
    if refused.reason == "already_seated":
        return ApiError(409, "already_seated", f"this player already holds seat {refused.seat}")
    if refused.reason == "no_such_seat":
        return ApiError(422, "no_such_seat", f"this game has no seat {seat}")
    return ApiError(409, refused.reason, refused.reason)


__all__ = ["CommandRequest", "CommandService", "CreateGame", "GameNotFound", "JoinGame"]
