"""``python manage.py runsite``: the whole site in one process (``make run``).

Example::

    python manage.py runsite [--host 127.0.0.1] [--port 8000] [--no-ticker]

Applies migrations, prints the address, starts the in-process
:class:`games.adapters.scheduler.Ticker` (bots move and turn clocks run out; DESIGN.md
"Time, bots, departures": eager Celery ignores countdowns and Daphne has no
lifespan hook, so the ticker is started here and nowhere else — never under
tests or migrations), then serves HTTP and websockets with Daphne until
interrupted. ``--no-ticker`` leaves the clock to Celery beat (production runs
Daphne directly, see ``docs/deploy.md``). With ``GAMES_REVIEW_RUNNER=process``
(the embedded default) it also starts the 复盘 worker, ``manage.py
reviewworker``, as a child process at nice 19 (:class:`ReviewWorker`), so a
review never runs on Daphne's event loop or the ticker; ``--no-reviews`` does not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from games.adapters.scheduler import Ticker

ASGI_APP = "yuanzi_site.asgi:application"


#: seconds a websocket handshake may wait for the application (Daphne's default,
#: 5, dropped connections that queued behind a storm of others)
CONNECT_TIMEOUT = 30
#: the listen backlog: Twisted's default, 50, refused connections in a reconnect
#: storm (every client of a restarted process at once); the kernel caps it at
#: net.core.somaxconn (4096 on current Linux)
BACKLOG = 1024


def endpoint(host: str, port: int, backlog: int = BACKLOG) -> str:
    """Daphne's ``-e`` endpoint string for ``host:port`` with ``backlog``."""
    interface = host.replace(":", r"\:")  # Twisted endpoint syntax escapes colons
    return f"tcp:port={port}:interface={interface}:backlog={backlog}"


def serve(host: str, port: int, verbosity: int = 1, ticker: Ticker | None = None) -> None:
    """Run Daphne in this process on ``host:port`` until it is stopped (blocks);
    ``ticker`` starts on Daphne's event loop once it runs."""
    # here, not at the top: daphne.server installs Twisted's asyncio reactor
    # on import, which the command's other uses (--help, tests) need not do
    from daphne.cli import CommandLineInterface
    from daphne.server import twisted_loop
    from twisted.internet import reactor

    if ticker is not None:
        reactor.callWhenRunning(ticker.start, twisted_loop)
    CommandLineInterface().run(
        ["-e", endpoint(host, port), "--websocket_connect_timeout", str(CONNECT_TIMEOUT),
         "-v", str(min(max(verbosity, 0), 3)), ASGI_APP]
    )


class ReviewWorker:
    """``manage.py reviewworker --parent <this pid>`` as a child process (it
    lowers its own priority and exits when this process is gone)."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the child (same interpreter, settings and environment)."""
        manage = str(settings.BASE_DIR / "manage.py")
        self.proc = subprocess.Popen([sys.executable, manage, "reviewworker",
                                      "--parent", str(os.getpid())])

    def stop(self) -> None:
        """Stop the child (terminate, then kill after 5 s)."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)


class Command(BaseCommand):
    help = "Migrate, start the turn ticker and serve the site with Daphne (make run)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default="127.0.0.1", help="address to bind (127.0.0.1)")
        parser.add_argument("--port", type=int, default=8000, help="port to bind (8000)")
        parser.add_argument(
            "--no-ticker", action="store_true",
            help="do not start the in-process turn ticker (Celery beat sweeps instead)",
        )
        parser.add_argument(
            "--no-reviews", action="store_true",
            help="do not start the review worker (GAMES_REVIEW_RUNNER=process)",
        )

    def handle(self, *args: Any, host: str, port: int, no_ticker: bool,
               no_reviews: bool = False, **options: Any) -> None:
        if not 0 < port < 65536:
            raise CommandError(f"--port {port} is not a TCP port")
        verbosity = options.get("verbosity", 1)
        call_command("migrate", interactive=False, verbosity=max(verbosity - 1, 0))
        shown = f"[{host}]" if ":" in host else host
        self.stdout.write(f"原子 online: http://{shown}:{port}/")
        ticker = None
        if not no_ticker:
            ticker = Ticker()
            self.stdout.write(f"turn ticker: every {ticker.interval} s "
                              f"(GAMES_SCHEDULER={settings.GAMES_SCHEDULER})")
        worker = None
        if settings.GAMES_REVIEW_RUNNER == "process" and not no_reviews:
            worker = ReviewWorker()
            worker.start()
            self.stdout.write("review worker: manage.py reviewworker (nice 19)")
        self.stdout.flush()
        try:
            serve(host, port, verbosity, ticker)
        finally:
            if ticker is not None:
                ticker.stop()
            if worker is not None:
                worker.stop()
