"""The engine passes ``mypy --strict`` (as python-chess runs it in CI too).

``make lint`` runs the same command after ruff. Pure Python, no Django.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_engine_passes_mypy_strict():
    """``mypy --strict games/engine``: no errors (the typed engine, py.typed)."""
    if importlib.util.find_spec("mypy") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("mypy is not installed, and CI=true never skips: "
                        "pip install -r requirements.txt (it pins mypy)")
        pytest.skip("mypy is not installed: pip install -r requirements.txt (it pins mypy)")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "games/engine"],
        cwd=ROOT, capture_output=True, text=True, timeout=600, check=False,
    )
    assert proc.returncode == 0, f"mypy --strict games/engine:\n{proc.stdout}{proc.stderr}"
    assert "Success: no issues found" in proc.stdout
