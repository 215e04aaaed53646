"""The archiver's side of Redis: reading a finished game, deleting it (the due sets: ``benthic.archive.due``).

Every key a step touches shares the game's ``{pK}`` slot, so each script runs on Redis Cluster too; the
ratings marker (``{r:<type>}`` slot) is read and deleted on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benthic.archive import ArchivedGame
from benthic.game.events import PLATFORM, event_digest
from benthic.game.keys import GameKeys, RatingKeys, archive_due_key
from benthic.store import parse_meta
from benthic.store.durability import NO_ACK, Ack
from benthic.store.entries import envelopes as parse_entries
from benthic.store.pipelining import ScriptBatcher

STATUSES = ("open", "running", "finished")  # the lobby sets a game may be in


def _script(name: str) -> str:
    return (Path(__file__).parent / name).read_text()


@dataclass(frozen=True)
class NotReady:
    reason: str


@dataclass(frozen=True)
class FinishedGame:
    """A finished, scored, fully projected game as read from Redis, ready to be archived."""

    game: ArchivedGame
    digest: str
    seats: int

    @property
    def version(self) -> int:
        return self.game.last_version


GONE = "gone"


async def read_game(redis: Any, game_id: str, partitions: int) -> FinishedGame | NotReady | str:
    """The game if it can be archived now; NotReady(reason) if not yet; GONE if Redis no longer has it."""
    keys = GameKeys(game_id, partitions)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hgetall(keys.meta)
        pipe.xrange(keys.events, "-", "+")
        pipe.hgetall(keys.read_model)
        meta_raw, entries, model_raw = await pipe.execute()
    if not meta_raw:
        return GONE
    meta = parse_meta(game_id, meta_raw)
    envelopes = parse_entries(entries)  # the whole stream: it starts with a commit's head
    if meta.status != "finished":
        return NotReady(f"status {meta.status}")
    if not envelopes or envelopes[-1].version != meta.version:
        return NotReady("the stream and the meta disagree on the version")
    if not any(e.type == "game_scored" and e.kind == PLATFORM for e in envelopes):
        return NotReady("not scored yet")
    projected = int(model_raw.get(b"version", 0) or 0)
    if projected != meta.version or model_raw.get(b"scored") != b"1":
        return NotReady(f"projected to {projected} of {meta.version}")
    # Scoring rates only rated games that were not aborted (services/scoring/scorer.py); the others never get the
    # marker, and are archived without it.
    rated = meta.rated and not any(e.type == "game_aborted" and e.kind == PLATFORM for e in envelopes)
    if rated and len(meta.seats) >= 2 and not await redis.exists(RatingKeys(meta.game_type).rated(game_id)):
        return NotReady("ratings not applied yet")
    engine_events = [e for e in envelopes if e.is_engine]
    game = ArchivedGame(
        game_id=game_id,
        game_type=meta.game_type,
        engine_version=meta_raw.get(b"engine_version", b"").decode(),
        options=meta.options,
        seats=meta.seats,
        created_ms=meta.created_ms,
        finished_ms=engine_events[-1].ts_ms if engine_events else meta.updated_ms,
        envelopes=envelopes,
        read_models={k.decode(): v for k, v in model_raw.items()},
    )
    return FinishedGame(game, event_digest(envelopes), len(meta.seats))


class GameDeleter:
    """The one atomic delete of an archived game's keys (delete_game.lua), and its ratings marker."""

    def __init__(self, redis: Any, partitions: int, ack: Ack = NO_ACK) -> None:
        self.redis = redis
        self.partitions = partitions
        # With an ack that waits, a deletion counts once replicated: an unconfirmed one raises, and the game comes
        # due again (a deletion lost in a failover brings the game back; archiving it again is a no-op copy).
        self._delete = ScriptBatcher(redis, _script("delete_game.lua"), max_fused=1, ack=ack, operation="delete")

    def keys_and_args(self, game_id: str, game_type: str, seats: int, version: int, back_ms: int) -> tuple[
        list[str], list[Any]
    ]:
        keys = GameKeys(game_id, self.partitions)
        others = [k for k in keys.game_keys() if k not in (keys.meta, keys.read_model)]
        lobbies = [keys.lobby(game_type, status) for status in STATUSES]
        return (
            [keys.meta, keys.read_model, archive_due_key(keys.partition), *others, *lobbies],
            [game_id, version, back_ms, len(others)],
        )

    async def delete(self, game_id: str, game_type: str, seats: int, version: int, back_ms: int) -> str:
        """'deleted', 'gone' (nothing left to delete) or 'changed' (the game moved since it was copied)."""
        keys, args = self.keys_and_args(game_id, game_type, seats, version, back_ms)
        outcome = await self._delete(keys, args)
        return outcome.decode() if isinstance(outcome, bytes) else str(outcome)

    async def delete_marker(self, game_id: str, game_type: str) -> None:
        await self.redis.delete(RatingKeys(game_type).rated(game_id))
