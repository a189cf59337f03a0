"""Real Celery worker and beat processes for the production-stack tests.

Loaded from ``tests/conftest.py`` (``pytest_plugins``). The processes run from
this interpreter (``sys.executable -m celery``), so ``make test`` / ``.ci/run``
need nothing more than the venv. They reach the same PostgreSQL test database
as the test (``test_<NAME>``, built from ``connection.settings_dict`` after
pytest-django has created it) and the same Redis broker, so tests using them
need ``@pytest.mark.django_db(transaction=True)`` (NOTES.md: another process
cannot see data inside a per-test transaction).

Without ``DATABASE_URL`` (PostgreSQL) and ``REDIS_URL`` these fixtures skip with
the reason; ``CI=true`` turns that skip into a failure (``tests/conftest.py``).

A failing test gets the logs of every process still running (and of those
stopped during the test) appended to its report.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: seconds a human has per turn inside the worker (and in the tests that use it)
WORKER_TURN_SECONDS = 2
#: a bot's pause inside the worker
WORKER_BOT_DELAY_SECONDS = 0.2

_live: list[CeleryProcess] = []  # every process started and not yet reaped by a report


def production_stack_reason() -> str | None:
    """Why the worker tests cannot run here, or ``None`` if they can."""
    missing = [v for v in ("DATABASE_URL", "REDIS_URL") if not os.environ.get(v)]
    if missing:
        return (
            f"needs {' and '.join(missing)}: a real Celery worker must share the test "
            "database (PostgreSQL) and the Redis broker with the test; .ci/run sets both"
        )
    from django.db import connection

    if connection.vendor != "postgresql":
        return "needs DATABASE_URL to be PostgreSQL (the worker and the test share its test DB)"
    return None


def test_database_url() -> str:
    """``DATABASE_URL`` of pytest-django's test database (e.g. ``.../test_test``)."""
    from django.db import connection

    s = connection.settings_dict
    auth = quote(s.get("USER") or "", safe="")
    if s.get("PASSWORD"):
        auth += ":" + quote(s["PASSWORD"], safe="")
    host = s.get("HOST") or "localhost"
    port = f":{s['PORT']}" if s.get("PORT") else ""
    return f"postgres://{auth}@{host}{port}/{s['NAME']}"


class CeleryProcess:
    """One ``celery -A yuanzi_site <command>`` subprocess with its log file."""

    def __init__(self, command: str, *args: str, ready: str, env: dict[str, str]) -> None:
        self.command, self.args, self.ready_text, self.env = command, args, ready, env
        self.proc: subprocess.Popen | None = None
        self.log_path: Path | None = None
        self.logs: list[str] = []  # the logs of earlier runs of this process

    def start(self, timeout: float = 30.0) -> CeleryProcess:
        """Start the process and wait until its log shows it is ready."""
        assert self.proc is None, "already running"
        fd, name = tempfile.mkstemp(prefix=f"yuanzi-celery-{self.command}-", suffix=".log")
        self.log_path = Path(name)
        with os.fdopen(fd, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "yuanzi_site", self.command, *self.args],
                cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        if self not in _live:
            _live.append(self)
        deadline = time.monotonic() + timeout
        while self.ready_text not in self.log():
            if self.proc.poll() is not None:
                raise RuntimeError(f"celery {self.command} exited {self.proc.returncode}:\n"
                                   + self.log())
            if time.monotonic() > deadline:
                raise RuntimeError(f"celery {self.command} not ready in {timeout}s:\n"
                                   + self.log())
            time.sleep(0.1)
        return self

    def log(self) -> str:
        """This run's output so far."""
        if self.log_path is None or not self.log_path.exists():
            return ""
        return self.log_path.read_text(errors="replace")

    def all_logs(self) -> str:
        """The output of every run of this process, oldest first."""
        return "\n".join([*self.logs, self.log()])

    def stop(self, sig: int = signal.SIGTERM) -> None:
        """End the process (SIGTERM: warm shutdown; SIGKILL: a crash) and wait for it."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, sig)  # its own session: the pool's children too
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(timeout=15)
        self.proc = None
        self.logs.append(f"--- celery {self.command} run ---\n{self.log()}")
        if self.log_path is not None:
            self.log_path.unlink(missing_ok=True)
            self.log_path = None

    def kill(self) -> None:
        """SIGKILL: the process dies without acknowledging or finishing anything."""
        self.stop(signal.SIGKILL)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None


def _env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=test_database_url(),
        GAMES_TURN_SECONDS=str(WORKER_TURN_SECONDS),
        GAMES_BOT_DELAY_SECONDS=str(WORKER_BOT_DELAY_SECONDS),
        GAMES_SCHEDULER="celery",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def forget_queued_tasks() -> None:
    """Drop every task waiting in the broker (queued, and reserved by a dead worker).

    Only while no worker runs: tasks left by earlier tests or runs must not act
    in this one.
    """
    import redis

    from yuanzi_site.celery import app

    app.control.purge()
    # kombu's Redis transport keeps a killed worker's reserved messages here and
    # would redeliver them an hour later
    redis.Redis.from_url(os.environ["REDIS_URL"]).delete(
        "unacked", "unacked_index", "unacked_mutex"
    )


def new_worker() -> CeleryProcess:
    """A worker (not started): 4 threads, so queued tasks can race each other."""
    name = f"yuanzi-test-{os.getpid()}-{time.monotonic_ns()}@%h"
    return CeleryProcess(
        "worker", "-l", "info", "-P", "threads", "-c", "4", "-n", name,
        "--without-gossip", "--without-mingle", "--without-heartbeat",
        ready=" ready.", env=_env(),
    )


def new_beat(schedule_dir: Path) -> CeleryProcess:
    """Beat (not started), its schedule file in ``schedule_dir``."""
    return CeleryProcess(
        "beat", "-l", "info", "-s", str(schedule_dir / "celerybeat-schedule"),
        "--pidfile", str(schedule_dir / "celerybeat.pid"), ready="beat: Starting", env=_env(),
    )


@pytest.fixture(scope="session")
def _production_stack(django_db_setup, django_db_blocker) -> None:
    with django_db_blocker.unblock():
        reason = production_stack_reason()
    if reason:
        pytest.skip(reason)


@pytest.fixture(scope="module")
def _module_worker(_production_stack, django_db_blocker):
    with django_db_blocker.unblock():
        forget_queued_tasks()
        worker = new_worker()
    worker.start()
    yield worker
    worker.stop()
    _live.remove(worker)


@pytest.fixture
def celery_worker(_module_worker, transactional_db, settings):
    """A running Celery worker on the test database and broker (one per module;
    restarted if a test stopped it). Sets this process's turn clock to the
    worker's (``WORKER_TURN_SECONDS``) and its scheduler to Celery."""
    settings.GAMES_TURN_SECONDS = WORKER_TURN_SECONDS
    settings.GAMES_BOT_DELAY_SECONDS = WORKER_BOT_DELAY_SECONDS
    settings.GAMES_SCHEDULER = "celery"
    if not _module_worker.running:
        _module_worker.start()
    return _module_worker
    # a test may have left it stopped (restart test): the next one restarts it


@pytest.fixture
def celery_beat(_production_stack, transactional_db, tmp_path):
    """A running Celery beat (the every-second sweep, the leaderboard every minute)."""
    beat = new_beat(tmp_path)
    beat.start()
    yield beat
    beat.stop()
    _live.remove(beat)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and _live:
        for p in _live:
            report.sections.append((f"celery {p.command} log", p.all_logs()[-20000:]))
