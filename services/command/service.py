"""The command service as its routes see it: the lobby (lobby.py) and the play path (benthic.play) over one
cache of game facts (game_facts.py), and a seat's commands: playing one, listing the legal ones."""

from __future__ import annotations

from benthic.archive import Archive
from benthic.errors import ApiError
from benthic.i18n import DEFAULT_LANGUAGE
from benthic.play import CommandOutcome, Played, PlayerGames, PlayPath, platform_commits
from benthic.rules import AnyEngine, CommandFormatError, get_engine
from benthic.runtime.telemetry import COMMAND_DURATION, UNDOS, Timer, log, series
from benthic.store import Actor, EventStore, GameMeta
from benthic.store.loader import StateLoader
from benthic.trust.auth import SeatClaim, SeatGate, SeatTokens
from benthic.trust.identity import PLAYER
from services.command.game_facts import GameFacts
from services.command.legal import after_command, legal_commands
from services.command.lobby import Lobby
from services.command.schemas import (
    CommandAccepted,
    CommandRequest,
    LegalCommands,
    UndoDone,
    UndoneCommit,
    UndoRequest,
    check_id,
)


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
        self.play = PlayPath(store, loader, players, conflict_retries, archive)
        self.facts = GameFacts(self.play)
        self.lobby = Lobby(store, self.play, self.facts, tokens, players)

    async def meta(self, game_id: str) -> GameMeta:
        """The game's meta; 404 ``game_not_found``, or 409 ``game_finished`` once archived."""
        return await self.facts.meta(game_id)

    async def game_type(self, game_id: str) -> str:
        return await self.facts.game_type(game_id)

    async def legal(self, game_id: str, claim: SeatClaim, language: str = DEFAULT_LANGUAGE) -> LegalCommands:
        engine = get_engine(await self.facts.game_type(game_id))
        SeatGate.authorize(claim, game_id)
        running = await self.facts.is_running(game_id)
        folded = await self.play.load(game_id, engine)
        if engine.is_over(folded.state):
            await self.play.refuse_if_archived(game_id)
        return legal_commands(engine, game_id, claim.seat, folded, running, language)

    async def command(
        self, game_id: str, claim: SeatClaim, request: CommandRequest, include_legal: bool = False,
        language: str = DEFAULT_LANGUAGE,
    ) -> CommandAccepted:
        check_id(request.command_id, "command_id")
        engine = get_engine(await self.facts.game_type(game_id))
        SeatGate.authorize(claim, game_id)
        with CommandOutcome(engine.game_type) as outcome:
            try:
                command = engine.decode_command(request.command)
            except CommandFormatError as error:
                raise outcome.refuse("rejected", ApiError(400, error.code, error.message)) from None
            outcome.command = engine.command_name(command)
            timer = Timer()
            if not await self.facts.is_running(game_id):
                raise outcome.refuse("rejected",
                                     ApiError(409, "seats_open", "the game starts when every seat is taken"))
            try:
                played = await self.play.play(engine, game_id, claim.seat, command, request.command_id,
                                              request.expected_version, Actor(claim.player_id, PLAYER), outcome)
                if played.back_from_vacation:
                    await self._back_from_vacation(game_id, claim, request.command_id)
                return _accepted(engine, game_id, request.command_id, claim.seat, played, include_legal, language)
            except BaseException as error:
                outcome.failed(error)
                raise
            finally:
                series(COMMAND_DURATION, engine.game_type).observe(timer.elapsed())

    async def _back_from_vacation(self, game_id: str, claim: SeatClaim, command_id: str) -> None:
        """The player moved while on vacation: ``vacation_ended`` in this game (its history shows it; the
        matchmaker, following the lifecycle feeds, ends the vacation everywhere).  The move stands if this fails:
        the fold already counts the move as the end of the vacation here."""
        try:
            await self.play.platform(
                game_id, f"back:{command_id}", Actor(claim.player_id, PLAYER),
                lambda engine, meta, folded: platform_commits.vacation_ended(engine, meta, folded, claim.player_id,
                                                                             "moved"))
        except Exception as error:  # noqa: BLE001 - the move is acknowledged; the matchmaker's sweep ends it later
            log().warning("vacation_end_not_recorded", game_id=game_id, error=repr(error))

    async def undo(self, game_id: str, claim: SeatClaim, request: UndoRequest) -> UndoDone:
        """The caller's seat takes back its last commit (benthic.game.undo); 409 ``undo_not_allowed`` says why
        not in ``details.reason``."""
        check_id(request.command_id, "command_id")
        SeatGate.authorize(claim, game_id)
        if not await self.facts.is_running(game_id):
            raise ApiError(409, "seats_open", "the game starts when every seat is taken")
        try:
            done = await self.play.undo(game_id, claim.seat, request.command_id, request.expected_version,
                                        Actor(claim.player_id, PLAYER))
        except ApiError as refused:
            if refused.code == "undo_not_allowed":
                UNDOS.labels(str((refused.details or {}).get("reason", ""))).inc()
            raise
        if not done.duplicate:
            UNDOS.labels("taken_back").inc()
        undone = None
        if done.undone is not None:
            u = done.undone
            undone = UndoneCommit(u.seat, u.command_id, u.first_version, u.last_version)
        return UndoDone(game_id, request.command_id, done.version, done.duplicate, undone)


def _accepted(
    engine: AnyEngine, game_id: str, command_id: str, seat: int, played: Played, include_legal: bool,
    language: str = DEFAULT_LANGUAGE,
) -> CommandAccepted:
    if played.duplicate or not include_legal:
        return CommandAccepted(game_id, command_id, seat, played.first_version, played.last_version, played.duplicate,
                               played.events)
    prompt, legal, labels = after_command(engine, played.state, seat, language)
    return CommandAccepted(game_id, command_id, seat, played.first_version, played.last_version, False,
                           played.events, prompt, legal, labels)
