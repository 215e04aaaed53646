"""Building a game's read models: pure, engine views in, the fields to store out.

The read model of a game is one Redis hash: ``version`` and ``status`` (written by the script), the lobby card
``summary``, ``seats`` (to notice joins), ``game_type``, ``scored``, one ``view:<viewer>`` per viewer
(zlib-compressed JSON behind the version it shows: views are most of a live game's footprint) and ``scores``
once the game is over.  A running game's views are built when first read at a version (``reads.py``), so
nobody pays for views nobody looks at; a finished game's are all built with its last read model, so the
archive gets them all.  Histories are not stored: they are derived from the event stream when read
(``benthic.game.history``).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from typing import Any, NamedTuple

import msgspec

from benthic.game import lifecycle
from benthic.game.events import Envelope
from benthic.game.gamestate import Folded
from benthic.rules import AnyEngine, Prompt
from benthic.store import GameMeta

STATUSES = ("open", "running", "finished")
SUMMARY = "summary"
SEATS = "seats"
SCORES = "scores"
SCORED = "scored"
GAME_TYPE = "game_type"
VERSION = "version"
STATUS = "status"
TURN = "turn"  # whose turn the last write showed, for the integration events (services/projection/integration.py)
FINISHED_MARK = b'"status":"finished"'

_json = msgspec.json.Encoder()


def viewer_name(viewer: int | None) -> str:
    return "pub" if viewer is None else str(viewer)


def view_field(viewer: int | None) -> str:
    return f"view:{viewer_name(viewer)}"


def viewers(seats: int) -> list[int | None]:
    """Every viewer of a game: the spectator first, then each seat."""
    return [None, *range(seats)]


def pack_view(body: bytes, version: int) -> bytes:
    return b"%d:" % version + zlib.compress(body, 1)


def stored_version(stored: bytes) -> int | None:
    """The version a stored view shows (None: stored without one, by an earlier release: final views only)."""
    head, sep, _ = stored[:24].partition(b":")
    return int(head) if sep and head.isdigit() else None


def unpack_view(stored: bytes) -> bytes:
    _, sep, packed = stored.partition(b":")
    return zlib.decompress(packed if sep and stored[:1].isdigit() else stored)


class PastView(NamedTuple):
    """The answer of ``GET .../view?at=V``: the view at ``version``, the end of the commit that holds V (the only
    versions a viewer saw: benthic.game.commits), and ``previous``, the version of the view before it (the end of
    the commit before; 0 for the game's first)."""

    version: int
    previous: int
    body: bytes


class VersionNotFound(LookupError):
    """A view asked at a version the game has not reached (``current``: the version it is at)."""

    def __init__(self, current: int) -> None:
        super().__init__(f"the game is at version {current}")
        self.current = current


class Summary(msgspec.Struct, frozen=True):
    """A game as the lobby shows it."""

    game_id: str
    game_type: str
    status: str
    version: int
    seats: list[dict[str, Any] | None]
    created_ms: int
    updated_ms: int
    prompt: dict[str, Any] | None = None
    scored: bool = False
    rated: bool = False  # only rated games change ratings and leaderboards
    lifecycle: dict[str, Any] | None = None  # seats' status (taken over, resigned...), clocks, abort
    # The content pack (id@version) the game plays with: GET /game-types/{type}/content?pack= draws it.
    content_pack: str | None = None


class View(msgspec.Struct, frozen=True):
    game_id: str
    version: int
    status: str
    seat: int | None
    view: dict[str, Any]
    lifecycle: dict[str, Any] | None = None  # seats' status (taken over, resigned...), clocks, abort


class ReadModel(msgspec.Struct, frozen=True):
    version: int
    status: str
    updated_ms: int  # the lobby orders games by it
    fields: list[tuple[str, bytes]]
    prompt: Prompt | None = None  # the engine's prompt at this version (not stored: the integration events use it)


def seats_json(meta: GameMeta) -> bytes:
    return _json.encode([msgspec.to_builtins(s) for s in meta.seats])


def build(engine: AnyEngine, meta: GameMeta, folded: Folded, tail: Sequence[Envelope], scored: bool) -> ReadModel:
    """The read model of ``meta``'s game at ``folded`` (``tail``: the envelopes folded since the last write)."""
    state = folded.state
    over = lifecycle.is_finished(engine, state, folded.life)
    prompt = None if over else engine.prompt(state)
    status = "finished" if over else meta.status
    life = lifecycle.summary(folded.life, lifecycle.parse_options(meta.options), len(meta.seats))
    updated_ms = max([meta.updated_ms, meta.created_ms, *(e.ts_ms for e in tail)])
    summary = Summary(
        game_id=meta.game_id,
        game_type=meta.game_type,
        status=status,
        version=folded.version,
        seats=[
            None if s is None else {"seat": i, "player_id": s.player_id, "name": s.name, "kind": s.kind,
                                    **({"bot": s.bot} if s.bot else {})}
            for i, s in enumerate(meta.seats)
        ],
        created_ms=meta.created_ms,
        updated_ms=updated_ms,
        prompt=msgspec.to_builtins(prompt) if prompt else None,
        scored=scored,
        rated=meta.rated and folded.life.aborted is None,
        lifecycle=life,
        content_pack=engine.content_packs.key_of(state) if engine.content_packs is not None else None,
    )
    fields: list[tuple[str, bytes]] = [
        (SUMMARY, _json.encode(summary)),
        (SEATS, seats_json(meta)),
        (GAME_TYPE, meta.game_type.encode()),
        (SCORED, b"1" if scored else b"0"),
    ]
    if over:
        fields.extend(build_views(engine, meta.game_id, folded.version, status, state, life, viewers(len(meta.seats))))
    scores = lifecycle.final_scores(engine, state, folded.life, len(meta.seats)) if over else None
    if scores is not None:
        fields.append((SCORES, _json.encode(scores)))
    return ReadModel(folded.version, status, updated_ms, fields, prompt)


def view_at(
    engine: AnyEngine, game_id: str, folded: Folded, status_now: str, options: dict[str, Any], seats: int,
    viewer: int | None,
) -> bytes:
    """The view body ``viewer`` had of the game at ``folded.version`` (``GET .../view?at=``): what
    :func:`build_views` wrote at that version, from the same engine view (the same redaction) and the same
    lifecycle summary.  ``status_now``: the game's status now (``open`` or ``running`` while it was not over then:
    a game over now was running then)."""
    over = lifecycle.is_finished(engine, folded.state, folded.life)
    status = "finished" if over else ("running" if status_now == "finished" else status_now)
    life = lifecycle.summary(folded.life, lifecycle.parse_options(options), seats)
    return _json.encode(View(game_id, folded.version, status, viewer, engine.view(folded.state, viewer), life))


def build_views(
    engine: AnyEngine, game_id: str, version: int, status: str, state: Any, life: dict[str, Any] | None,
    wanted: Sequence[int | None],
) -> list[tuple[str, bytes]]:
    """The stored views of ``wanted`` viewers of a game in ``state`` at ``version`` (``life``: its lifecycle
    summary, as the lobby card shows it)."""
    return [
        (view_field(viewer),
         pack_view(_json.encode(View(game_id, version, status, viewer, engine.view(state, viewer), life)), version))
        for viewer in wanted
    ]
