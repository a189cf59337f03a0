# 原子 online. `make run` serves the site; `make test` runs the tests.
# Nothing here needs gettext: the compiled .mo files are committed
# (`make messages` regenerates them and does need gettext).

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.requirements-installed
PYTEST_ARGS ?=

.PHONY: venv test run lint messages

venv: $(STAMP)

# Re-installs only when requirements.txt is newer than the stamp.
$(STAMP): requirements.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements.txt
	touch $(STAMP)

test: venv
	$(PY) -m pytest tests/ $(PYTEST_ARGS)

run: venv
	@echo "原子 online: http://127.0.0.1:8000/"
	$(PY) manage.py migrate --noinput
	$(VENV)/bin/daphne -b 127.0.0.1 -p 8000 yuanzi_site.asgi:application

lint: venv
	$(VENV)/bin/ruff check .

messages: venv
	$(PY) manage.py makemessages -l zh_Hans --ignore=.venv --ignore=staticfiles
	$(PY) manage.py compilemessages -l zh_Hans --ignore=.venv
