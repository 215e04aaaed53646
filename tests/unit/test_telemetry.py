from prometheus_client import REGISTRY

from benthic.runtime.telemetry import COMMANDS, series


def test_a_remembered_series_is_the_library_s_own_child() -> None:
    labels = ("test_game", "test_command", "accepted", "")
    child = series(COMMANDS, *labels)
    assert child is COMMANDS.labels(*labels) and series(COMMANDS, *labels) is child
    labelled = dict(zip(COMMANDS._labelnames, labels, strict=True))
    before = REGISTRY.get_sample_value("benthic_commands_total", labelled) or 0.0
    child.inc()
    assert REGISTRY.get_sample_value("benthic_commands_total", labelled) == before + 1
    assert series(COMMANDS, "test_game", "test_command", "rejected", "x") is not child
