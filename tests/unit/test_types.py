"""The rules engines type-check under ``mypy --strict`` (configuration: ``[tool.mypy]`` in pyproject.toml)."""

from __future__ import annotations

from pathlib import Path

from mypy import api  # the `test` extra pins it

ROOT = Path(__file__).resolve().parents[2]


def test_rules_engines_pass_mypy_strict() -> None:
    stdout, stderr, status = api.run(
        ["--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(ROOT / ".mypy_cache")]
    )
    assert status == 0, f"mypy --strict over shared/benthic/rules:\n{stdout}{stderr}"
    assert "Success: no issues found" in stdout and " source files" in stdout
