"""What a read-model write reports as public integration events (services/projection/integration.py): pure."""

from __future__ import annotations

from typing import Any

import msgspec

from benthic.feed.integration import event_type
from benthic.game.gamestate import Folded
from benthic.game.lifecycle import Lifecycle
from benthic.rules import GameConfig, get_engine
from benthic.store import GameMeta, SeatInfo
from services.projection import integration

ENGINE = get_engine("nautilus")
STATE = ENGINE.replay(ENGINE.start(GameConfig(seats=2, seed=1)))
PROMPT = ENGINE.prompt(STATE)


def _meta(status: str = "running", options: dict[str, Any] | None = None, open_seat: bool = False) -> GameMeta:
    seats = [SeatInfo("p0", "Ann"), None if open_seat else SeatInfo("b1", "Bot", kind="bot", bot="greedy")]
    return GameMeta("g", "nautilus", 8, status, seats, options or {}, created_ms=100, updated_ms=100, rated=True)


def _types(events: list[Any]) -> list[str]:
    return [event_type(type(e)) for e in events]


def test_an_open_game_is_created_and_started_by_the_join_that_fills_it() -> None:
    folded = Folded(8, STATE)
    created, turn = integration.events_of_write(_meta("open", open_seat=True), folded, PROMPT, 8, 100, "open", 0, "",
                                                b"")
    assert _types(created) == ["game.created"] and turn == integration.NO_TURN
    assert [s.kind for s in created[0].seats] == ["player", "open"] and created[0].status == "open"
    joined, turn = integration.events_of_write(_meta(), folded, PROMPT, 8, 150, "running", 8, "open", turn)
    assert _types(joined) == ["game.started", "turn.started"]
    assert joined[0].at == 150 and joined[1].seats == list(ENGINE.prompt(STATE).seats)
    assert joined[0].seats[1].bot == "greedy"
    again, _ = integration.events_of_write(_meta(), folded, PROMPT, 8, 150, "running", 8, "running", turn)
    assert again == [], "the same turn is not started twice"


def test_a_running_clock_gives_the_turn_its_deadline() -> None:
    seat = ENGINE.prompt(STATE).seats[0]
    life = Lifecycle(clock_on=True, since={seat: 1_000}, last_ts=1_000)
    options = {"clock": {"mode": "per_move", "per_move_s": 60}}
    events, turn = integration.events_of_write(_meta(options=options), Folded(9, STATE, life), PROMPT, 8, 1_000,
                                               "running", 8, "running", b"")
    assert _types(events) == ["turn.started"] and events[0].deadline_ms == 61_000
    assert turn == f"{seat}|61000".encode()


def test_an_aborted_game_finishes_with_its_reason_and_no_turn() -> None:
    life = Lifecycle(aborted="operator")
    events, turn = integration.events_of_write(_meta(), Folded(20, STATE, life), PROMPT, 8, 500, "finished", 19,
                                               "running", b"0|")
    assert _types(events) == ["game.finished"] and turn == integration.NO_TURN
    assert (events[0].outcome, events[0].reason, events[0].version, events[0].at) == ("aborted", "operator", 20, 500)


def test_every_event_of_a_game_has_its_deterministic_id() -> None:
    life = Lifecycle(ended="operator")
    events, _ = integration.events_of_write(_meta(), Folded(30, STATE, life), PROMPT, 8, 500, "finished", 0, "", b"",
                                            ended=(29, 400))
    assert [e.id for e in events] == ["g:game.created", "g:game.started", "g:game.finished"]
    assert (events[-1].version, events[-1].at, events[-1].outcome) == (29, 400, "ended")
    encoded = [msgspec.json.decode(msgspec.json.encode(e)) for e in events]
    assert all(e["schema_version"] == 1 and e["type"] == e["id"].rpartition(":")[2] for e in encoded)
