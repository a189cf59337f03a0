#!/usr/bin/env bash
# Nightly backup of the site's PostgreSQL database (docs/deploy.md "Backups"):
# a custom-format pg_dump (compressed, restorable table by table) named by the
# UTC time, then every dump older than KEEP_DAYS (default 14) is removed.
#   DATABASE_URL=postgres://… BACKUP_DIR=/var/backups/yuanzi deploy/backup.sh
# Exits non-zero if the dump fails; a partial file is never left behind.
set -euo pipefail
: "${DATABASE_URL:?DATABASE_URL names the database to back up}"
dir="${BACKUP_DIR:-/var/backups/yuanzi}"
keep="${KEEP_DAYS:-14}"
mkdir -p "$dir"
name="$dir/yuanzi-$(date -u +%Y%m%dT%H%M%SZ).dump"
pg_dump --format=custom --no-owner --dbname="$DATABASE_URL" --file="$name.partial"
mv "$name.partial" "$name"
find "$dir" -name 'yuanzi-*.dump' -mtime +"$keep" -delete
echo "$name"
