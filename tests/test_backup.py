"""Backups and the restore drill (docs/deploy.md "Backups"): ``deploy/backup.sh``
dumps the database, ``deploy/restore.sh`` restores the dump into an empty
database and proves the coins ledger there (``check_ledger``). Run for real on
PostgreSQL: players with coin movements and a finished game go in, the same
rows come out. Skipped without ``DATABASE_URL`` (CI sets it and never skips)."""

from __future__ import annotations

import os
import subprocess
import uuid
from pathlib import Path

import psycopg
import pytest
from django.db import connection, transaction

from shop import ledger
from tests.helpers import make_players
from tests.servers import test_database_url

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.skipif(not os.environ.get("DATABASE_URL"),
                       reason="needs DATABASE_URL (PostgreSQL): pg_dump and pg_restore"),
    pytest.mark.django_db(transaction=True),
]

COUNTED = ("auth_user", "accounts_profile", "shop_coinentry", "games_table")


def _counts(url: str) -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {t: conn.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in COUNTED}


def test_a_backup_restores_into_an_empty_database_with_the_ledger_whole(tmp_path):
    from games import tables

    players = make_players(3, "backup")
    with transaction.atomic():
        ledger.transfer([(players[0], -40), (players[1], 40)], ledger.Reason.ITEM,
                        item_code="timer")
    tables.create_table(players[2], "备份桌")
    source = test_database_url()
    env = {**os.environ, "DATABASE_URL": source, "BACKUP_DIR": str(tmp_path)}
    dumped = subprocess.run([str(ROOT / "deploy" / "backup.sh")], env=env, cwd=ROOT,
                            capture_output=True, text=True, timeout=300, check=False)
    assert dumped.returncode == 0, dumped.stderr
    dump = Path(dumped.stdout.strip())
    assert dump.parent == tmp_path
    assert dump.stat().st_size > 0
    assert not list(tmp_path.glob("*.partial"))

    name = f"restore_{uuid.uuid4().hex[:10]}"
    admin_url = source.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    target = source.rsplit("/", 1)[0] + f"/{name}"
    try:
        restored = subprocess.run(
            [str(ROOT / "deploy" / "restore.sh"), str(dump)],
            env={**os.environ, "DATABASE_URL": target, "PY": str(ROOT / ".venv/bin/python")},
            cwd=ROOT, capture_output=True, text=True, timeout=600, check=False)
        assert restored.returncode == 0, restored.stdout + restored.stderr
        assert _counts(target) == _counts(source)
        assert _counts(target)["shop_coinentry"] >= 5  # the grants and the transfer
    finally:
        connection.close()
        with psycopg.connect(admin_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
