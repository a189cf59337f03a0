#!/usr/bin/env bash
# `make prod`: the production stack of docs/deploy.md on this machine — two
# Daphnes behind nginx (https://localhost:8443, a self-signed certificate), a
# Celery worker and beat, on PostgreSQL and Redis (both must be running).
# Every setting below may be given in the environment instead.
set -euo pipefail
cd "$(dirname "$0")/.."

export PROD_DIR="${PROD_DIR:-$PWD/.prod}"
export HTTPS_PORT="${HTTPS_PORT:-8443}" HTTP_PORT="${HTTP_PORT:-8080}"
export WEB1_PORT="${WEB1_PORT:-8001}" WEB2_PORT="${WEB2_PORT:-8002}"
export DJANGO_SETTINGS_MODULE=yuanzi_site.settings
export DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/yuanzi}"
# Django's pool (docs/deploy.md "PostgreSQL connections"): GAMES_DB_THREADS (8) + 2
export DATABASE_POOL_SIZE="${DATABASE_POOL_SIZE:-10}"
# Redis: REDIS_URL, or REDIS_SENTINELS + REDIS_SENTINEL_MASTER (never both)
if [ -z "${REDIS_SENTINELS:-}" ]; then
  export REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379/0}"
fi
export YUANZI_PRODUCTION="${YUANZI_PRODUCTION:-1}"
export ALLOWED_HOSTS="${ALLOWED_HOSTS:-localhost,127.0.0.1}"
export SITE_ORIGINS="${SITE_ORIGINS:-https://localhost:$HTTPS_PORT}"
export CSRF_TRUSTED_ORIGINS="${CSRF_TRUSTED_ORIGINS:-https://localhost:$HTTPS_PORT}"
export TRUSTED_PROXIES="${TRUSTED_PROXIES:-127.0.0.1}" USE_X_FORWARDED_PROTO=1
export PYTHONUNBUFFERED=1

mkdir -p "$PROD_DIR"
[ -s "$PROD_DIR/secret" ] || .venv/bin/python -c "import secrets; print(secrets.token_urlsafe(50))" > "$PROD_DIR/secret"
export SECRET_KEY="${SECRET_KEY:-$(cat "$PROD_DIR/secret")}"

# the database named by DATABASE_URL, created if missing
.venv/bin/python - <<'PY'
import os, psycopg
from urllib.parse import urlsplit
url = urlsplit(os.environ["DATABASE_URL"])
name = url.path.lstrip("/")
with psycopg.connect(url._replace(path="/postgres").geturl(), autocommit=True) as db:
    if not db.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
        db.execute(f'CREATE DATABASE "{name}"')
PY
.venv/bin/python manage.py migrate --noinput -v 0
.venv/bin/python manage.py collectstatic --noinput -v 0
echo "原子 online: https://localhost:$HTTPS_PORT/ (self-signed certificate), Ctrl-C stops every process"
exec .venv/bin/honcho -f deploy/Procfile -d . start
