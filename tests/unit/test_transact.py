"""The one write loop (benthic.store.transact) on a stream kept in a list: a conflict is decided again on a fresh
read, at most ``1 + retries`` attempts; a refusal a cached state may explain is decided again once on a fresh one;
a decision of nothing appends nothing.  The writers' own tests (tests/integration/test_play_path.py, test_undo.py,
test_consumers.py, test_matchmaker_streams.py) run it against Redis."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from benthic.store import VersionConflict
from benthic.store.transact import Stale, TooManyConflicts, transact


class Stream:
    def __init__(self, cached: int = 0, moves_on: int = 0) -> None:
        self.events: list[str] = []
        self.cached = cached  # what the first read answers: a version maybe behind the stream
        self.moves_on = moves_on  # how many appends another writer wins first
        self.reads: list[bool] = []
        self.conflicts = 0

    async def read(self, fresh: bool) -> int:
        self.reads.append(fresh)
        return len(self.events) if fresh else self.cached

    async def append(self, version: int, event: str) -> int:
        if self.moves_on:
            self.moves_on -= 1
            self.events.append("theirs")
        if version != len(self.events):
            raise VersionConflict(version, len(self.events))
        self.events.append(event)
        return len(self.events)

    def count(self) -> None:
        self.conflicts += 1


def run(stream: Stream, decide: Any, retries: int = 3) -> Any:
    return asyncio.run(transact(stream.read, decide, stream.append, retries=retries, on_conflict=stream.count))


def test_a_lost_race_is_decided_again_on_a_fresh_read() -> None:
    stream = Stream(moves_on=2)
    done = run(stream, lambda version: f"mine@{version}")
    assert stream.events == ["theirs", "theirs", "mine@2"]
    assert (done.state, done.decided, done.appended) == (2, "mine@2", 3)
    assert stream.reads == [False, True, True] and stream.conflicts == 2


def test_the_retry_budget_is_one_plus_retries_attempts() -> None:
    stream = Stream(moves_on=10)
    with pytest.raises(TooManyConflicts):
        run(stream, lambda version: "mine", retries=3)
    assert stream.conflicts == 4 and "mine" not in stream.events


def test_a_refusal_a_cached_state_may_explain_is_decided_again_fresh_then_raised() -> None:
    stream = Stream(cached=0)
    stream.events = ["a", "b"]

    def decide(version: int) -> str:
        if version < 2:
            raise Stale(ValueError(f"not at {version}"))
        return "mine"

    assert run(stream, decide).appended == 3 and stream.reads == [False, True]

    always = Stream()
    with pytest.raises(ValueError, match="not at 0"):
        run(always, lambda version: (_ for _ in ()).throw(Stale(ValueError(f"not at {version}"))))
    assert always.reads == [False, True]  # decided once more, on a fresh read, then refused


def test_a_decision_of_nothing_appends_nothing_and_async_decisions_are_awaited() -> None:
    stream = Stream()
    assert run(stream, lambda version: None).appended is None and stream.events == []

    async def later(version: int) -> str:
        await asyncio.sleep(0)
        return "async"

    assert run(stream, later).decided == "async" and stream.events == ["async"]
