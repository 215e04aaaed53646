"""The command side: create games, seat players, check every command against the engine and append."""

from __future__ import annotations

import asyncio
import re
import secrets
import time
import weakref
from typing import Annotated, Any

import msgspec
from benthic.game import lifecycle as lc
from benthic.archive import Archive
from benthic.trust.auth import IssuedToken, SeatClaim, SeatGate, SeatTokens
from benthic.game.gamestate import Folded, StateLoader
from benthic.service.http import ApiError
from benthic.trust.identity import PLAYER, Credential
from benthic.store import Commit
from benthic.rules import (
    CommandFormatError,
    Description,
    Engine,
    GameConfig,
    GameNotSupported,
    RuleViolation,
    UnknownGameType,
    game_types,
    get_engine,
)
from benthic.store import (
    Actor,
    EventStore,
    GameMeta,
    GameNotFound,
    JoinRefused,
    NewEvent,
    SeatInfo,
    VersionConflict,
)
from benthic.service.telemetry import (
    APPEND_CONFLICTS,
    COMMAND_DURATION,
    COMMANDS,
    EVENTS_APPENDED,
    GAMES_CREATED,
    SEAT_TOKENS_ISSUED,
    Timer,
    count_platform_events,
    log,
    series,
)

from services.command.lifecycle import PlatformCommit
from services.command.players import PlayerGames
from services.command.seating import (
    Name,
    PlayerId,
    SeatRequest,
    check_name,
    display_name,
    keeps_rated,
    BOT,
    rated_at_creation,
    seats_at_creation,
)

_ID = re.compile(r"^[A-Za-z0-9_.:\-]{1,128}$")
CommandId = Annotated[str, msgspec.Meta(pattern=_ID.pattern, description="1-128 of [A-Za-z0-9_.:-]; unique per "
                                                                         "command: a repeat returns the first answer")]
Seed = Annotated[int, msgspec.Meta(ge=-(2**53), le=2**53)]  # JSON-safe integers: exact in every client


class CreateGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    game_type: str
    seats: list[SeatRequest | None]
    options: dict[str, Any] = {}
    seed: Seed | None = None
    rated: bool = True  # false: a casual game that never changes ratings


class JoinGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    player_id: PlayerId | None = None  # the caller's own id (the JWT's sub); may be left out
    name: Name = ""
    seat: Annotated[int, msgspec.Meta(ge=0, le=2**53)] | None = None


