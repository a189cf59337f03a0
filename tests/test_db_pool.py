"""PostgreSQL connections (docs/deploy.md "PostgreSQL connections"): with
``DATABASE_POOL_SIZE`` Django's native pool replaces persistent connections
(Django refuses both) and threads borrowing at once share it; with
``DATABASE_PGBOUNCER`` no query is prepared and no connection kept. Each is
started for real in a child process against the test database."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.servers import test_database_url

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(not os.environ.get("DATABASE_URL"),
                       reason="needs DATABASE_URL (PostgreSQL): the pool is psycopg's"),
    pytest.mark.django_db(transaction=True),
]

CHILD = """
import threading
from concurrent.futures import ThreadPoolExecutor
import django
django.setup()
from django.conf import settings
from django.db import connection
from accounts.models import Profile

db = settings.DATABASES["default"]
print("settings", db["CONN_MAX_AGE"], db.get("OPTIONS", {}).get("pool"),
      db.get("OPTIONS", {}).get("prepare_threshold", "unset"),
      db.get("DISABLE_SERVER_SIDE_CURSORS", False))

def work(i):
    from django.db import connection
    for _ in range(10):
        Profile.objects.count()
    connection.close()  # back to the pool
    return i

with ThreadPoolExecutor(6) as ex:
    print("done", sum(ex.map(work, range(12))))
print("pool", type(connection.pool).__name__ if getattr(connection, "pool", None) else None)
"""


def _child(**env: str) -> str:
    run = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "yuanzi_site.settings",
             "DATABASE_URL": test_database_url(), **env}, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    return run.stdout


def test_the_pool_replaces_persistent_connections_and_threads_share_it():
    out = _child(DATABASE_POOL_SIZE="3", DATABASE_CONN_MAX_AGE="60")
    assert "settings 0 {'min_size': 1, 'max_size': 3, 'timeout': 20} unset False" in out
    assert "done 66" in out
    assert "pool ConnectionPool" in out


def test_pgbouncer_mode_prepares_nothing_and_keeps_no_connection():
    out = _child(DATABASE_PGBOUNCER="1")
    assert "settings 0 None None True" in out
    assert "done 66" in out
    assert "pool None" in out
