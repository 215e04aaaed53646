"""The shared package ``benthic`` and the services (``services``), each named, type-check under ``mypy --strict``
(configuration: ``[tool.mypy]`` in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_shared_package_and_the_services_pass_mypy_strict() -> None:
    # A process of its own, as on the command line: mypy run inside pytest takes pytest's sys.path (the
    # repository root) for installed packages, whose errors it does not report, and so skips the services.
    run = subprocess.run(  # the `test` extra pins mypy
        [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
         "--cache-dir", str(ROOT / ".mypy_cache")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )
    assert run.returncode == 0, f"mypy --strict over shared/benthic and services:\n{run.stdout}{run.stderr}"
    assert "Success: no issues found" in run.stdout and " source files" in run.stdout
    # every module of both is checked, whether or not another module imports it
    checked = int(run.stdout.rsplit(" in ", 1)[1].split()[0])
    modules = [*(ROOT / "shared" / "benthic").rglob("*.py"), *(ROOT / "services").rglob("*.py")]
    assert checked >= len(modules), f"mypy checked {checked} files of the {len(modules)} of benthic and services"
