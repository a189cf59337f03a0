"""Every app passes ``mypy`` in strict mode with the Django plugin (as
python-chess runs it in CI; the configuration is pyproject.toml's
``[tool.mypy]``: django-stubs of the Django 5.2 series, migrations excluded),
and ``ruff`` passes over the tree. The apps are read from the settings, so a
new app is checked without editing this test. ``make lint`` runs the same.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

ROOT = Path(__file__).resolve().parent.parent
APPS = [*(app for app in settings.INSTALLED_APPS if (ROOT / app).is_dir()), "yuanzi_site"]


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{module} is not installed, and CI=true never skips: "
                        "pip install -r requirements.txt (it pins it)")
        pytest.skip(f"{module} is not installed: pip install -r requirements.txt (it pins it)")


def test_the_apps_are_read_from_the_settings():
    assert {"games", "accounts", "shop", "moderation", "social", "yuanzi_site"} <= set(APPS)


def test_every_app_passes_mypy_strict():
    """``mypy`` (strict) over every app: no errors."""
    _need("mypy")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", *APPS],
        cwd=ROOT, capture_output=True, text=True, timeout=900, check=False,
    )
    assert proc.returncode == 0, f"mypy {' '.join(APPS)}:\n{proc.stdout}{proc.stderr}"
    assert "Success: no issues found" in proc.stdout


def test_ruff_passes():
    """``ruff check .`` with the rule set of pyproject.toml."""
    _need("ruff")
    proc = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
