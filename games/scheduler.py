"""Who calls ``services.run_due`` when a turn falls due (DESIGN.md "Time, bots").

Production (``GAMES_SCHEDULER = "celery"``): a Celery task with an ETA at the
turn's due time, plus the beat sweep every second for lost tasks and restarts.
Embedded default (``"ticker"``): an in-process thread sweeping a few times a
second, started by ``manage.py runsite`` (never under tests or migrations),
since eager Celery ignores countdowns.
"""

from __future__ import annotations

import logging
import threading
import time

from django.conf import settings
from django.db import close_old_connections

log = logging.getLogger(__name__)


def schedule_due(game_id: int, seq: int, due_at) -> None:
    """Arrange for ``run_due(game_id, seq)`` at ``due_at`` (a datetime)."""
    if settings.GAMES_SCHEDULER == "celery":
        from games import tasks

        tasks.run_due.apply_async((game_id, seq), eta=due_at)


class Ticker(threading.Thread):
    """The embedded default's beat: a daemon thread calling ``services.sweep_due``
    every ``interval`` seconds, ``expire_presence`` every 10 s and recomputing
    the leaderboard every ``leaderboard_seconds``."""

    def __init__(self, interval: float = 0.2, leaderboard_seconds: float = 60.0) -> None:
        super().__init__(name="yuanzi-ticker", daemon=True)
        self.interval = interval
        self.leaderboard_seconds = leaderboard_seconds
        self.stopped = threading.Event()

    def run(self) -> None:
        from accounts import leaderboard
        from games import services

        next_board = next_presence = 0.0
        while not self.stopped.wait(self.interval):
            try:
                services.sweep_due()
                now = time.monotonic()
                if now >= next_presence:
                    services.expire_presence()
                    next_presence = now + 10
                if now >= next_board:
                    leaderboard.recompute()
                    next_board = now + self.leaderboard_seconds
            except Exception:  # keep ticking: one bad game must not stop the clock
                log.exception("ticker sweep failed")
            finally:
                close_old_connections()

    def stop(self) -> None:
        """Ask the thread to end after its current sweep."""
        self.stopped.set()