class CommandRequest(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    command_id: CommandId
    command: dict[str, Any]
    expected_version: Annotated[int, msgspec.Meta(ge=0, le=2**53)] | None = None


class SeatGrant(msgspec.Struct, frozen=True):
    seat: int
    player_id: str | None
    name: str | None
    token: str | None = None  # only the creating player's own seat; everyone else gets theirs with their JWT
    expires_at_ms: int | None = None


class GameCreated(msgspec.Struct, frozen=True):
    game_id: str
    game_type: str
    version: int
    status: str
    rated: bool
    seats: list[SeatGrant]


class Joined(msgspec.Struct, frozen=True):
    game_id: str
    seat: int
    token: str
    expires_at_ms: int
    status: str
    rated: bool


class SeatToken(msgspec.Struct, frozen=True):
    """A fresh seat token for the caller's seat in a game (refresh, or reconnect from another device)."""

    game_id: str
    game_type: str
    seat: int
    player_id: str
    status: str
    rated: bool
    token: str
    expires_at_ms: int


class PlayerSeats(msgspec.Struct, frozen=True):
    player_id: str
    seats: list[SeatToken]


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


class CommandService:
    def __init__(
        self,
        store: EventStore,
        loader: StateLoader,
        tokens: SeatTokens,
        conflict_retries: int,
        players: PlayerGames,
        archive: Archive | None = None,
    ) -> None:
        self.store = store
        self.loader = loader
        self.tokens = tokens
        self.conflict_retries = conflict_retries
        self.players = players
        self.archive = archive  # where finished games go once they leave Redis (None: no archive)
        self._locks: weakref.WeakValueDictionary[str, asyncio.Lock] = weakref.WeakValueDictionary()
        self._running: set[str] = set()  # games seen fully seated (status never goes back to open)
        self._types: dict[str, str] = {}  # game id -> game type (never changes)

    # --- lobby --------------------------------------------------------------------------------
    async def create(self, request: CreateGame, creator: Credential, seed_allowed: bool) -> GameCreated:
        try:
            engine = get_engine(request.game_type)
        except UnknownGameType:
            raise ApiError(
                422, "unknown_game_type", f"unknown game type {request.game_type!r}; known: {', '.join(game_types())}"
            ) from None
        if request.seed is not None and not seed_allowed:
            raise ApiError(403, "seed_requires_operator", "only an operator may choose a game's seed")
        seats = seats_at_creation(request.seats, creator)
        try:
            lc.parse_options(request.options)
        except lc.InvalidOption as error:
            raise ApiError(422, "invalid_option", error.message) from None
        seeded = request.seed is not None
        rated = rated_at_creation(request.rated, seeded, creator, seats)
        seed = request.seed if seeded else secrets.randbits(62)
        try:
            events = engine.start(GameConfig(seats=len(seats), seed=seed, options=lc.engine_options(request.options)))
        except RuleViolation as violation:
            raise ApiError(422, violation.code, violation.message) from None
        game_id = f"{request.game_type[:2]}_{secrets.token_hex(8)}"
        created_ms = now_ms()
        # The cap binds players creating for themselves; a trusted backend places players as it sees fit.
        reservations = []
        try:
            for seat in seats:
                if seat is not None and seat.kind != BOT:
                    reservations.append(
                        await self.players.reserve(seat.player_id, game_id, created_ms, capped=not creator.trusted)
                    )
            commit = await self.store.create(
                game_id,
                engine.game_type,
                [NewEvent(engine.event_name(e), engine.encode_event(e), engine_version=engine.engine_version)
                 for e in events],
                seats=seats,
                options=request.options,
                engine_version=engine.version,
                seeded=seeded,
                now_ms=created_ms,
                rated=rated,
                actor=Actor(creator.subject, creator.kind),
                managed=lc.bots_look_after(seats, request.options),
            )
        except BaseException:
            for reservation in reservations:
                await reservation.release()
            raise
        self.loader.remember(game_id, engine, 0, Folded(commit.last_version, engine.replay(events)))
        GAMES_CREATED.labels(engine.game_type).inc()
        EVENTS_APPENDED.labels(engine.game_type).inc(len(events))
        status = "running" if all(seats) else "open"
        if status == "running":
            self._mark_running(game_id)
        self._types[game_id] = engine.game_type
        log().info("game_created", game_id=game_id, game_type=engine.game_type, seats=len(seats),
                   version=commit.last_version, rated=rated)
        grants = []
        for i, s in enumerate(seats):
            if s is None:
                grants.append(SeatGrant(i, None, None))
            elif creator.kind == PLAYER and s.player_id == creator.subject:
                issued = self._issue(game_id, i, s.player_id, "create")
                grants.append(SeatGrant(i, s.player_id, s.name, issued.token, issued.expires_at_ms))
            else:
                grants.append(SeatGrant(i, s.player_id, s.name))
        return GameCreated(game_id, engine.game_type, commit.last_version, status, rated, grants)

    async def join(self, game_id: str, request: JoinGame, player: Credential) -> Joined:
        if request.player_id is not None and request.player_id != player.subject:
            raise ApiError(403, "player_mismatch",
                           f"a player joins as themselves ({player.subject!r}), not as {request.player_id!r}")
        check_name(request.name, "name")
        meta = await self.meta(game_id)
        info = SeatInfo(player.subject, display_name(request.name, player, player.subject), PLAYER)
        candidates = [request.seat] if request.seat is not None else [i for i, s in enumerate(meta.seats) if s is None]
        if not candidates:
            raise ApiError(409, "no_open_seat", "every seat of this game is taken")
        if request.seat is not None and not 0 <= request.seat < len(meta.seats):
            raise ApiError(422, "no_such_seat", f"this game has no seat {request.seat}")
        reservation = await self.players.reserve(player.subject, game_id, now_ms())
        try:
            for seat in candidates:
                try:
                    status = await self.store.join(game_id, meta.game_type, seat, info, now_ms(), keeps_rated(info))
                except JoinRefused as refused:
                    if refused.reason == "seat_taken" and request.seat is None:
                        continue
                    raise _join_error(refused, seat) from None
                if status == "running":
                    self._mark_running(game_id)
                rated = meta.rated and keeps_rated(info)
                log().info("seat_joined", game_id=game_id, seat=seat, status=status)
                issued = self._issue(game_id, seat, player.subject, "join")
                return Joined(game_id, seat, issued.token, issued.expires_at_ms, status, rated)
        except BaseException:
            await reservation.release()
            raise
        await reservation.release()
        raise ApiError(409, "no_open_seat", "every seat of this game is taken")

    async def seat_token(self, game_id: str, player: Credential) -> SeatToken:
        """A fresh token for the caller's seat (refresh, or reconnect from another device)."""
        meta = await self.meta(game_id)
        grant = self._grant(meta, player.subject, "refresh")
        if grant is None:
            raise ApiError(403, "not_seated", f"player {player.subject!r} holds no seat in game {game_id!r}")
        return grant

    async def player_seats(self, player: Credential) -> PlayerSeats:
        """Fresh tokens for every seat the caller holds in an unfinished game."""
        games = await self.players.unfinished(player.subject)
        grants = [self._grant(meta, player.subject, "reconnect") for meta in games]
        return PlayerSeats(player.subject, [g for g in grants if g is not None])

    def _grant(self, meta: GameMeta, player_id: str, reason: str) -> SeatToken | None:
        seat = next((i for i, s in enumerate(meta.seats)
                     if s is not None and s.kind != BOT and s.player_id == player_id), None)
        if seat is None:
            return None
        issued = self._issue(meta.game_id, seat, player_id, reason)
        return SeatToken(meta.game_id, meta.game_type, seat, player_id, meta.status, meta.rated, issued.token,
                         issued.expires_at_ms)

    def _issue(self, game_id: str, seat: int, player_id: str, reason: str) -> IssuedToken:
        SEAT_TOKENS_ISSUED.labels(reason).inc()
        issued = self.tokens.issue(game_id, seat, player_id)
        log().info("seat_token_issued", game_id=game_id, seat=seat, player_id=player_id, reason=reason,
                   expires_at_ms=issued.expires_at_ms)
        return issued

    # --- commands -----------------------------------------------------------------------------
    async def legal(self, game_id: str, claim: SeatClaim) -> LegalCommands:
        engine = get_engine(await self.game_type(game_id))
        SeatGate.authorize(claim, game_id)
        running = await self._is_running(game_id)
        folded = await self.loader.load(game_id, engine)
        if engine.is_over(folded.state):
            await self._refuse_if_archived(game_id)
        return self.legal_in(engine, game_id, claim.seat, folded, running)

    def legal_in(self, engine: Engine, game_id: str, seat: int, folded: Folded, running: bool = True) -> LegalCommands:
        """The legal commands of ``seat`` in the state ``folded`` (no I/O)."""
        over = lc.is_finished(engine, folded.state, folded.life)
        prompt = None if over else engine.prompt(folded.state)
        playing = running and not over and not folded.life.house_plays(seat)
        commands = engine.legal_commands(folded.state, seat) if playing else []
        return LegalCommands(
            game_id,
            seat,
            folded.version,
            msgspec.to_builtins(prompt) if prompt else None,
            list(commands),  # Structs: encoded in the answer as their JSON forms, with no detour through dicts
            engine.describe_all(folded.state, commands, seat) if commands else [],
        )

    async def command(
        self, game_id: str, claim: SeatClaim, request: CommandRequest, include_legal: bool = False
    ) -> CommandAccepted:
        _check_id(request.command_id, "command_id")
        engine = get_engine(await self.game_type(game_id))
        SeatGate.authorize(claim, game_id)
        actor = Actor(claim.player_id, PLAYER)
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
                    engine, game_id, claim.seat, command, name, request, include_legal, actor
                )
        except ApiError:
            raise
        except GameNotSupported as refused:  # answered 503 (benthic.service.http), counted where the fold was refused
            COMMANDS.labels(engine.game_type, name, "not_supported", refused.code).inc()
            raise
        except Exception:
            COMMANDS.labels(engine.game_type, name, "error", "internal_error").inc()
            raise
        finally:
            series(COMMAND_DURATION, engine.game_type).observe(timer.elapsed())
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
        actor: Actor,
    ) -> CommandAccepted:
        folded = self.loader.cached(game_id)
        fresh = folded is None or (request.expected_version is not None and request.expected_version > folded.version)
        if fresh:
            folded = await self.loader.load(game_id, engine)
        assert folded is not None
        for _attempt in range(self.conflict_retries + 1):
            if lc.is_finished(engine, folded.state, folded.life):
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
            if folded.life.house_plays(seat) and actor.kind == PLAYER:
                if not fresh:
                    folded, fresh = await self.loader.load(game_id, engine), True
                    continue
                COMMANDS.labels(engine.game_type, name, "rejected", "seat_taken_over").inc()
                if seat in folded.life.out:
                    raise ApiError(409, "seat_resigned", f"seat {seat} has left the game: the house bot plays it")
                raise ApiError(409, "seat_taken_over", f"the house bot plays seat {seat} since its clock ran out: "
                               "reclaim it (POST /games/{id}/reclaim) to play again")
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
            ts = now_ms()
            try:
                commit = await self.store.append(
                    game_id,
                    engine.game_type,
                    folded.version,
                    [NewEvent(engine.event_name(e), engine.encode_event(e), engine_version=engine.engine_version)
                     for e in events],
                    command_id=request.command_id,
                    seat=seat,
                    now_ms=ts,
                    ended=engine.is_over(after),
                    actor=actor,
                )
            except VersionConflict:
                APPEND_CONFLICTS.labels(engine.game_type).inc()
                folded, fresh = await self.loader.load(game_id, engine), True
                continue
            if commit.duplicate:
                return await self._replayed(engine, game_id, seat, name, request.command_id, commit)
            life = lc.advance(folded.life, engine, after, ts, seat, True)
            self.loader.remember(game_id, engine, folded.version, Folded(commit.last_version, after, life))
            if engine.is_over(after):
                await self._game_over(game_id)
            series(COMMANDS, engine.game_type, name, "accepted", "").inc()
            series(EVENTS_APPENDED, engine.game_type).inc(len(events))
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
                list(legal) if include_legal else None,
                (engine.describe_all(after, legal, seat) if legal else []) if include_legal else None,
            )
        COMMANDS.labels(engine.game_type, name, "conflict", "too_many_conflicts").inc()
        raise ApiError(409, "too_many_conflicts", "the game changed too often while deciding; retry the command")

    async def play_as_bot(
        self, engine: Engine, game_id: str, seat: int, command: Any, command_id: str, expected_version: int,
        actor: Actor,
    ) -> CommandAccepted:
        """A bot's move, through the same decide/append path as a player's (bots service)."""
        request = CommandRequest(command_id, engine.command_to_builtins(command), expected_version)
        name = engine.command_name(command)
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        async with lock:
            return await self._decide_and_append(engine, game_id, seat, command, name, request, False, actor)

    async def platform(
        self, game_id: str, command_id: str, actor: Actor,
        decide: Any,  # (engine, meta, folded) -> PlatformCommit | None (None: nothing to do)
        expected_version: int | None = None,
    ) -> tuple[Commit | None, Folded]:
        """Append the platform events ``decide`` makes of the current state, with the expected version (a lost
        race decides again on the new state, unless ``expected_version`` pins the state)."""
        meta = await self.meta(game_id)
        engine = get_engine(meta.game_type)
        lock = self._locks.get(game_id)
        if lock is None:
            lock = self._locks[game_id] = asyncio.Lock()
        async with lock:
            for _attempt in range(self.conflict_retries + 1):
                folded = await self.loader.load(game_id, engine)
                if expected_version is not None and folded.version != expected_version:
                    return None, folded
                made: PlatformCommit | None = decide(engine, meta, folded)
                if made is None:
                    return None, folded
                try:
                    commit = await self.store.append(
                        game_id, engine.game_type, folded.version, made.events, command_id=command_id,
                        now_ms=now_ms(), ended=made.ended, meta=made.meta, actor=actor,
                    )
                except VersionConflict:
                    APPEND_CONFLICTS.labels(engine.game_type).inc()
                    if expected_version is not None:
                        return None, folded
                    continue
                self.loader.cache.drop(game_id)
                if not commit.duplicate:
                    count_platform_events(engine.game_type, [e.type for e in made.events])
                    log().info("platform_commit", game_id=game_id, command_id=command_id,
                               version=commit.last_version, events=[e.type for e in made.events])
                    if made.ended:
                        await self._game_over(game_id)
                return commit, folded
        raise ApiError(409, "too_many_conflicts", "the game changed too often; retry")

    async def _replayed(
        self, engine: Engine, game_id: str, seat: int, name: str, command_id: str, commit: Any
    ) -> CommandAccepted:
        COMMANDS.labels(engine.game_type, name, "duplicate", "").inc()
        envelopes = await self.store.load(game_id, after=commit.first_version - 1, until=commit.last_version)
        events = [
            _redacted(engine, engine.decode_event(e.data, e.engine_version), seat, e.version)
            for e in envelopes if e.is_engine
        ]
        return CommandAccepted(game_id, command_id, seat, commit.first_version, commit.last_version, True, events)

    async def _game_over(self, game_id: str) -> None:
        """The players' lists of unfinished games lose this one (a miss is repaired when a list is read)."""
        try:
            await self.players.finished(await self.meta(game_id))
        except Exception as error:  # noqa: BLE001 - the commit stands; the lists prune themselves
            log().warning("player_games_not_updated", game_id=game_id, error=repr(error))

    async def meta(self, game_id: str) -> GameMeta:
        meta = await self.store.meta(game_id)
        if meta is None:
            await self._refuse_if_archived(game_id)
            raise ApiError(404, "game_not_found", f"no game {game_id!r}")
        if not meta.managed and lc.bots_look_after(meta.seats, meta.options):
            await self.store.flag_managed(game_id)  # created by an earlier release, which set no flag
            meta = msgspec.structs.replace(meta, managed=True)
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

    async def _refuse_if_archived(self, game_id: str, game_type: str = "", command: str = "") -> None:
        """409 game_finished when the game has left Redis for the archive (Redis is asked first: while the
        game's meta is there, Redis is authoritative)."""
        if self.archive is None or await self.store.version(game_id):
            return
        if await self.archive.exists(game_id):
            if game_type:
                COMMANDS.labels(game_type, command, "rejected", "game_finished").inc()
            raise ApiError(409, "game_finished", f"game {game_id!r} is finished and archived; its record is read "
                           "through the read API (views, history, scores)")

    def _mark_running(self, game_id: str) -> None:
        if len(self._running) > 100_000:
            self._running.clear()  # only costs one meta read per game later
        self._running.add(game_id)

    async def game_type(self, game_id: str) -> str:
        game_type = self._types.get(game_id)
        return game_type if game_type is not None else (await self.meta(game_id)).game_type


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
    return ApiError(404, "game_not_found", "the game left while joining (archived or deleted)")


__all__ = ["CommandRequest", "CommandService", "CreateGame", "GameNotFound", "JoinGame"]
