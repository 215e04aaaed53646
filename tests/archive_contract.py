"""The archive's contract, written once as abstract cases (the way the eventsourcing library tests every
recorder): a concrete test class names how to open an archive on a real server and how to damage a stored
copy behind its back; every case then runs against it."""

from __future__ import annotations

import asyncio
import random
import uuid
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime, timedelta

import msgspec
import pytest

from benthic.archive import (
    Archive,
    ArchiveConflict,
    ArchivedGame,
    ArchiveMismatch,
    ArchiveUnavailable,
    GameNotArchived,
)
from benthic.archive.records import read_models_digest
from benthic.game.events import PLATFORM, Envelope, event_digest
from benthic.game.platform_events import GameScored
from benthic.rules import GameConfig, get_engine
from benthic.rules.bots import RandomBot
from benthic.store import SeatInfo

DAY_MS = 86_400_000


def played_game(
    game_type: str = "nautilus",
    seats: int = 2,
    seed: int = 1,
    players: list[str] | None = None,
    finished_ms: int | None = None,
) -> ArchivedGame:
    """A finished game played by random bots, with a game_scored entry and read models, as the archiver
    would read it from Redis."""
    engine = get_engine(game_type)
    rng = random.Random(seed)
    events = engine.start(GameConfig(seats=seats, seed=seed))
    state = engine.replay(events)
    finished_ms = finished_ms if finished_ms is not None else 1_700_000_000_000 + seed
    start_ms = finished_ms - 3_600_000
    envelopes = [Envelope(v, engine.event_name(e), engine.encode_event(e), ts_ms=start_ms)
                 for v, e in enumerate(events, 1)]
    while (prompt := engine.prompt(state)) is not None:
        seat = rng.choice(prompt.seats)
        decided = engine.decide(state, seat, RandomBot().choose(engine, state, seat, rng))
        state = engine.fold(state, decided)
        for event in decided:
            envelopes.append(Envelope(len(envelopes) + 1, engine.event_name(event), engine.encode_event(event),
                                      command_id=f"c{len(envelopes)}", seat=seat, ts_ms=finished_ms))
    scored = GameScored(game_type, [msgspec.to_builtins(r) for r in engine.final_scores(state).results])
    envelopes.append(Envelope(len(envelopes) + 1, "game_scored", msgspec.json.encode(scored), kind=PLATFORM,
                              command_id="score", ts_ms=finished_ms + 50))
    players = players or [f"p{i}-{uuid.uuid4().hex[:6]}" for i in range(seats)]
    version = str(len(envelopes)).encode()
    models = {"version": version, "status": b"finished", "scored": b"1",
              "summary": b'{"game_id":"x","status":"finished"}', "scores": msgspec.json.encode(scored.results)}
    for viewer in ["pub", *map(str, range(seats))]:
        models[f"view:{viewer}"] = msgspec.json.encode({"seat": viewer, "view": engine.view(state, None)})
    return ArchivedGame(
        game_id=f"{game_type[:2]}_{uuid.uuid4().hex[:16]}",
        game_type=game_type,
        engine_version=engine.version,
        options={"variant": "standard", "n": seed},
        seats=[SeatInfo(p, p.upper()) for p in players],
        created_ms=start_ms,
        finished_ms=finished_ms,
        envelopes=envelopes,
        read_models=models,
    )


