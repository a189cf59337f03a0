# 原子 online. `make run` serves the site; `make test` runs the tests.
# Nothing here needs gettext: the compiled .mo files are committed
# (`make messages` regenerates them and does need gettext).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.requirements-installed
PYTEST_ARGS ?=
HOST ?= 127.0.0.1
PORT ?= 8000

.PHONY: venv test run prod lint messages screenshot

venv: $(STAMP)

# Re-installs only when requirements.txt is newer than the stamp.
$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

test: venv
	$(PY) -m pytest tests/ $(PYTEST_ARGS)

# Migrates, starts the in-process turn ticker and serves with Daphne
# (games/management/commands/runsite.py). `make run PORT=8001` for another port.
run: venv
	$(PY) manage.py runsite --host $(HOST) --port $(PORT)

# The production stack on this machine (docs/deploy.md): two Daphnes behind
# nginx on https://localhost:8443, a Celery worker and beat, PostgreSQL and
# Redis (both running; DATABASE_URL / REDIS_URL override the defaults).
# deploy/prod.sh migrates, collects static files and starts deploy/Procfile.
prod: venv
	deploy/prod.sh

# Screenshots of the table mid-game for the README (docs/img/table-midgame*.png):
# starts the site on its own SQLite file, signs a user up, plays a few turns
# against three bots in chromium; then the shop, the inventory and a saved
# replay (docs/img/shop.png, inventory.png, replay.png). Needs /usr/bin/chromium
# and fonts-noto-cjk.
screenshot: venv
	$(PY) docs/screenshot.py

# ruff over the tree, then the engine's types (python-chess style: mypy --strict).
lint: venv
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy games accounts shop moderation social contests yuanzi_site

messages: venv
	$(PY) manage.py makemessages -l zh_Hans --ignore=.venv --ignore=staticfiles
	$(PY) manage.py compilemessages -l zh_Hans --ignore=.venv
