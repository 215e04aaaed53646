"""checkov's Kubernetes checks on the rendered production overlays: no check fails, and no check is skipped
unless ALLOWED_SKIPS names it with its reason (a skip is a `checkov.io/skip<N>` annotation on the object).

One checkov run covers both production overlays and a negative control: the prod overlay with its image
digest removed and a Secret read into an environment variable, where the image, pull-policy and secret checks
must fail.  BC_SKIP_MAPPING=TRUE and --skip-download keep checkov off the network (it would fetch its
guideline mappings); the run is time-boxed.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.ops.opstools import checkov, rendered

PRODUCTION = ("overlays/prod", "overlays/prod-cluster")
# (check id, resource as checkov names it: Kind.namespace.name) -> why the check does not apply.  Empty: every
# check applies and passes.
ALLOWED_SKIPS: dict[tuple[str, str], str] = {}
TIMEOUT_S = 120  # well under a minute on an idle machine; generous for a loaded one
CONTROL = "negative-control.yaml"


def _negative_control() -> str:
    """The prod overlay with the image unpinned and the operator token as an environment variable."""
    documents = [d for d in yaml.safe_load_all(rendered("overlays/prod")[0]) if d]
    for document in documents:
        if document["kind"] != "Deployment":
            continue
        for container in document["spec"]["template"]["spec"]["containers"]:
            container["image"] = container["image"].partition("@")[0]
            container["env"].append(
                {
                    "name": "BENTHIC_OPERATOR_TOKEN",
                    "valueFrom": {
                        "secretKeyRef": {"name": "benthic-secrets", "key": "BENTHIC_OPERATOR_TOKEN"}
                    },
                }
            )
    return yaml.safe_dump_all(documents)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, list[dict[str, Any]]]]:
    """checkov's results by file (overlay name, or the control) and outcome (passed, failed, skipped)."""
    binary = checkov()
    directory = tmp_path_factory.mktemp("checkov")
    files = {f"{overlay.replace('/', '-')}.yaml": overlay for overlay in PRODUCTION}
    for name, overlay in files.items():
        (directory / name).write_text(rendered(overlay)[0])
    (directory / CONTROL).write_text(_negative_control())
    files[CONTROL] = CONTROL
    result = subprocess.run(
        [
            binary,
            "--directory",
            str(directory),
            "--framework",
            "kubernetes",
            "--output",
            "json",
            "--skip-download",
        ],
        cwd=directory,
        env={**os.environ, "BC_SKIP_MAPPING": "TRUE"},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert result.returncode in (0, 1), f"checkov failed to run:\n{result.stderr[-3000:]}"
    report = json.loads(result.stdout)
    assert report["summary"]["parsing_errors"] == 0, report["summary"]
    by_file: dict[str, dict[str, list[dict[str, Any]]]] = {
        label: {"passed": [], "failed": [], "skipped": []} for label in files.values()
    }
    for outcome in ("passed", "failed", "skipped"):
        for check in report["results"][f"{outcome}_checks"]:
            by_file[files[Path(check["file_path"]).name]][outcome].append(check)
    return by_file


def _summary(checks: list[dict[str, Any]]) -> list[str]:
    return sorted(f"{c['check_id']} {c['check_name']!r} on {c['resource']}" for c in checks)


@pytest.mark.parametrize("overlay", PRODUCTION)
def test_production_overlay_passes_every_checkov_kubernetes_check(
    results: dict[str, dict[str, list[dict[str, Any]]]], overlay: str
) -> None:
    outcome = results[overlay]
    assert not outcome["failed"], "checkov fails:\n" + "\n".join(_summary(outcome["failed"]))
    skipped = {
        (c["check_id"], c["resource"]): c["check_result"].get("suppress_comment") for c in outcome["skipped"]
    }
    assert set(skipped) == set(ALLOWED_SKIPS), f"skips not in ALLOWED_SKIPS (or gone): {skipped}"
    assert len(outcome["passed"]) > 400, "checkov evaluated the whole overlay"
    resources = {c["resource"].split(".")[0] + "." + c["resource"].split(".")[-1] for c in outcome["passed"]}
    for service in ("command", "projection", "scoring", "archiver", "bots"):
        assert f"Deployment.benthic-{service}" in resources


def test_checkov_catches_an_unpinned_image_and_a_secret_in_the_environment(
    results: dict[str, dict[str, list[dict[str, Any]]]],
) -> None:
    failed = {c["check_id"] for c in results[CONTROL]["failed"]}
    assert {"CKV_K8S_43", "CKV_K8S_15", "CKV_K8S_35"} <= failed, _summary(results[CONTROL]["failed"])
