"""Real site processes for tests and scripts that talk to the site over TCP.

* :func:`free_port` — a free TCP port on 127.0.0.1;
* :func:`test_database_url` — the PostgreSQL test database pytest-django made
  (``test_<NAME>``) as a URL a child process can use (NOTES.md: a child only
  sees committed data, so such tests are ``transaction=True``);
* :class:`Site` — ``python manage.py runsite`` (Daphne + the in-process turn
  ticker, what ``make run`` serves) as a child on a free port, its output in a
  temporary file.

Nothing here imports Django at module level: ``docs/screenshot.py`` uses
:class:`Site` outside pytest.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_database_url() -> str:
    """The test database (``test_<NAME>``) as a URL the children can use."""
    from django.db import connection

    d = connection.settings_dict
    assert connection.vendor == "postgresql", connection.vendor
    auth = quote(d["USER"] or "", safe="")
    if d.get("PASSWORD"):
        auth += ":" + quote(d["PASSWORD"], safe="")
    return f"postgres://{auth}@{d['HOST'] or '127.0.0.1'}:{d['PORT'] or 5432}/{d['NAME']}"


test_database_url.__test__ = False  # not a test, whatever its name


class ServerProcess:
    """A server child on a free port, its output in a temporary file.

    Subclasses build the command and environment and call :meth:`_spawn`.
    """

    name = "server"
    port: int

    def _spawn(self, args: list[str], env: dict[str, str]) -> None:
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 -- closed in stop()
            prefix=f"{self.name}-{self.port}-", suffix=".log", delete=False
        )
        self.proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT)

    def output(self, tail: int = 6000) -> str:
        return Path(self.log.name).read_text(errors="replace")[-tail:]

    def wait_listening(self, timeout: float = 90):
        """Wait until the port accepts connections; returns ``self``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(
                    f"{self.name} exited {self.proc.returncode}:\n{self.output()}"
                )
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"{self.name} did not listen on {self.port}:\n{self.output()}")

    def stop(self, show_output: bool = True) -> None:
        """Terminate (then kill) the child; print its last output."""
        if show_output:
            print(f"--- {self.name} on port {self.port}, last output:\n{self.output()}")
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)  # Daphne's graceful stop can wait on open sockets
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.log.close()
        os.unlink(self.log.name)


class Site(ServerProcess):
    """``manage.py runsite`` on a free port: the whole site as a user meets it.

    ``database_url``: a PostgreSQL URL (then ``redis_url`` gives the channel
    layer and cache), or ``None`` for a fresh SQLite file of its own, which
    runsite migrates and :meth:`stop` deletes. The ticker always moves the bots
    (``GAMES_SCHEDULER=ticker``: no Celery worker needed); bots wait
    ``bot_delay`` seconds, humans have ``turn_seconds`` a turn. ``env`` adds
    or overrides variables.
    """

    name = "runsite"

    def __init__(self, *, database_url: str | None = None, redis_url: str | None = None,
                 bot_delay: float = 0.05, turn_seconds: int = 600,
                 env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        child = {k: v for k, v in os.environ.items()
                 if k not in ("DATABASE_URL", "REDIS_URL", "SQLITE_PATH", "DEBUG",
                              "YUANZI_PRODUCTION")}
        self._sqlite_dir = None
        if database_url:
            child["DATABASE_URL"] = database_url
        else:
            self._sqlite_dir = tempfile.TemporaryDirectory(prefix="yuanzi-site-")
            child["SQLITE_PATH"] = str(Path(self._sqlite_dir.name) / "site.sqlite3")
        if redis_url:
            child["REDIS_URL"] = redis_url
        child.update({
            "DJANGO_SETTINGS_MODULE": "yuanzi_site.settings",
            "GAMES_SCHEDULER": "ticker",
            "GAMES_BOT_DELAY_SECONDS": str(bot_delay),
            "GAMES_TURN_SECONDS": str(turn_seconds),
            "GAMES_ACTION_RATE": "100000",
            "GAMES_TABLE_CREATE_RATE": "100000",
            "SIGNUP_RATE_LIMIT": "100000/m/ip",
            "PYTHONUNBUFFERED": "1",
            **(env or {}),
        })
        self.env = child
        self._spawn([sys.executable, "manage.py", "runsite", "--port", str(self.port)], child)

    def manage(self, *args: str) -> str:
        """Run ``manage.py <args>`` on the site's database and settings (e.g.
        ``"shell", "-c", code`` to change something server-side); returns its
        output, raising if it fails."""
        run = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=self.env,
                             capture_output=True, text=True, timeout=60)
        assert run.returncode == 0, run.stdout + run.stderr
        return run.stdout

    def url(self, path: str = "/") -> str:
        return self.base_url + path

    def stop(self, show_output: bool = True) -> None:
        super().stop(show_output)
        if self._sqlite_dir is not None:
            self._sqlite_dir.cleanup()


class RedisServer(ServerProcess):
    """A ``redis-server`` of the test's own on a free port (no persistence), so
    a test may kill and restart Redis without touching the shared one."""

    name = "redis"

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._dir = tempfile.TemporaryDirectory(prefix="yuanzi-redis-")
        self.start()

    def start(self) -> RedisServer:
        """(Re)start the server on the same port; returns once it listens."""
        self._spawn(["redis-server", "--port", str(self.port), "--bind", "127.0.0.1",
                     "--save", "", "--appendonly", "no", "--dir", self._dir.name],
                    dict(os.environ))
        return self.wait_listening()

    def kill(self) -> None:
        """Kill it at once (SIGKILL: no goodbye to its clients)."""
        self.proc.kill()
        self.proc.wait(10)
        self.log.close()
        os.unlink(self.log.name)

    def stop(self, show_output: bool = False) -> None:
        if self.proc.poll() is None:
            super().stop(show_output)
        self._dir.cleanup()
