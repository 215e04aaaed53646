"""Feed notifications in, read models out: per-viewer views, redacted histories, lobby, scores.

Idempotent by version: a game's read models carry the stream version they were folded to, and the write is
refused by the script unless it moves that version forward; a notification for events already projected is
a no-op, and a gap (a lost or reordered notification) is repaired by reading the game stream from the
projected version on.
"""

from __future__ import annotations

import asyncio
import time
from collections import OrderedDict
from typing import Any

import msgspec
from benthic.events import Envelope, Notification
from benthic.gamestate import Folded, StateLoader, fold_envelopes
from benthic.keys import GameKeys
from benthic.pipelining import ScriptBatcher
from benthic.rules import Engine, UnknownGameType, get_engine
from benthic.store import EventStore, GameMeta, parse_entry, parse_meta
from benthic.telemetry import PROJECTED_EVENTS, PROJECTION_LAG, log
from redis.asyncio import Redis

STATUSES = ("open", "running", "finished")

# KEYS: 1 read model, 2..4 lobby (open, running, finished), then one history key per viewer.
# ARGV: 1 version, 2 status, 3 game id, 4 lobby score, 5 channel, 6 field-pair count f, 7 viewer count v,
#       then f x (field, value), then per viewer: entry count c, then c x (score, member).
_WRITE = """
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
local version = tonumber(ARGV[1])
local f = tonumber(ARGV[6])
local fields = {'version', ARGV[1], 'status', ARGV[2]}
for i = 0, f - 1 do
  fields[#fields + 1] = ARGV[8 + i * 2]
  fields[#fields + 1] = ARGV[9 + i * 2]
end
if version < current then return 0 end
if version == current then
  -- same version: only the seat/status part may change (a join)
  redis.call('HSET', KEYS[1], unpack(fields))
else
  redis.call('HSET', KEYS[1], unpack(fields))
  local at = 8 + f * 2
  local viewers = tonumber(ARGV[7])
  for v = 0, viewers - 1 do
    local count = tonumber(ARGV[at])
    at = at + 1
    for e = 0, count - 1 do
      redis.call('ZADD', KEYS[5 + v], ARGV[at], ARGV[at + 1])
      at = at + 2
    end
  end
end
local statuses = {'open', 'running', 'finished'}
for s = 1, 3 do
  if statuses[s] == ARGV[2] then
    redis.call('ZADD', KEYS[1 + s], ARGV[4], ARGV[3])
  else
    redis.call('ZREM', KEYS[1 + s], ARGV[3])
  end
end
-- the lobby lists the newest finished games only; their read models stay
redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -10001)
redis.call('PUBLISH', ARGV[5], ARGV[3] .. ':' .. ARGV[1])
return 1
"""

_json = msgspec.json.Encoder()


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


