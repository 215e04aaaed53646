"""What the store hands out and takes in: commits, game metadata, snapshots, and its errors."""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.game.events import ENGINE


class VersionConflict(Exception):
    def __init__(self, expected: int, current: int) -> None:
        super().__init__(f"expected version {expected}, the game is at {current}")
        self.expected = expected
        self.current = current


class GameNotFound(LookupError):
    pass


class JoinRefused(Exception):
    def __init__(self, reason: str, seat: int | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.seat = seat


class Commit(msgspec.Struct, frozen=True):
    first_version: int
    last_version: int
    duplicate: bool = False


class SeatInfo(msgspec.Struct, frozen=True):
    player_id: str
    name: str = ""
    kind: str = "player"  # who plays the seat: "player" (an authenticated player) or "bot"
    bot: str = ""  # a bot seat: the bot's name (benthic.rules.bots.BOT_NAMES)
    level: int | None = None  # a bot seat: the bot's level, if it asked for one


class GameMeta(msgspec.Struct, frozen=True):
    game_id: str
    game_type: str
    version: int
    status: str  # open | running | finished
    seats: list[SeatInfo | None]
    options: dict[str, Any]
    created_ms: int
    updated_ms: int
    seeded: bool = False
    engine_version: str = ""
    rated: bool = False  # decided at creation and when seats are taken; scoring rates only rated games
    managed: bool = False  # the bots service looks after it (a house bot plays a seat, a clock runs)


class Snapshot(msgspec.Struct, frozen=True):
    engine_version: str
    version: int  # stream version the state was folded to
    state: bytes  # the engine's msgpack encoding of the state
    life: bytes = b""  # benthic.game.lifecycle's encoding of the game's lifecycle at that version (b"": none yet)


class NewEvent(msgspec.Struct, frozen=True):
    type: str
    data: bytes
    kind: str = ENGINE
    engine_version: int | None = None  # of the engine that produced an engine event (kept in the commit head)


class Actor(msgspec.Struct, frozen=True):
    """Who made a commit, for the audit metadata of its events: a player id (or a backend's client id) and the
    kind of credential it acted with (player, matchmaker, operator, bot)."""

    id: str
    kind: str


_seat_decoder = msgspec.json.Decoder(SeatInfo)
_options_decoder = msgspec.json.Decoder(dict[str, Any])
seat_encoder = msgspec.json.Encoder()


def parse_meta(game_id: str, raw: dict[bytes, bytes]) -> GameMeta:
    fields = {k.decode(): v for k, v in raw.items()}
    count = int(fields.get("seats", b"0"))
    seats: list[SeatInfo | None] = []
    for i in range(count):
        record = fields.get(f"seat:{i}")
        seats.append(_seat_decoder.decode(record) if record else None)
    return GameMeta(
        game_id=game_id,
        game_type=fields["game_type"].decode(),
        version=int(fields.get("version", b"0")),
        status=fields.get("status", b"open").decode(),
        seats=seats,
        options=_options_decoder.decode(fields.get("options", b"{}")),
        created_ms=int(fields.get("created_ms", b"0")),
        updated_ms=int(fields.get("updated_ms", b"0")),
        seeded=fields.get("seeded") == b"1",
        engine_version=fields.get("engine_version", b"").decode(),
        rated=fields.get("rated") == b"1",
        managed=fields.get("bots") == b"1",
    )
