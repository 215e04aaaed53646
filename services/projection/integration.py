"""The public integration events a read-model write reports (``benthic.feed.integration``): pure, the write's
before and after in, the events out, in the order they happened.

A write moves a game's read model from what it held (its version, status and turn) to the folded state: the game
was created (nothing held), started (its status became running), a turn started (the seats to move, or their
deadline, changed), it finished (its status became finished), it was scored (its ``game_scored`` was folded) and,
for a rated game, each player's rating changed (the scoring service applies the ratings before it appends
``game_scored``; their marker says what changed: ``benthic.game.rated``).  Commits projected together (a projection
catching up) report the turn of the last one only.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import msgspec

from benthic.feed.integration import (
    GameCreated,
    GameFinished,
    GameScored,
    GameStarted,
    IntegrationEvent,
    RatingChanged,
    SeatHolder,
    SeatResult,
    TurnStarted,
    once_id,
    rating_id,
    turn_id,
)
from benthic.game import lifecycle
from benthic.game import platform_events as pe
from benthic.game.events import Envelope
from benthic.game.gamestate import Folded
from benthic.game.rated import PlayerRated
from benthic.rules import Prompt
from benthic.store import GameMeta


class Turn(NamedTuple):
    seats: tuple[int, ...]
    prompt: str
    deadline_ms: int | None

    def key(self) -> bytes:
        """What the read model keeps of it (field ``turn``), to tell the next write whether a turn started."""
        return f"{','.join(map(str, self.seats))}|{'' if self.deadline_ms is None else self.deadline_ms}".encode()


NO_TURN = b""


def turn_of(meta: GameMeta, folded: Folded, status: str, prompt: Prompt | None) -> Turn | None:
    """Whose turn it is in a running game (``prompt``: the engine's at ``folded``), with the earliest deadline of
    their running clocks."""
    if status != "running" or prompt is None or not prompt.seats:
        return None
    deadline = None
    if "clock" in meta.options:  # most games have none: no options to parse
        due = lifecycle.deadlines(folded.life, lifecycle.parse_options(meta.options), len(meta.seats))
        deadline = min((due[s] for s in prompt.seats if s in due), default=None)
    return Turn(tuple(prompt.seats), prompt.kind, deadline)


def seat_holders(meta: GameMeta) -> list[SeatHolder]:
    return [
        SeatHolder(seat=i, kind="open") if s is None
        else SeatHolder(seat=i, kind=s.kind, player_id=s.player_id, name=s.name, bot=s.bot or None)
        for i, s in enumerate(meta.seats)
    ]


def created_version(game_id: str, folded: Folded, tail_versions: list[tuple[int, str]]) -> int:
    """The version of the game's creation commit (its last event), from the (version, command id) of the
    envelopes projected; the folded version when they do not include it."""
    creation = f"create:{game_id}"
    return max((v for v, command in tail_versions if command == creation), default=folded.version)


def events_of_write(
    meta: GameMeta, folded: Folded, prompt: Prompt | None, created_at: int, at: int, status: str,
    before_version: int, before_status: str, before_turn: bytes, ended: tuple[int, int] | None = None,
) -> tuple[list[IntegrationEvent], bytes]:
    """The events a write to ``folded`` (``prompt``: the engine's there) at ``status`` reports after a read model
    at ``before_version`` (0: none), ``before_status`` and ``before_turn``; with the turn key to store.  ``at``: the
    time of the write's newest commit or join; ``created_at``: the creation commit's version; ``ended``: (version,
    time) of the game's last commit before its ``game_scored`` when the write folds that too (the end is reported
    at it)."""
    game_id, game_type = meta.game_id, meta.game_type
    events: list[IntegrationEvent] = []
    seats = seat_holders(meta)
    if before_version == 0:
        events.append(GameCreated(
            id=once_id(game_id, "game.created"), game_id=game_id, game_type=game_type, at=meta.created_ms,
            version=created_at, status="running" if meta.status != "open" else "open", rated=meta.rated,
            seats=seats,
        ))
    if status != "open" and before_status in ("", "open"):
        events.append(GameStarted(id=once_id(game_id, "game.started"), game_id=game_id, game_type=game_type,
                                  at=at if before_version else meta.created_ms, version=folded.version, seats=seats))
    turn = turn_of(meta, folded, status, prompt)
    key = turn.key() if turn is not None else NO_TURN
    if turn is not None and key != before_turn:
        events.append(TurnStarted(id=turn_id(game_id, folded.version), game_id=game_id, game_type=game_type, at=at,
                                  version=folded.version, seats=list(turn.seats), prompt=turn.prompt,
                                  deadline_ms=turn.deadline_ms))
    if status == "finished" and before_status != "finished":
        life = folded.life
        outcome: Literal["completed", "ended", "aborted"] = (
            "aborted" if life.aborted is not None else "ended" if life.ended is not None else "completed")
        end_version, end_at = ended if ended is not None else (folded.version, at)
        events.append(GameFinished(id=once_id(game_id, "game.finished"), game_id=game_id, game_type=game_type,
                                   at=end_at, version=end_version, outcome=outcome,
                                   reason=life.aborted if life.aborted is not None else life.ended))
    return events, key


_scored_decoder: msgspec.json.Decoder[pe.GameScored] = pe.EVENTS[pe.GAME_SCORED].decoder


def scored_envelope(tail: list[Envelope]) -> Envelope | None:
    """The ``game_scored`` among the envelopes a write folds, if any."""
    return next((e for e in tail if e.type == pe.GAME_SCORED and not e.is_engine), None)


def end_before(tail: list[Envelope], scored: Envelope | None) -> tuple[int, int] | None:
    """(version, time) of the game's last commit before ``scored`` when ``tail`` holds it (nothing comes between
    a game's end and its ``game_scored``: commands are refused once it is over)."""
    if scored is None:
        return None
    last = next((e for e in reversed(tail) if e.version < scored.version), None)
    return (last.version, last.ts_ms) if last is not None else None


def scored_record(envelope: Envelope) -> pe.GameScored:
    return _scored_decoder.decode(envelope.data)


def expects_ratings(record: pe.GameScored) -> bool:
    """The scoring service rated the game (and left a marker saying how)."""
    return record.rated and len(record.players) >= 2


def scored_events(
    meta: GameMeta, envelope: Envelope, record: pe.GameScored, rated: list[PlayerRated] | None
) -> list[IntegrationEvent]:
    """``game.scored`` from the game's ``game_scored``, then each player's ``rating.changed`` (``rated``: the
    ratings' marker, None when there is none)."""
    game_id, game_type = meta.game_id, meta.game_type
    players = record.players
    results = [
        SeatResult(seat=int(r["seat"]), score=int(r["score"]), rank=int(r["rank"]),
                   player_id=(players[int(r["seat"])] or None) if int(r["seat"]) < len(players) else None)
        for r in record.results
    ]
    events: list[IntegrationEvent] = [GameScored(
        id=once_id(game_id, "game.scored"), game_id=game_id, game_type=game_type, at=envelope.ts_ms,
        version=envelope.version, rated=record.rated, results=results)]
    for player in rated or []:
        events.append(RatingChanged(
            id=rating_id(game_id, player.player_id), game_id=game_id, game_type=game_type, at=envelope.ts_ms,
            player_id=player.player_id, rating=player.rating, mu=player.mu, sigma=player.sigma,
            previous_rating=player.previous_rating))
    return events
