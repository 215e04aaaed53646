"""``ruff check`` over the repository is clean (the rules and isort sections: ``[tool.ruff]`` in pyproject.toml)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_ruff_check_finds_nothing() -> None:
    run = subprocess.run(  # the `test` extra pins ruff; `python -m ruff` runs the binary installed with it
        [sys.executable, "-m", "ruff", "check", "--no-cache", "--output-format", "concise", "."],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, f"ruff check:\n{run.stdout}{run.stderr}"
    assert "All checks passed" in run.stdout
