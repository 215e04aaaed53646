"""The bots service's due sets on a real Redis: a take leases what is due and tells when to look next (the earliest
score left: a due time or a lease's end), and a due time this process schedules since counts too, so the loop
sleeps until then instead of reading the sets ten times a second."""

from __future__ import annotations

from typing import Any

from services.bots.duesets import CLOCKS, MOVES, DueSets

NOW = 1_800_000_000_000


async def test_a_take_leases_what_is_due_and_names_the_earliest_score_left(redis: Any) -> None:
    due = DueSets(redis, 4)
    for kind in (MOVES, CLOCKS):
        for partition in range(4):
            await redis.delete(due.key(kind, partition))
    await due.schedule(MOVES, 1, "g-now", NOW - 5)
    await due.schedule(MOVES, 2, "g-later", NOW + 700)
    due.noted = float("inf")
    assert await due.take(MOVES, NOW, 5_000, 10) == [(1, "g-now", NOW - 5)]
    assert await due.take(CLOCKS, NOW, 5_000, 10) == []
    assert due.next_look_ms() == NOW + 700, "the later move, before the lease taken ends"
    assert await due.take(MOVES, NOW + 700, 5_000, 10) == [(2, "g-later", NOW + 700)]
    assert due.next_look_ms() == NOW + 5_000, "nothing else due: the first lease's end (a dead replica's game)"
    await due.schedule(CLOCKS, 3, "g-clock", NOW + 1_000)
    assert due.next_look_ms() == NOW + 1_000, "scheduled by this process after the take"
    await due.schedule(MOVES, 1, "g-now", None)
    await due.schedule(MOVES, 2, "g-later", None)
    assert await due.take(MOVES, NOW + 6_000, 5_000, 10) == []
    assert await due.take(CLOCKS, NOW, 5_000, 10) == [] and due.earliest[CLOCKS] == NOW + 1_000
