"""Undo before new information: a seat takes back its own last commit while that commit revealed nothing and
nobody acted since.  Pure: which commit an undo voids, or why it is refused, from the game's stream.

The platform event ``command_undone`` {seat, command_id, first_version, last_version} voids one engine commit
(versions first..last) of that seat: the stream stays append-only, every fold skips the voided versions
(``benthic.game.gamestate.fold_envelopes``), histories show both the commit and its undo.  Undoing again takes
back the seat's commit before.  A commit is undoable when it is the newest commit not voided, it is an engine
commit of the undoing seat, none of its events reveals anything (``Engine.reveals``), that seat is still the one
to decide, the game runs and its option ``undo`` is ``turn``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec

from benthic.game.events import Envelope
from benthic.game.platform_events import COMMAND_UNDONE as COMMAND_UNDONE  # the event: platform_events
from benthic.game.platform_events import EVENTS
from benthic.game.platform_events import CommandUndone as CommandUndone
from benthic.rules import AnyEngine

# details.reason of a 409 undo_not_allowed (stable: clients switch on them)
NOTHING_TO_UNDO = "nothing_to_undo"
REVEALS_INFORMATION = "reveals_information"
ANOTHER_SEAT_ACTED = "another_seat_acted"
UNDO_OFF = "undo_off"
GAME_OVER = "game_over"
REASONS = (NOTHING_TO_UNDO, REVEALS_INFORMATION, ANOTHER_SEAT_ACTED, UNDO_OFF, GAME_OVER)


class UndoRefused(msgspec.Struct, frozen=True):
    reason: str  # one of REASONS
    message: str
    details: dict[str, Any] = {}


_decoder: msgspec.json.Decoder[CommandUndone] = EVENTS[COMMAND_UNDONE].decoder


def undone_by(envelope: Envelope) -> CommandUndone | None:
    """The undo an entry records, or None for any other entry."""
    if envelope.is_engine or envelope.type != COMMAND_UNDONE:
        return None
    return _decoder.decode(envelope.data)


def voided(envelopes: Sequence[Envelope]) -> list[tuple[int, int]]:
    """The version ranges (first, last) the undos among ``envelopes`` void."""
    return [(u.first_version, u.last_version) for e in envelopes if (u := undone_by(e)) is not None]


def commits(envelopes: Sequence[Envelope]) -> list[list[Envelope]]:
    """``envelopes`` grouped by commit (the entries of a commit share command id and time, as folds read them)."""
    out: list[list[Envelope]] = []
    for e in envelopes:
        if out and (e.command_id, e.ts_ms) == (out[-1][0].command_id, out[-1][0].ts_ms):
            out[-1].append(e)
        else:
            out.append([e])
    return out


class NeedEarlier(Exception):
    """The entries given end before the newest commit not voided was found: read from further back."""


def decide(
    engine: AnyEngine, state: Any, finished: bool, undo_mode: str, tail: Sequence[Envelope], seat: int,
) -> CommandUndone | UndoRefused:
    """The undo ``seat`` asks for, or why not.  ``state`` is the engine state at the end of ``tail``, the newest
    entries of the stream; ``undo_mode`` the game's option ``undo`` (``turn`` or ``off``,
    lifecycle.parse_options).  NeedEarlier when ``tail`` does not reach back far enough."""
    if finished:
        return UndoRefused(GAME_OVER, "the game is over: nothing can be taken back")
    if undo_mode == "off":
        return UndoRefused(UNDO_OFF, "this game was created with the option undo: off")
    partial = bool(tail) and tail[0].version > 1  # its first commit may have begun before it: not judged
    grouped = commits(tail)[1:] if partial else commits(tail)
    void: list[tuple[int, int]] = []
    for commit in reversed(grouped):
        head = commit[0]
        undone = [u for e in commit if (u := undone_by(e)) is not None]
        if undone:
            void.extend((u.first_version, u.last_version) for u in undone)
            continue
        if any(first <= head.version <= last for first, last in void):
            continue
        return _judge(engine, state, commit, seat)
    if partial:
        raise NeedEarlier
    return UndoRefused(NOTHING_TO_UNDO, "nothing has been played that could be taken back")


def _judge(engine: AnyEngine, state: Any, commit: list[Envelope], seat: int) -> CommandUndone | UndoRefused:
    """The newest commit not voided: undoable by ``seat``, or why not."""
    head = commit[0]
    since = {"version": head.version, "command_id": head.command_id}
    if not head.is_engine:
        return UndoRefused(NOTHING_TO_UNDO, f"the last entry is the platform's {head.type!r}, not a move of seat "
                           f"{seat}", {**since, "event": head.type})
    if head.seat is None:
        return UndoRefused(NOTHING_TO_UNDO, "no move has been played since the game started", since)
    if head.seat != seat:
        return UndoRefused(ANOTHER_SEAT_ACTED, f"seat {head.seat} has played since: only a seat's own last "
                           "commands can be taken back", {**since, "seat": head.seat})
    for e in commit:
        if engine.reveals(engine.decode_event(e.data, e.engine_version)):
            return UndoRefused(REVEALS_INFORMATION, f"the move revealed information ({e.type}): it stands",
                               {**since, "event": e.type})
    prompt = engine.prompt(state)
    if prompt is None or seat not in prompt.seats:
        return UndoRefused(REVEALS_INFORMATION, "the move passed the decision to another seat: it stands",
                           {**since, "prompted": list(prompt.seats) if prompt is not None else []})
    return CommandUndone(seat, head.command_id, head.version, commit[-1].version)
