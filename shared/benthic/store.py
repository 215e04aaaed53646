"""The event store on Redis Streams.

A game's events live in ``{pK}:g:<game>`` with entry ID ``<version>-0``.  One Lua script appends a commit
atomically: it checks the expected version and the command id (a repeat returns the first commit and adds
nothing), adds the events, updates the game's meta hash and adds one notification to the partition feed.
Acknowledged means appended: what survives a crash of Redis itself depends on ``appendfsync`` (README).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import msgspec
from redis.asyncio import Redis

from benthic.events import ENGINE, Envelope, Notification
from benthic.feed import DATA_FIELD, encode_notification
from benthic.keys import GameKeys
from benthic.pipelining import ScriptBatcher

_APPEND = """
-- KEYS: 1 events, 2 meta, 3 commands, 4 feed
-- ARGV: 1 expected version, 2 command id, 3 seat, 4 now (ms), 5 feed message, 6 feed maxlen, 7 ended,
--       8 event count n, 9 meta pair count m, then n x (type, data, kind, engine version or ''),
--       then m x (field, value)
local expected = tonumber(ARGV[1])
if expected ~= 0 and redis.call('EXISTS', KEYS[2]) == 0 then
  return {'missing', '', '0'}
end
local current = tonumber(redis.call('HGET', KEYS[2], 'version') or '0')
if ARGV[2] ~= '' then
  local first = redis.call('HGET', KEYS[3], ARGV[2])
  if first then return {'duplicate', first, tostring(current)} end
end
if current ~= expected then
  return {'conflict', '', tostring(current)}
