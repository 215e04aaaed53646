"""The matchmaker's streams against a real Redis: reads take no lock, so they run beside the write loop and beside
each other on the same fold; every read answers, and the fold stays what the stream holds (nothing folded twice,
nothing skipped).  Seen in CI as a 500 on `GET /players/me/invitations` and a vacation never ended: two reads of
one stream had fetched the same entries, and the second to fold them found a "gap"."""

from __future__ import annotations

import asyncio

import pytest

from benthic.store.durability import NO_ACK
from services.matchmaker import events as ev
from services.matchmaker.player import VacationPolicy
from services.matchmaker.store import Streams

pytestmark = pytest.mark.asyncio

PLAYER = "ana"


def _streams(redis) -> Streams:  # type: ignore[no-untyped-def]
    return Streams(redis, NO_ACK, VacationPolicy())


async def test_reads_beside_writes_and_each_other_fold_each_entry_once(redis) -> None:
    writer, other = _streams(redis), _streams(redis)  # `other`: another replica, appending to the same stream
    blocked = [f"p{i}" for i in range(120)]

    def block(player_id: str):  # type: ignore[no-untyped-def]
        return lambda state: [] if player_id in state.blocks else [ev.BlockAdded(at=1, player_id=player_id)]

    async def write(streams: Streams, players: list[str], pause_s: float = 0.0) -> None:
        for player_id in players:
            await streams.transact(streams.player(PLAYER), block(player_id))
            await asyncio.sleep(pause_s)  # a writer in a tight loop would win every race against the other

    async def read() -> list[int]:
        seen = []
        for _ in range(60):
            states = await asyncio.gather(writer.catch_up(writer.player(PLAYER)), writer.players([PLAYER]))
            seen.append(states[0].version)
        return seen

    results = await asyncio.gather(write(writer, blocked[0::2], 0.001), write(other, blocked[1::2], 0.0015),
                                   *(read() for _ in range(4)))
    for seen in results[2:]:
        assert seen == sorted(seen), "a read went back in time"
    fresh = await _streams(redis).catch_up(_streams(redis).player(PLAYER))
    folded = await writer.catch_up(writer.player(PLAYER))
    assert folded.version == fresh.version == len(blocked)
    assert folded.blocks == fresh.blocks == set(blocked)


async def test_a_write_whose_entries_a_read_folded_first_is_not_folded_again(redis) -> None:
    streams = _streams(redis)
    stream = streams.player(PLAYER)
    started = ev.VacationStarted(at=1, number=1, days=2, until=2 * 86_400_000, games=[])

    async def fold_while_appending():  # type: ignore[no-untyped-def]
        # the read's XRANGE is queued behind the append's script on the same connection pool
        await asyncio.sleep(0)
        return await streams.catch_up(stream)

    written, _ = await asyncio.gather(
        streams.transact(stream, lambda state: [] if state.vacations else [started]), fold_while_appending())
    state, made = written
    assert made == [started]
    assert state.version == 1 and len(state.vacations) == 1
