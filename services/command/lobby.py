"""The lobby: create games, seat players (a seat token for each), fresh tokens for the seats a player holds."""

from __future__ import annotations

from benthic.errors import ApiError
from benthic.play import PlayerGames, PlayPath
from benthic.play.creation import GameCreation, new_game_id
from benthic.rules import UnknownGameType, game_types, get_engine
from benthic.runtime.telemetry import SEAT_TOKENS_ISSUED, log
from benthic.store import Actor, EventStore, GameMeta, JoinRefused, SeatInfo
from benthic.trust.auth import IssuedToken, SeatTokens, now_ms
from benthic.trust.identity import PLAYER, Credential
from services.command.game_facts import GameFacts
from services.command.schemas import CreateGame, GameCreated, Joined, JoinGame, PlayerSeats, SeatGrant, SeatToken
from services.command.seating import (
    BOT,
    check_name,
    display_name,
    keeps_rated,
    rated_at_creation,
    seats_at_creation,
)


class Lobby:
    def __init__(
        self, store: EventStore, play: PlayPath, facts: GameFacts, tokens: SeatTokens, players: PlayerGames
    ) -> None:
        self.store = store
        self.play = play
        self.facts = facts
        self.tokens = tokens
        self.players = players
        self.creation = GameCreation(store, play, players)

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
        rated = rated_at_creation(request.rated, request.seed is not None, creator, seats)
        # The cap binds players creating for themselves; a trusted backend places players as it sees fit.
        opened = await self.creation.create(engine, new_game_id(engine.game_type), seats, request.options,
                                            rated=rated, actor=Actor(creator.subject, creator.kind),
                                            seed=request.seed, capped=not creator.trusted)
        game_id, status = opened.game_id, opened.status
        self.facts.created(game_id, engine.game_type, running=status == "running")
        grants = []
        for i, s in enumerate(seats):
            if s is None:
                grants.append(SeatGrant(i, None, None))
            elif creator.kind == PLAYER and s.player_id == creator.subject:
                issued = self._issue(game_id, i, s.player_id, "create")
                grants.append(SeatGrant(i, s.player_id, s.name, issued.token, issued.expires_at_ms))
            else:
                grants.append(SeatGrant(i, s.player_id, s.name))
        return GameCreated(game_id, engine.game_type, opened.version, status, rated, grants)

    async def join(self, game_id: str, request: JoinGame, player: Credential) -> Joined:
        if request.player_id is not None and request.player_id != player.subject:
            raise ApiError(403, "player_mismatch",
                           f"a player joins as themselves ({player.subject!r}), not as {request.player_id!r}")
        check_name(request.name, "name")
        meta = await self.facts.meta(game_id)
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
                    self.facts.mark_running(game_id)
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
        meta = await self.facts.meta(game_id)
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


def _join_error(refused: JoinRefused, seat: int) -> ApiError:
    if refused.reason == "seat_taken":
        return ApiError(409, "seat_taken", f"seat {seat} is taken")
    if refused.reason == "already_seated":
        return ApiError(409, "already_seated", f"this player already holds seat {refused.seat}")
    if refused.reason == "no_such_seat":
        return ApiError(422, "no_such_seat", f"this game has no seat {seat}")
    return ApiError(404, "game_not_found", "the game left while joining (archived or deleted)")
