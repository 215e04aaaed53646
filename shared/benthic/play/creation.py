"""Creating a game, for every service that opens tables: the command service's lobby (``POST /games``) and the
matchmaker (a match's game).  The seats are decided by the caller (who may sit where, whether the game is rated:
the lobby's seating rules, or the tickets of a match); this appends the game's first commit with its players
listed among their unfinished games.

Idempotent by game id: the first commit's command id is ``create:<game id>``, so creating a game id again answers
the first creation (``duplicate``) and appends nothing; a caller that derives the game id from what it creates
(the matchmaker: from the match id) creates each game at most once, whatever crashes and retries."""

from __future__ import annotations

import secrets

import msgspec

from benthic.errors import ApiError
from benthic.game import lifecycle as lc
from benthic.game.gamestate import Folded
from benthic.play.path import PlayPath, now_ms
from benthic.play.players import PlayerGames
from benthic.rules import AnyEngine, GameConfig, RuleViolation
from benthic.runtime.telemetry import EVENTS_APPENDED, GAMES_CREATED, log
from benthic.store import Actor, EventStore, NewEvent, SeatInfo


class GameOpened(msgspec.Struct, frozen=True):
    game_id: str
    version: int
    status: str  # open | running
    duplicate: bool  # the game existed: created before under this id (nothing new)


def check_options(engine: AnyEngine, options: dict[str, object], seats: int) -> None:
    """422 ``invalid_option`` (the platform's options) or the engine's own code, as creating the game would."""
    try:
        lc.parse_options(options)
    except lc.InvalidOption as error:
        raise ApiError(422, "invalid_option", error.message) from None
    try:
        engine.start(GameConfig(seats=seats, seed=0, options=lc.engine_options(options)))
    except RuleViolation as violation:
        raise ApiError(422, violation.code, violation.message) from None


def new_game_id(game_type: str) -> str:
    return f"{game_type[:2]}_{secrets.token_hex(8)}"


class GameCreation:
    def __init__(self, store: EventStore, play: PlayPath, players: PlayerGames) -> None:
        self.store = store
        self.play = play
        self.players = players

    async def create(
        self, engine: AnyEngine, game_id: str, seats: list[SeatInfo | None], options: dict[str, object], *,
        rated: bool, actor: Actor, seed: int | None = None, capped: bool = True,
    ) -> GameOpened:
        """Append the game's first commit.  ``capped``: each player's cap on unfinished games applies
        (``409 too_many_open_games``); a trusted creator places players as it sees fit.  Refusals of the options
        are the engine's (422)."""
        try:
            lc.parse_options(options)
        except lc.InvalidOption as error:
            raise ApiError(422, "invalid_option", error.message) from None
        seeded = seed is not None
        seed = seed if seed is not None else secrets.randbits(62)
        try:
            events = engine.start(GameConfig(seats=len(seats), seed=seed, options=lc.engine_options(options)))
        except RuleViolation as violation:
            raise ApiError(422, violation.code, violation.message) from None
        created_ms = now_ms()
        reservations = []
        try:
            for seat in seats:
                if seat is not None and seat.kind != "bot":
                    reservations.append(await self.players.reserve(seat.player_id, game_id, created_ms, capped=capped))
            commit = await self.store.create(
                game_id,
                engine.game_type,
                [NewEvent(engine.event_name(e), engine.encode_event(e), engine_version=engine.engine_version)
                 for e in events],
                seats=seats,
                options=options,
                engine_version=engine.version,
                seeded=seeded,
                now_ms=created_ms,
                rated=rated,
                actor=actor,
                managed=lc.bots_look_after(seats, options),
            )
        except BaseException:
            for reservation in reservations:
                await reservation.release()
            raise
        status = "running" if all(seats) else "open"
        if commit.duplicate:
            return GameOpened(game_id, commit.last_version, status, True)
        self.play.remember_created(game_id, engine, Folded(commit.last_version, engine.replay(events)))
        GAMES_CREATED.labels(engine.game_type).inc()
        EVENTS_APPENDED.labels(engine.game_type).inc(len(events))
        log().info("game_created", game_id=game_id, game_type=engine.game_type, seats=len(seats),
                   version=commit.last_version, rated=rated)
        return GameOpened(game_id, commit.last_version, status, False)