class Projector:
    def __init__(self, redis: Redis, store: EventStore, loader: StateLoader, meta_cache_size: int = 5000) -> None:
        self.redis = redis
        self.store = store
        self.loader = loader
        self.meta_cache_size = meta_cache_size
        self._metas: OrderedDict[str, GameMeta] = OrderedDict()  # status and seats change only with a join
        self._write = ScriptBatcher(redis, _WRITE)

    async def handle(self, notes: list[Notification]) -> None:
        games: dict[str, tuple[str, bool]] = {}
        for note in notes:
            seats_changed = note.kind == "seats" or games.get(note.game_id, ("", False))[1]
            games[note.game_id] = (note.game_type, seats_changed)
        outcomes = await asyncio.gather(
            *(self._project_logged(game_id, game_type, seats) for game_id, (game_type, seats) in games.items())
        )
        failures = [o for o in outcomes if isinstance(o, Exception)]
        if failures:
            raise failures[0]

    async def _project_logged(self, game_id: str, game_type: str, seats_changed: bool) -> Exception | None:
        try:
            await self.project(game_id, game_type, seats_changed)
        except UnknownGameType:
            log().error("unknown_game_type", game_id=game_id, game_type=game_type)
        except Exception as error:  # noqa: BLE001 - finish the others, then fail the batch
            log().error("projection_failed", game_id=game_id, error=repr(error))
            return error
        return None

    async def project(self, game_id: str, game_type: str, seats_changed: bool = True) -> int:
        """Bring the game's read models up to its stream; returns the version written (0: nothing new)."""
        engine = get_engine(game_type)
        keys = GameKeys(game_id, self.store.partitions)
        meta = None if seats_changed else self._metas.get(game_id)
        cached = self.loader.cached(game_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hmget(keys.read_model, ["version", "seats", "scored"])
            if meta is None:
                pipe.hgetall(keys.meta)
            if cached is not None:
                pipe.xrange(keys.events, f"{cached.version + 1}-0", "+")
            replies = await pipe.execute()
        projected_raw, seats_raw, scored_raw = replies[0]
        if meta is None:
            if not replies[1]:
                return 0
            meta = self._remember_meta(parse_meta(game_id, replies[1]))
        projected = int(projected_raw or 0)
        if cached is not None and cached.version == projected:
            tail = [parse_entry(entry_id, fields) for entry_id, fields in replies[-1]]
            folded = fold_envelopes(engine, cached, tail, game_id) if tail else cached
        else:
            folded = await self.loader.load(game_id, engine)
            tail = await self.store.load(game_id, after=projected, until=folded.version)
        seats_json = _json.encode([msgspec.to_builtins(s) for s in meta.seats])
        if folded.version <= projected and seats_json == seats_raw:
            return 0
        self.loader.cache.put(game_id, folded)
        scored = scored_raw == b"1" or any(e.type == "game_scored" and not e.is_engine for e in tail)
        await self._write_models(engine, keys, meta, folded, tail, seats_json, scored)
        now = time.time()
        for envelope in tail:
            if envelope.ts_ms:
                PROJECTION_LAG.labels(game_type).observe(max(0.0, now - envelope.ts_ms / 1000))
        PROJECTED_EVENTS.labels(game_type).inc(len(tail))
        return folded.version

    def _remember_meta(self, meta: GameMeta) -> GameMeta:
        self._metas[meta.game_id] = meta
        self._metas.move_to_end(meta.game_id)
        while len(self._metas) > self.meta_cache_size:
            self._metas.popitem(last=False)
        return meta

    async def _write_models(
        self,
        engine: Engine,
        keys: GameKeys,
        meta: GameMeta,
        folded: Folded,
        tail: list[Envelope],
        seats_json: bytes,
        scored: bool,
    ) -> None:
        state = folded.state
        seats = len(meta.seats)
        viewers: list[int | None] = [None, *range(seats)]
        prompt = engine.prompt(state)
        prompt_json = msgspec.to_builtins(prompt) if prompt else None
        over = engine.is_over(state)
        status = "finished" if over else meta.status
        updated_ms = max([meta.updated_ms, meta.created_ms, *(e.ts_ms for e in tail)])
        summary = Summary(
            game_id=meta.game_id,
            game_type=meta.game_type,
            status=status,
            version=folded.version,
            seats=[
                None if s is None else {"seat": i, "player_id": s.player_id, "name": s.name}
                for i, s in enumerate(meta.seats)
            ],
            created_ms=meta.created_ms,
            updated_ms=updated_ms,
            prompt=prompt_json,
            scored=scored,
        )
        fields: list[Any] = [
            "summary", _json.encode(summary), "seats", seats_json, "game_type", meta.game_type,
            "scored", "1" if scored else "0",
        ]
        for viewer in viewers:
            view = {"game_id": meta.game_id, "version": folded.version, "status": status,
                    "seat": viewer, "view": engine.view(state, viewer)}
            fields.extend((_field("view", viewer), _json.encode(view)))
        if over:
            fields.extend(("scores", _json.encode(engine.final_scores(state))))
        histories: list[list[Any]] = []
        decoded = [(e, engine.decode_event(e.data, e.engine_version) if e.is_engine else None) for e in tail]
        for viewer in viewers:
            entries: list[Any] = []
            for envelope, event in decoded:
                if event is None:
                    shown: Any = msgspec.json.decode(envelope.data)
                else:
                    shown = engine.redact(event, viewer)
                    if shown is None:
                        continue
                entries.extend(
                    (envelope.version, _json.encode({"version": envelope.version, "ts_ms": envelope.ts_ms,
                                                     "event": shown}))
                )
            histories.append(entries)
        args: list[Any] = [
            folded.version,
            status,
            meta.game_id,
            updated_ms,
            keys.updates,
            len(fields) // 2,
            len(viewers),
            *fields,
        ]
        for entries in histories:
            args.append(len(entries) // 2)
            args.extend(entries)
        await self._write(
            [keys.read_model, *(keys.lobby(meta.game_type, s) for s in STATUSES), *(keys.history(v) for v in viewers)],
            args,
        )


def _field(kind: str, viewer: int | None) -> str:
    return f"{kind}:{'pub' if viewer is None else viewer}"
