#!/usr/bin/env bash
# Restore a backup made by deploy/backup.sh into an empty database, then prove
# the coins ledger whole (docs/deploy.md "Backups": the restore drill).
#   DATABASE_URL=postgres://…/yuanzi_restore deploy/restore.sh /var/backups/yuanzi/yuanzi-….dump
# The target database must exist and be empty (createdb yuanzi_restore).
set -euo pipefail
: "${DATABASE_URL:?DATABASE_URL names the (empty) database to restore into}"
dump="${1:?the .dump file to restore}"
cd "$(dirname "$0")/.."
pg_restore --no-owner --exit-on-error --dbname="$DATABASE_URL" "$dump"
PY="${PY:-.venv/bin/python}"
"$PY" manage.py migrate --check >/dev/null   # the dump's schema is this code's
"$PY" manage.py check_ledger
