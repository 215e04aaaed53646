"""On a game's end: apply ratings and leaderboards exactly once, for rated games only (an unrated game leaves them
unchanged), then append ``game_scored`` from the engine's final scores (idempotent by command id).  Ratings come
first so that when the projection sees ``game_scored`` the ratings' marker is there: it reports ``game.scored`` and
then each player's ``rating.changed`` from it (``services/projection/integration.py``).

The lifecycle applies (``benthic.game.lifecycle.final_scores``): resigned and forfeited seats are ranked last (losses
for the ratings); a game the platform ended early ranks the seats still in play first; an aborted game is
scored with no results and never rated."""

from __future__ import annotations

import time
from typing import Any

import msgspec
from redis.asyncio import Redis

from benthic.feed.notification import Notification
from benthic.game import lifecycle
from benthic.game import platform_events as pe
from benthic.game.events import PLATFORM
from benthic.game.gamestate import Folded
from benthic.rules import FinalScores, UnknownGameType, get_engine
from benthic.runtime.telemetry import APPEND_CONFLICTS, GAMES_SCORED, RATINGS_UPDATED, SCORING_FAILURES, log
from benthic.store import Commit, EventStore, GameMeta, NewEvent
from benthic.store.loader import StateLoader
from benthic.store.transact import RETRIES, TooManyConflicts, transact
from services.scoring.ratings import apply_ratings


class Scorer:
    def __init__(self, redis: Redis, store: EventStore, loader: StateLoader, conflict_retries: int = RETRIES) -> None:
        self.redis = redis
        self.store = store
        self.loader = loader
        self.conflict_retries = conflict_retries

    async def handle(self, notes: list[Notification]) -> None:
        ended = {n.game_id: n.game_type for n in notes if n.ended}
        failures: list[BaseException] = []
        for game_id, game_type in ended.items():
            try:
                await self.score(game_id, game_type)
            except UnknownGameType:
                log().error("unknown_game_type", game_id=game_id, game_type=game_type)
            except Exception as error:  # noqa: BLE001 - score the others, then fail the batch
                SCORING_FAILURES.labels(game_type).inc()
                failures.append(error)
                log().error("scoring_failed", game_id=game_id, error=repr(error))
        if failures:
            raise failures[0]

    async def score(self, game_id: str, game_type: str) -> bool:
        """Returns True if this call appended ``game_scored``."""
        engine = get_engine(game_type)
        meta = await self.store.meta(game_id)
        if meta is None:
            return False
        rated_now = False

        async def read(_fresh: bool) -> Folded:
            return await self.loader.load(game_id, engine)

        async def decide(folded: Folded) -> pe.GameScored | None:
            nonlocal rated_now
            scores = lifecycle.final_scores(engine, folded.state, folded.life, len(meta.seats))
            if scores is None:
                return None
            rated = meta.rated and folded.life.aborted is None
            if rated and not rated_now:
                rated_now = True
                await self._rate(meta, game_type, game_id, scores)
            return pe.GameScored(
                game_type=game_type,
                results=[msgspec.to_builtins(r) for r in scores.results],
                details=msgspec.to_builtins(scores.details),
                players=[s.player_id if s else "" for s in meta.seats],
                rated=rated,
            )

        async def append(folded: Folded, event: pe.GameScored) -> Commit:
            return await self.store.append(
                game_id,
                game_type,
                folded.version,
                [NewEvent(pe.GAME_SCORED, pe.encode(event), kind=PLATFORM)],
                command_id=f"score:{game_id}",
                now_ms=int(time.time() * 1000),
            )

        try:
            done = await transact(read, decide, append, retries=self.conflict_retries,
                                  on_conflict=APPEND_CONFLICTS.labels(game_type).inc)
        except TooManyConflicts:
            raise RuntimeError(f"could not append game_scored to {game_id}") from None
        commit, event = done.appended, done.decided
        if commit is None or event is None:
            return False
        appended, rated = not commit.duplicate, event.rated
        if appended:
            GAMES_SCORED.labels(game_type).inc()
            log().info("game_scored", game_id=game_id, version=commit.last_version)
        if not rated and appended:
            log().info("game_not_rated", game_id=game_id, reason="unrated or aborted game: leaderboards unchanged")
        return appended

    async def _rate(self, meta: GameMeta, game_type: str, game_id: str, scores: FinalScores) -> None:
        players = [(s.player_id, s.name) if s else (f"open-seat-{i}", "") for i, s in enumerate(meta.seats)]
        if len(players) >= 2:
            ranks = _ranks_by_seat(scores.results, len(players))
            if await apply_ratings(self.redis, game_type, game_id, players, ranks):
                RATINGS_UPDATED.labels(game_type).inc()
                log().info("ratings_updated", game_id=game_id)


def _ranks_by_seat(results: Any, seats: int) -> list[int]:
    ranks = [0] * seats
    for result in results:
        ranks[result.seat] = result.rank
    return ranks
