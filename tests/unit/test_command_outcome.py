"""CommandOutcome counts one command once in benthic_commands_total: the first outcome recorded, an unexpected
failure classified, nothing for a command refused before any outcome was recorded."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY

from benthic.errors import ApiError
from benthic.play import CommandOutcome
from benthic.rules import GameNotSupported

GAME_TYPE = "outcome_test"


def _count(command: str, outcome: str, code: str = "") -> float:
    labels = {"game_type": GAME_TYPE, "command": command, "outcome": outcome, "code": code}
    return REGISTRY.get_sample_value("benthic_commands_total", labels) or 0.0


def _total(command: str) -> float:
    return sum(s.value for m in REGISTRY.collect() if m.name == "benthic_commands"
               for s in m.samples if s.name == "benthic_commands_total"
               and s.labels.get("game_type") == GAME_TYPE and s.labels.get("command") == command)


def test_the_first_outcome_recorded_is_counted_once() -> None:
    with CommandOutcome(GAME_TYPE, "first") as outcome:
        outcome.record("duplicate")
        outcome.record("accepted")
    assert (_count("first", "duplicate"), _count("first", "accepted")) == (1, 0)


def test_a_refusal_is_counted_by_its_code_and_raised() -> None:
    with pytest.raises(ApiError), CommandOutcome(GAME_TYPE) as outcome:
        outcome.command = "refused"
        raise outcome.refuse("rejected", ApiError(409, "seats_open", "not yet"))
    assert _count("refused", "rejected", "seats_open") == 1 and _total("refused") == 1


@pytest.mark.parametrize(("error", "outcome", "code"), [
    (GameNotSupported(GAME_TYPE, "no"), "not_supported", "game_not_supported"),
    (RuntimeError("bug"), "error", "internal_error"),
])
def test_an_unexpected_failure_is_classified(error: Exception, outcome: str, code: str) -> None:
    command = f"failed_{outcome}"
    with pytest.raises(type(error)), CommandOutcome(GAME_TYPE, command) as counted:
        try:
            raise error
        except BaseException as failure:
            counted.failed(failure)
            raise
    assert _count(command, outcome, code) == 1 and _total(command) == 1


def test_a_command_with_no_outcome_is_not_counted() -> None:
    with pytest.raises(ApiError), CommandOutcome(GAME_TYPE, "uncounted") as outcome:
        try:
            raise ApiError(503, "store_unavailable", "down")
        except BaseException as failure:
            outcome.failed(failure)
            raise
    assert _total("uncounted") == 0