end
local n = tonumber(ARGV[8])
local m = tonumber(ARGV[9])
for i = 0, n - 1 do
  local at = 9 + i * 4
  local fields = {'type', ARGV[at + 1], 'data', ARGV[at + 2], 'kind', ARGV[at + 3], 'ts', ARGV[4]}
  if ARGV[at + 4] ~= '' then fields[#fields + 1] = 'ev'; fields[#fields + 1] = ARGV[at + 4] end
  if ARGV[2] ~= '' then fields[#fields + 1] = 'cmd'; fields[#fields + 1] = ARGV[2] end
  if ARGV[3] ~= '' then fields[#fields + 1] = 'seat'; fields[#fields + 1] = ARGV[3] end
  redis.call('XADD', KEYS[1], (current + i + 1) .. '-0', unpack(fields))
end
local last = current + n
local meta = {'version', tostring(last), 'updated_ms', ARGV[4]}
if ARGV[7] == '1' then meta[#meta + 1] = 'status'; meta[#meta + 1] = 'finished' end
for j = 0, m - 1 do
  local at = 9 + n * 4 + j * 2
  meta[#meta + 1] = ARGV[at + 1]
  meta[#meta + 1] = ARGV[at + 2]
end
redis.call('HSET', KEYS[2], unpack(meta))
local range = (current + 1) .. ':' .. last
if ARGV[2] ~= '' then redis.call('HSET', KEYS[3], ARGV[2], range) end
if ARGV[5] ~= '' then
  redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[6], '*', '__data__', ARGV[5])
end
return {'ok', range, tostring(last)}
"""

_JOIN = """
-- KEYS: 1 meta, 2 feed.  ARGV: 1 seat, 2 player id, 3 seat record (JSON), 4 now, 5 feed message, 6 maxlen
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local seats = tonumber(redis.call('HGET', KEYS[1], 'seats'))
local seat = tonumber(ARGV[1])
if seat < 0 or seat >= seats then return {'no_such_seat'} end
for i = 0, seats - 1 do
  if redis.call('HGET', KEYS[1], 'player:' .. i) == ARGV[2] then return {'already_seated', tostring(i)} end
end
if redis.call('HSETNX', KEYS[1], 'player:' .. seat, ARGV[2]) == 0 then return {'seat_taken'} end
redis.call('HSET', KEYS[1], 'seat:' .. seat, ARGV[3], 'updated_ms', ARGV[4])
local filled = 0
for i = 0, seats - 1 do
  if redis.call('HEXISTS', KEYS[1], 'player:' .. i) == 1 then filled = filled + 1 end
end
local status = redis.call('HGET', KEYS[1], 'status')
if filled == seats and status == 'open' then
  redis.call('HSET', KEYS[1], 'status', 'running')
  status = 'running'
end
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[6], '*', '__data__', ARGV[5])
return {'ok', status}
"""


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


class Snapshot(msgspec.Struct, frozen=True):
    engine_version: str
    version: int  # stream version the state was folded to
    state: bytes


class NewEvent(msgspec.Struct, frozen=True):
    type: str
    data: bytes
    kind: str = ENGINE
    engine_version: int | None = None  # of the engine that produced an engine event (stored as `ev`)


_seat_encoder = msgspec.json.Encoder()
_seat_decoder = msgspec.json.Decoder(SeatInfo)
_options_decoder = msgspec.json.Decoder(dict[str, Any])


class EventStore:
    def __init__(self, redis: Redis, partitions: int, feed_maxlen: int = 200_000) -> None:
        self.redis = redis
        self.partitions = partitions
        self.feed_maxlen = feed_maxlen
        self._append = ScriptBatcher(redis, _APPEND)
        self._join = redis.register_script(_JOIN)

    def keys(self, game_id: str) -> GameKeys:
        return GameKeys(game_id, self.partitions)

    async def append(
        self,
        game_id: str,
        game_type: str,
        expected_version: int,
        events: Sequence[NewEvent],
        *,
        command_id: str = "",
        seat: int | None = None,
        now_ms: int,
        ended: bool = False,
        meta: dict[str, str] | None = None,
    ) -> Commit:
        """Append ``events`` after ``expected_version``.  Raises VersionConflict, GameNotFound; returns the
        first commit of ``command_id`` (``duplicate=True``) when that command was already appended."""
        keys = self.keys(game_id)
        notification = encode_notification(
            Notification(
                game_id=game_id,
                game_type=game_type,
                kind="events",
                first_version=expected_version + 1,
                last_version=expected_version + len(events),
                ts_ms=now_ms,
                ended=ended,
                types=[e.type for e in events],
            )
        )
        meta = meta or {}
        args: list[Any] = [
            expected_version,
            command_id,
            "" if seat is None else seat,
            now_ms,
            notification,
            self.feed_maxlen,
            "1" if ended else "0",
            len(events),
            len(meta),
        ]
        for event in events:
            args.extend((event.type, event.data, event.kind,
                         "" if event.engine_version is None else event.engine_version))
        for field, value in meta.items():
            args.extend((field, value))
        status, versions, current = await self._append([keys.events, keys.meta, keys.commands, keys.feed], args)
        status = status.decode() if isinstance(status, bytes) else status
        if status == "conflict":
            raise VersionConflict(expected_version, int(current))
        if status == "missing":
            raise GameNotFound(game_id)
        first, _, last = (versions.decode() if isinstance(versions, bytes) else versions).partition(":")
        return Commit(int(first), int(last), duplicate=status == "duplicate")

    async def create(
        self,
        game_id: str,
        game_type: str,
        events: Sequence[NewEvent],
        *,
        seats: Sequence[SeatInfo | None],
        options: dict[str, Any],
        engine_version: str,
        seeded: bool,
        now_ms: int,
    ) -> Commit:
        meta: dict[str, str] = {
            "game_type": game_type,
            "seats": str(len(seats)),
            "options": msgspec.json.encode(options).decode(),
            "created_ms": str(now_ms),
            "engine_version": engine_version,
            "seeded": "1" if seeded else "0",
            "status": "running" if all(seats) else "open",
        }
        for i, info in enumerate(seats):
            if info is not None:
                meta[f"player:{i}"] = info.player_id
                meta[f"seat:{i}"] = _seat_encoder.encode(info).decode()
        return await self.append(
            game_id, game_type, 0, events, command_id=f"create:{game_id}", now_ms=now_ms, meta=meta
        )

    async def join(self, game_id: str, game_type: str, seat: int, info: SeatInfo, now_ms: int) -> str:
        """Take an open seat; returns the game's status after it.  Raises GameNotFound, JoinRefused."""
        keys = self.keys(game_id)
        notification = encode_notification(
            Notification(game_id=game_id, game_type=game_type, kind="seats", ts_ms=now_ms)
        )
        result = await self._join(
            keys=[keys.meta, keys.feed],
            args=[seat, info.player_id, _seat_encoder.encode(info), now_ms, notification, self.feed_maxlen],
        )
        result = [r.decode() if isinstance(r, bytes) else r for r in result]
        if result[0] == "missing":
            raise GameNotFound(game_id)
        if result[0] != "ok":
            raise JoinRefused(result[0], int(result[1]) if len(result) > 1 else None)
        return str(result[1])

    async def meta(self, game_id: str) -> GameMeta | None:
        raw = await self.redis.hgetall(self.keys(game_id).meta)
        return parse_meta(game_id, raw) if raw else None

    async def version(self, game_id: str) -> int:
        value = await self.redis.hget(self.keys(game_id).meta, "version")
        return int(value) if value is not None else 0

    async def load(self, game_id: str, after: int = 0, until: int | None = None) -> list[Envelope]:
        """Entries with after < version <= until (all after ``after`` when until is None)."""
        end = "+" if until is None else f"{until}-0"
        entries = await self.redis.xrange(self.keys(game_id).events, f"{after + 1}-0", end)
        return [parse_entry(entry_id, fields) for entry_id, fields in entries]

    async def committed(self, game_id: str, command_id: str) -> Commit | None:
        value = await self.redis.hget(self.keys(game_id).commands, command_id)
        if value is None:
            return None
        first, _, last = value.decode().partition(":")
        return Commit(int(first), int(last), duplicate=True)

    async def save_snapshot(self, game_id: str, snapshot: Snapshot) -> None:
        """Keep the newest snapshot (a slower writer never replaces a newer one)."""
        key = self.keys(game_id).snapshot
        await self.redis.eval(
            "local v = tonumber(redis.call('HGET', KEYS[1], 'version') or '-1') "
            "if tonumber(ARGV[2]) > v or redis.call('HGET', KEYS[1], 'engine') ~= ARGV[1] then "
            "redis.call('HSET', KEYS[1], 'engine', ARGV[1], 'version', ARGV[2], 'state', ARGV[3]) end return 1",
            1,
            key,
            snapshot.engine_version,
            snapshot.version,
            snapshot.state,
        )

    async def load_snapshot(self, game_id: str) -> Snapshot | None:
        raw = await self.redis.hgetall(self.keys(game_id).snapshot)
        if not raw:
            return None
        return Snapshot(raw[b"engine"].decode(), int(raw[b"version"]), raw[b"state"])


def parse_entry(entry_id: bytes, fields: dict[bytes, bytes]) -> Envelope:
    seat = fields.get(b"seat")
    engine_version = fields.get(b"ev")
    return Envelope(
        version=int(entry_id.split(b"-", 1)[0]),
        type=fields[b"type"].decode(),
        data=fields[b"data"],
        kind=fields.get(b"kind", b"e").decode(),
        command_id=fields.get(b"cmd", b"").decode(),
        seat=int(seat) if seat is not None else None,
        ts_ms=int(fields.get(b"ts", 0)),
        engine_version=int(engine_version) if engine_version is not None else 1,
    )


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
    )


__all__ = [
    "DATA_FIELD",
    "Commit",
    "EventStore",
    "GameMeta",
    "GameNotFound",
    "JoinRefused",
    "NewEvent",
    "SeatInfo",
    "Snapshot",
    "VersionConflict",
]
