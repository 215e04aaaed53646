"""What the operations tests share: where things are, the tools they need (skip without them, unless
BENTHIC_OPS_REQUIRE_TOOLS=1 as in CI, where a missing tool fails), rendering the kustomize overlays,
PromQL expressions of the dashboards and alert rules, and the metrics the services define."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
K8S = ROOT / "k8s"
RULE_FILES = sorted((DEPLOY / "prometheus/rules").glob("*.yml"))
RULE_TESTS = sorted((DEPLOY / "prometheus/tests").glob("*.yml"))
DASHBOARDS = sorted((DEPLOY / "grafana/dashboards").glob("*.json"))
OVERLAYS = ("base", "overlays/dev", "overlays/prod", "overlays/prod-cluster")
SERVICES = {
    "command": 8001, "projection": 8002, "scoring": 8003, "archiver": 8004, "bots": 8005, "notifier": 8006,
    "matchmaker": 8007,
}
ARCHIVE_CLIENTS = {"command", "projection", "archiver"}  # the services that connect to PostgreSQL
INSTALL_HINT = "install it with scripts/install-ops-tools.sh"
CHECKOV = (
    "/opt/benthic-ops/checkov/bin/checkov"  # its own virtualenv: its pinned dependencies never meet ours
)
# Grafana's variables, as the live test substitutes them: a 1 s scrape interval makes 1m a fair rate window.
GRAFANA_VARIABLES = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "5m", "$game_type": ".+"}


def tools_required() -> bool:
    return os.environ.get("BENTHIC_OPS_REQUIRE_TOOLS") == "1"


def missing(what: str) -> None:
    """Skip (a developer's machine without the tool) or fail (CI, where the tools must be installed)."""
    message = f"{what} is not installed: {INSTALL_HINT}"
    if tools_required():
        pytest.fail(message + " (BENTHIC_OPS_REQUIRE_TOOLS=1)")
    pytest.skip(message)


def tool(name: str) -> str:
    """The path of an executable: on PATH, else beside this interpreter (a virtualenv's bin/)."""
    found = shutil.which(name)
    if found is None:
        candidate = Path(os.sys.executable).parent / name
        found = str(candidate) if candidate.exists() else None
    if found is None:
        missing(name)
    return found  # type: ignore[return-value]


def checkov() -> str:
    """checkov from its own virtualenv (scripts/install-ops-tools.sh), $BENTHIC_CHECKOV, or on PATH."""
    for candidate in (os.environ.get("BENTHIC_CHECKOV"), CHECKOV, shutil.which("checkov")):
        if candidate and Path(candidate).exists():
            return candidate
    missing("checkov")
    raise AssertionError  # not reached: missing() skips or fails


def module(name: str) -> Any:
    try:
        return __import__(name)
    except ImportError:
        missing(f"the Python package {name!r}")


def run(args: list[str], cwd: Path = ROOT, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


# ---------------------------------------------------------------------------------------------- kustomize


def kubectl() -> str:
    """The kubectl on PATH, whose embedded kustomize must be v5 or newer (current syntax, its warnings)."""
    path = shutil.which("kubectl")
    if path is None:
        missing("kubectl (with kustomize v5)")
    return path  # type: ignore[return-value]


@cache
def kustomize_version(path: str) -> tuple[int, ...]:
    result = run([path, "version", "--client"])
    match = re.search(r"Kustomize Version: v(\d+)\.(\d+)\.(\d+)", result.stdout)
    assert match, f"{path} version --client names no kustomize:\n{result.stdout}{result.stderr}"
    return tuple(int(part) for part in match.groups())


@cache
def _render(path: str, overlay: str) -> tuple[str, str]:
    result = run([path, "kustomize", str(K8S / overlay)])
    assert result.returncode == 0, f"{path} kustomize {overlay} failed:\n{result.stderr}"
    return result.stdout, result.stderr


def rendered(overlay: str) -> tuple[str, str]:
    """The rendered YAML of an overlay and what kustomize printed on stderr (its warnings)."""
    return _render(kubectl(), overlay)


def render(overlay: str) -> list[dict[str, Any]]:
    return [doc for doc in yaml.safe_load_all(rendered(overlay)[0]) if doc]


def by_kind(objects: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {o["metadata"]["name"]: o for o in objects if o["kind"] == kind}


# ---------------------------------------------------------------------------------------------- PromQL


@dataclass(frozen=True)
class Expression:
    source: str  # "rule BenthicX (deploy/...)" or "panel 'Title' (deploy/...)"
    expr: str  # as written (Grafana variables substituted)
    alert: bool


def rule_expressions() -> Iterator[Expression]:
    for path in RULE_FILES:
        for group in yaml.safe_load(path.read_text())["groups"]:
            for rule in group["rules"]:
                name = rule.get("alert") or rule.get("record")
                yield Expression(
                    f"rule {name} ({path.relative_to(ROOT)})", rule["expr"].strip(), "alert" in rule
                )


def substitute(expr: str) -> str:
    for name in sorted(GRAFANA_VARIABLES, key=len, reverse=True):
        expr = expr.replace(name, GRAFANA_VARIABLES[name])
    return expr


def panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in dashboard.get("panels", []):
        yield panel
        yield from panel.get("panels", [])  # collapsed rows carry their panels


def dashboard_expressions() -> Iterator[Expression]:
    for path in DASHBOARDS:
        for panel in panels(json.loads(path.read_text())):
            for target in panel.get("targets", []):
                if target.get("expr"):
                    yield Expression(
                        f"panel {panel['title']!r} {target['refId']} ({path.relative_to(ROOT)})",
                        substitute(target["expr"]),
                        False,
                    )


def all_expressions() -> list[Expression]:
    return [*rule_expressions(), *dashboard_expressions()]


@dataclass
class Selector:
    metric: str
    labels: set[str] = field(default_factory=set)
    equals: dict[str, str] = field(default_factory=dict)  # the label="value" matchers


def _nodes(promql: Any, node: Any) -> Iterator[Any]:
    seen: list[Any] = []
    promql.walk(node, lambda n: seen.append(n))
    yield from seen


def selectors(expr: str) -> list[Selector]:
    """Every vector selector (metric name and the label names its matchers use)."""
    promql = module("promql_parser")
    found = []
    for node in _nodes(promql, promql.parse(expr)):
        if isinstance(node, promql.MatrixSelector):
            node = node.vector_selector
        if isinstance(node, promql.VectorSelector):
            matchers = [m for m in node.matchers.matchers if m.name != "__name__"]
            equals = {m.name: m.value for m in matchers if m.op == promql.MatchOp.Equal}
            found.append(Selector(node.name, {m.name for m in matchers}, equals))
    return found


def grouping_labels(expr: str) -> set[str]:
    """Label names of by (...) / without (...) and on (...) / ignoring (...) clauses."""
    promql = module("promql_parser")
    labels: set[str] = set()
    for node in _nodes(promql, promql.parse(expr)):
        modifier = getattr(node, "modifier", None)
        if isinstance(node, promql.AggregateExpr) and modifier is not None:
            labels.update(modifier.labels)
        if isinstance(node, promql.BinaryExpr) and modifier is not None and modifier.matching is not None:
            labels.update(modifier.matching.labels)
    return labels


_COMPARISONS = {">", "<", ">=", "<=", "==", "!="}
_SET_OPERATORS = {"and", "or", "unless"}


def probes(expr: str) -> list[tuple[str, str]]:
    """What the live test evaluates for one expression, each of which must return data:

    * a threshold `X > 5` (a comparison, without `bool`, against a number): X itself;
    * `A and B`, `A or B`, `A unless B`: A and B, each on its own;
    * `absent(X)` / `absent_over_time(X[..])`: X;
    * anything else (every dashboard query): the expression as it is.
    """
    promql = module("promql_parser")

    def split(node: Any) -> list[tuple[str, str]]:
        while isinstance(node, promql.ParenExpr):
            node = node.expr
        if isinstance(node, promql.BinaryExpr):
            op = str(node.op)
            returns_bool = node.modifier is not None and node.modifier.return_bool
            if op in _COMPARISONS and not returns_bool:
                if isinstance(node.rhs, promql.NumberLiteral):
                    return _tag(split(node.lhs), f"without '{op} {node.rhs}'")
                if isinstance(node.lhs, promql.NumberLiteral):
                    return _tag(split(node.rhs), f"without '{node.lhs} {op}'")
            if op in _SET_OPERATORS:
                return _tag(split(node.lhs), f"left of '{op}'") + _tag(split(node.rhs), f"right of '{op}'")
        if isinstance(node, promql.Call) and node.func.name in ("absent", "absent_over_time"):
            return _tag(split(node.args[0]), f"argument of {node.func.name}()")
        return [("", _text(node))]

    return split(promql.parse(expr))


def _text(node: Any) -> str:
    """PromQL text of a parsed node.  promql-parser prints a subquery without a step, `(...)[3h:]`, as
    `(...)[3h]`; a range right after `)` is only valid as a subquery, so the colon goes back in."""
    return re.sub(r"\)\[(\w+)\]", r")[\1:]", str(node))


def _tag(items: list[tuple[str, str]], how: str) -> list[tuple[str, str]]:
    return [(f"{how}; {note}" if note else how, expr) for note, expr in items]


# ---------------------------------------------------------------------------------------------- metrics


def setting_names() -> set[str]:
    """The environment variables benthic.runtime.config reads: REDIS_URL and BENTHIC_<FIELD> of every field."""
    import msgspec

    from benthic.runtime.config import Settings

    return {f"BENTHIC_{f.name.upper()}" for f in msgspec.structs.fields(Settings)} | {"REDIS_URL"}


def samples(kind: str, name: str, labels: set[str]) -> dict[str, set[str]]:
    """The sample names (and their label names) a metric of this type exposes."""
    if kind == "counter":
        return {f"{name}_total": labels}
    if kind == "histogram":
        return {f"{name}_bucket": labels | {"le"}, f"{name}_sum": labels, f"{name}_count": labels}
    if kind == "info":
        return {f"{name}_info": labels | {"version", "services"}}
    return {name: labels}


@cache
def service_metric_types() -> dict[str, tuple[str, frozenset[str]]]:
    """The metrics the services define: name (a counter without `_total`) ->
    (type, label names); every metric that benthic's and the services' modules register with prometheus_client
    once imported."""
    import importlib
    import pkgutil

    from prometheus_client import REGISTRY
    from prometheus_client.metrics import MetricWrapperBase

    import benthic
    import services

    for package in (benthic, services):
        for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            importlib.import_module(found.name)
    return {
        collector._name: (collector._type, frozenset(collector._labelnames))
        for collector in list(REGISTRY._collector_to_names)
        if isinstance(collector, MetricWrapperBase)
    }


@cache
def service_metrics() -> dict[str, set[str]]:
    """Sample names the services define, each with its label names."""
    names: dict[str, set[str]] = {}
    for name, (kind, labels) in service_metric_types().items():
        names.update(samples(kind, name, set(labels)))
    return names


@cache
def defined_metrics() -> dict[str, set[str]]:
    """Sample names the dashboards and alerts may use: what the services define, and `up`."""
    names: dict[str, set[str]] = {"up": set()}
    names.update(service_metrics())
    return names


TARGET_LABELS = {"job", "instance"}  # added by Prometheus to every scraped series
