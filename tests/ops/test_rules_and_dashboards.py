"""Alert rules and dashboards, checked without a running Prometheus: promtool's own checks and unit tests,
every alert unit-tested both ways and documented, every metric and label a query uses defined by the
services, dashboards well-formed,
the Kubernetes copies of both in sync."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
import yaml

from tests.ops.opstools import (
    DASHBOARDS,
    DEPLOY,
    ROOT,
    RULE_FILES,
    RULE_TESTS,
    TARGET_LABELS,
    all_expressions,
    defined_metrics,
    grouping_labels,
    panels,
    rule_expressions,
    run,
    selectors,
    substitute,
    tool,
)

SEVERITIES = {"page", "ticket"}


def _alerts() -> dict[str, dict]:
    return {
        r["alert"]: r
        for p in RULE_FILES
        for g in yaml.safe_load(p.read_text())["groups"]
        for r in g["rules"]
        if "alert" in r
    }


def test_promtool_check_rules() -> None:
    result = run([tool("promtool"), "check", "rules", *map(str, RULE_FILES)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_promtool_unit_tests_pass() -> None:
    result = run([tool("promtool"), "test", "rules", *map(str, RULE_TESTS)], cwd=DEPLOY / "prometheus/tests")
    assert result.returncode == 0, result.stdout + result.stderr


def _cases(firing: bool) -> set[str]:
    return {
        case["alertname"]
        for path in RULE_TESTS
        for test in yaml.safe_load(path.read_text())["tests"]
        for case in test["alert_rule_test"]
        if bool(case.get("exp_alerts")) == firing
    }


@pytest.mark.parametrize(
    ("replacement", "firing"),
    [("vector(1) == 0", True), ("vector(1)", False)],
    ids=["alerts-never-fire", "alerts-always-fire"],
)
def test_promtool_unit_tests_are_not_vacuous(tmp_path: Path, replacement: str, firing: bool) -> None:
    """With every alert expression replaced by one that never (always) fires, every case that expects the
    alert to fire (to stay silent) must fail: each case asserts something."""
    (tmp_path / "rules").mkdir()
    (tmp_path / "tests").mkdir()
    for path in RULE_FILES:
        doc = yaml.safe_load(path.read_text())
        for group in doc["groups"]:
            for rule in group["rules"]:
                rule["expr"] = replacement
        (tmp_path / "rules" / path.name).write_text(yaml.safe_dump(doc))
    for path in RULE_TESTS:
        (tmp_path / "tests" / path.name).write_text(path.read_text())
    result = run([tool("promtool"), "test", "rules", *(p.name for p in RULE_TESTS)], cwd=tmp_path / "tests")
    assert result.returncode != 0
    failed = set(re.findall(r"alertname: (\w+),", result.stdout + result.stderr))
    assert _cases(firing) - failed == set(), "these cases still pass although the alert's expression changed"


def test_every_alert_has_a_firing_and_a_silent_unit_test() -> None:
    fires: set[str] = set()
    silent: set[str] = set()
    for path in RULE_TESTS:
        doc = yaml.safe_load(path.read_text())
        assert [str((path.parent / f).resolve()) for f in doc["rule_files"]] == [str(p) for p in RULE_FILES]
        for test in doc["tests"]:
            for case in test.get("alert_rule_test", []):
                (fires if case.get("exp_alerts") else silent).add(case["alertname"])
    alerts = set(_alerts())
    assert alerts - fires == set(), "alerts without a unit test that fires them"
    assert alerts - silent == set(), "alerts without a unit test in which they stay silent"


def _runbook_sections(markdown: str) -> dict[str, str]:
    """Each heading's anchor as GitHub makes it (lower case, punctuation dropped, spaces to hyphens) -> the text
    of its section, up to the next heading."""
    sections: dict[str, str] = {}
    parts = re.split(r"^(#+ .*)$", markdown, flags=re.MULTILINE)
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        title = heading.lstrip("#").strip().lower()
        sections[re.sub(r"[^\w\- ]", "", title).replace(" ", "-")] = body.strip()
    return sections


def test_alerts_have_severity_summary_and_a_runbook_in_operations_md() -> None:
    """Every alert's runbook_url is the anchor of a heading of docs/OPERATIONS.md that is exactly its name (so
    the link lands there), and that section says something."""
    sections = _runbook_sections((ROOT / "docs/OPERATIONS.md").read_text())
    alerts = _alerts()
    assert len(alerts) >= 25
    for name, rule in alerts.items():
        assert rule["labels"]["severity"] in SEVERITIES, name
        assert rule["annotations"]["summary"] and rule["annotations"]["description"], name
        assert rule["annotations"]["runbook_url"] == f"docs/OPERATIONS.md#{name.lower()}", name
        assert name.lower() in sections, f"docs/OPERATIONS.md has no heading '### {name}' (its runbook)"
        assert len(sections[name.lower()]) >= 80, f"the runbook section of {name} is (nearly) empty"


@pytest.mark.parametrize("expression", all_expressions(), ids=lambda e: e.source)
def test_queries_use_only_metrics_and_labels_the_services_define(expression) -> None:
    defined = defined_metrics()
    used_labels: set[str] = set()
    for selector in selectors(expression.expr):
        assert selector.metric in defined, (
            f"{expression.source}: no metric {selector.metric!r} defined by the services"
        )
        known = defined[selector.metric] | TARGET_LABELS
        assert selector.labels <= known, (
            f"{expression.source}: {selector.metric} has no label {selector.labels - known}"
        )
        used_labels |= known
    unknown = grouping_labels(expression.expr) - used_labels - TARGET_LABELS
    assert not unknown, f"{expression.source}: grouping by labels none of its metrics has: {unknown}"


def test_dashboards_are_well_formed() -> None:
    uids = set()
    for path in DASHBOARDS:
        board = json.loads(path.read_text())
        assert board["uid"] not in uids and len(board["uid"]) <= 40
        uids.add(board["uid"])
        assert "benthic" in board["tags"]
        variables = {v["name"]: v for v in board["templating"]["list"]}
        assert variables["datasource"]["type"] == "datasource"
        ids = [p["id"] for p in panels(board)]
        assert len(ids) == len(set(ids)), f"{path.name}: duplicate panel ids"
        for panel in panels(board):
            if panel["type"] == "row":
                continue
            assert panel["datasource"]["uid"] == "${datasource}", f"{path.name}: {panel['title']}"
            assert panel["targets"], f"{path.name}: {panel['title']} has no query"
            grid = panel["gridPos"]
            assert grid["x"] + grid["w"] <= 24, f"{path.name}: {panel['title']} is wider than the grid"
        for name, variable in variables.items():
            if variable["type"] == "query":
                metric = re.match(r"label_values\((\w+),\s*(\w+)\)", variable["definition"])
                assert metric and metric.group(1) in defined_metrics(), f"{path.name}: variable {name}"
                assert metric.group(2) in defined_metrics()[metric.group(1)]


def test_overview_covers_what_operators_asked_for() -> None:
    text = (DEPLOY / "grafana/dashboards/benthic-overview.json").read_text()
    for metric in (
        "benthic_http_requests_total",
        "benthic_http_request_duration_seconds_bucket",
        "benthic_commands_total",
        "benthic_games",
        "benthic_projection_lag_seconds_bucket",
        "benthic_consumer_pending_entries",
        "benthic_consumer_lag_entries",
        "benthic_redis_memory_used_bytes",
    ):
        assert metric in text, metric
    assert 'outcome=\\"rejected\\"' in text and "by (code)" in text, "rule violations by code"


# Rows of the overview and the metrics each must show.
OVERVIEW_ROWS = {
    "Capacity": {
        "benthic_redis_memory_by_kind_bytes",
        "benthic_games",
        "benthic_games_archived_total",
        "benthic_archive_lag_seconds",
        "benthic_archive_failures_total",
        "benthic_live_streams",
    },
    # replication, failover and the writes refused or unconfirmed
    "Redis replication and durability": {
        "benthic_redis_replicas_connected",
        "benthic_redis_replicas_required",
        "benthic_redis_replication_lag_bytes",
        "benthic_redis_primary_changes_total",
        "benthic_durability_unconfirmed_total",
        "benthic_commands_total",
    },
    # admission control and the bounds of queues
    "Saturation": {
        "benthic_admission_shed_total",
        "benthic_admission_in_flight",
        "benthic_admission_queued",
        "benthic_admission_wait_seconds_bucket",
        "benthic_bound",
        "benthic_consumer_lag_entries",
    },
    "Game lifecycle": {
        "benthic_bot_moves_total",
        "benthic_bot_think_seconds_bucket",
        "benthic_bot_move_lag_seconds_bucket",
        "benthic_clock_expiries_total",
        "benthic_takeovers_total",
        "benthic_resignations_total",
        "benthic_games_aborted_total",
    },
}


def test_overview_has_a_capacity_a_durability_a_saturation_and_a_lifecycle_row() -> None:
    board = json.loads((DEPLOY / "grafana/dashboards/benthic-overview.json").read_text())
    rows: dict[str, set[str]] = {}
    current = None
    for panel in sorted(board["panels"], key=lambda p: (p["gridPos"]["y"], p["gridPos"]["x"])):
        if panel["type"] == "row":
            current = rows.setdefault(panel["title"], set())
            continue
        assert current is not None, f"{panel['title']} is above every row"
        for target in panel["targets"]:
            current.update(s.metric for s in selectors(substitute(target["expr"])))
    for title, metrics in OVERVIEW_ROWS.items():
        assert title in rows, f"no row {title!r}"
        assert metrics <= rows[title], f"row {title!r} lacks {metrics - rows[title]}"


def test_kubernetes_copies_are_in_sync() -> None:
    """k8s/base/app/prometheusrule.yaml, grafana-dashboards.yaml and the KEDA triggers are generated."""
    result = run([sys.executable, str(DEPLOY / "sync_k8s.py"), "--check"])
    assert result.returncode == 0, result.stderr
    rule = yaml.safe_load((ROOT / "k8s/base/app/prometheusrule.yaml").read_text())
    groups = [g for p in RULE_FILES for g in yaml.safe_load(p.read_text())["groups"]]
    assert rule["spec"]["groups"] == groups
    config_map = yaml.safe_load((ROOT / "k8s/base/app/grafana-dashboards.yaml").read_text())
    assert {k: json.loads(v) for k, v in config_map["data"].items()} == {
        p.name: json.loads(p.read_text()) for p in DASHBOARDS
    }
    assert config_map["metadata"]["labels"]["grafana_dashboard"] == "1"


def test_rule_expressions_are_all_found() -> None:
    assert len(list(rule_expressions())) == len(_alerts()) >= 8