class ArchiveContract(ABC):
    """Every archive must pass these cases."""

    @abstractmethod
    def open_archive(self) -> AbstractAsyncContextManager[Archive]:
        """An open, empty, migrated archive."""

    @abstractmethod
    async def corrupt(self, archive: Archive, game_id: str, column: str) -> None:
        """Damage one stored column of a game (``events`` or ``read_models``) behind the archive's back."""

    @abstractmethod
    def unreachable_archive(self) -> Archive:
        """An archive whose server does not answer."""

    @pytest.fixture
    async def subject(self) -> AsyncIterator[Archive]:
        async with self.open_archive() as archive:
            yield archive

    async def test_a_put_game_comes_back_entry_for_entry(self, subject: Archive) -> None:
        game = played_game("underwater_cities", seats=4, seed=3)
        assert await subject.put(game) is True
        back = await subject.get(game.game_id)
        assert back is not None
        assert back.envelopes == game.envelopes
        assert back.read_models == game.read_models
        assert (back.game_type, back.engine_version, back.options, back.seats) == (
            game.game_type, game.engine_version, game.options, game.seats)
        assert (back.created_ms, back.finished_ms) == (game.created_ms, game.finished_ms)
        assert back.archived_ms > 0 and back.digest == game.digest
        info = await subject.info(game.game_id)
        assert info is not None
        assert (info.event_count, info.last_version, info.digest) == (game.event_count, game.last_version, game.digest)
        assert info.events_bytes < info.events_raw_bytes / 3, "the event log is stored compressed"
        assert info.read_models_bytes < info.read_models_raw_bytes

    async def test_a_second_identical_put_changes_nothing(self, subject: Archive) -> None:
        game = played_game(seed=4)
        assert await subject.put(game) is True
        before = await subject.info(game.game_id)
        assert await subject.put(game) is False
        assert await subject.info(game.game_id) == before
        assert len(await subject.find(player=game.players[0])) == 1

    async def test_concurrent_puts_of_one_game_write_it_once(self, subject: Archive) -> None:
        game = played_game(seed=5)
        outcomes = await asyncio.gather(*(subject.put(game) for _ in range(6)))
        assert sorted(outcomes) == [False] * 5 + [True]
        assert len(await subject.find(player=game.players[0])) == 1

    async def test_a_put_with_another_digest_is_refused_and_the_copy_stays(self, subject: Archive) -> None:
        game = played_game(seed=6)
        await subject.put(game)
        tampered = msgspec.structs.replace(
            game, envelopes=[*game.envelopes[:-1], msgspec.structs.replace(game.envelopes[-1], data=b"{}")]
        )
        with pytest.raises(ArchiveConflict):
            await subject.put(tampered)
        shorter = msgspec.structs.replace(game, envelopes=game.envelopes[:-1])
        with pytest.raises(ArchiveConflict):
            await subject.put(shorter)
        assert (await subject.get(game.game_id)).envelopes == game.envelopes  # type: ignore[union-attr]

    async def test_verify_recomputes_count_and_digest(self, subject: Archive) -> None:
        game = played_game(seed=7)
        await subject.put(game)
        info = await subject.verify(game.game_id, game.event_count, event_digest(game.envelopes))
        assert info.event_count == game.event_count
        with pytest.raises(ArchiveMismatch):
            await subject.verify(game.game_id, game.event_count + 1, game.digest)
        with pytest.raises(ArchiveMismatch):
            await subject.verify(game.game_id, game.event_count, event_digest(game.envelopes[:-1]))
        with pytest.raises(GameNotArchived):
            await subject.verify("no-such-game", 1, game.digest)
        models = read_models_digest(game.read_models)
        assert (await subject.verify(game.game_id, game.event_count, game.digest, models)).digest == game.digest
        with pytest.raises(ArchiveMismatch, match="differ from the ones offered"):
            await subject.verify(game.game_id, game.event_count, game.digest,
                                 read_models_digest({**game.read_models, "summary": b"{}"}))

    @pytest.mark.parametrize("column", ["events", "read_models"])
    async def test_verify_catches_a_damaged_copy(self, subject: Archive, column: str) -> None:
        game = played_game(seed=8)
        await subject.put(game)
        await self.corrupt(subject, game.game_id, column)
        with pytest.raises(ArchiveMismatch):
            await subject.verify(game.game_id, game.event_count, game.digest)

    async def test_readers_get_read_models_and_envelope_pages(self, subject: Archive) -> None:
        game = played_game(seed=9)
        await subject.put(game)
        assert await subject.read_model(game.game_id, "view:pub") == (game.last_version, game.read_models["view:pub"])
        assert await subject.read_model(game.game_id, "view:9") == (game.last_version, None)
        assert await subject.read_model("no-such-game", "summary") is None
        assert await subject.envelopes(game.game_id) == game.envelopes
        assert await subject.envelopes(game.game_id, after=10, limit=5) == game.envelopes[10:15]
        assert await subject.envelopes(game.game_id, after=game.last_version) == []
        assert await subject.envelopes("no-such-game") is None
        assert await subject.exists(game.game_id) and not await subject.exists("no-such-game")
        assert await subject.get("no-such-game") is None and await subject.info("no-such-game") is None

    async def test_find_by_player_type_and_date_newest_first(self, subject: Archive) -> None:
        day = 1_750_000_000_000
        alice, bob = f"alice-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
        games = [
            played_game("nautilus", 2, seed=10, players=[alice, bob], finished_ms=day),
            played_game("nautilus", 2, seed=11, players=[bob, alice], finished_ms=day + 2 * DAY_MS),
            played_game("aquatica", 2, seed=12, players=[alice, f"carol-{uuid.uuid4().hex[:6]}"],
                        finished_ms=day + DAY_MS),
        ]
        for game in games:
            await subject.put(game)

        def ids(found: list) -> list[str]:  # type: ignore[type-arg]
            return [i.game_id for i in found]

        assert ids(await subject.find(player=alice)) == [games[1].game_id, games[2].game_id, games[0].game_id]
        assert ids(await subject.find(player=bob)) == [games[1].game_id, games[0].game_id]
        assert ids(await subject.find(player=alice, game_type="aquatica")) == [games[2].game_id]
        at = datetime.fromtimestamp(day / 1000, UTC)
        assert ids(await subject.find(player=alice, since=at + timedelta(hours=1))) == [games[1].game_id,
                                                                                         games[2].game_id]
        assert ids(await subject.find(player=alice, until=at + timedelta(days=1))) == [games[0].game_id]
        assert ids(await subject.find(game_type="nautilus")) == [games[1].game_id, games[0].game_id]
        assert ids(await subject.find(since=at, until=at + timedelta(days=1, hours=1))) == [games[2].game_id,
                                                                                            games[0].game_id]
        assert ids(await subject.find(player=alice, limit=1)) == [games[1].game_id]
        assert await subject.find(player="nobody") == []
        assert (await subject.find(player=alice))[0].seats == games[1].seats

    async def test_purge_removes_only_games_past_the_retention(self, subject: Archive) -> None:
        now_ms = int(datetime.now(UTC).timestamp() * 1000)
        old = played_game(seed=13, finished_ms=now_ms - 40 * DAY_MS)
        recent = played_game(seed=14, finished_ms=now_ms - 2 * DAY_MS)
        await subject.put(old)
        await subject.put(recent)
        assert await subject.purge(timedelta(days=30)) == 1
        assert not await subject.exists(old.game_id) and await subject.exists(recent.game_id)
        assert await subject.find(player=old.players[0]) == []
        assert await subject.purge(timedelta(days=30)) == 0

    async def test_purge_works_through_many_games_in_batches(self, subject: Archive) -> None:
        now_ms = int(datetime.now(UTC).timestamp() * 1000)
        games = [played_game(seed=20 + i, finished_ms=now_ms - (40 + i) * DAY_MS) for i in range(7)]
        for game in games:
            await subject.put(game)
        assert await subject.purge(timedelta(days=30), batch=3) == 7
        assert not any([await subject.exists(g.game_id) for g in games])

    async def test_size_grows_with_the_games_archived(self, subject: Archive) -> None:
        empty = await subject.size_bytes()
        for seed in range(3):
            await subject.put(played_game("aquatica", 4, seed=30 + seed))
        assert await subject.size_bytes() > empty

    async def test_an_unreachable_server_is_reported_as_unavailable(self) -> None:
        archive = self.unreachable_archive()
        await archive.open(wait=False)
        try:
            with pytest.raises(ArchiveUnavailable):
                await archive.read_model("any", "summary")
            with pytest.raises(ArchiveUnavailable):
                await archive.ping(timeout=0.5)
        finally:
            await archive.close()
