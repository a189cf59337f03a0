"""``python manage.py reviewworker``: the embedded site's 复盘 worker.

Example::

    python manage.py reviewworker [--poll 1.0] [--parent PID] [--once]

One process at the lowest CPU priority (``os.nice(19)``) that polls the
database for queued reviews and makes them one at a time
(:func:`games.reviews.run_next`), so a review never runs on Daphne's event
loop, the turn ticker or a request. ``manage.py runsite`` starts it as its
child when ``GAMES_REVIEW_RUNNER=process`` (the embedded default) with
``--parent``: it exits when that process is gone. At its start it queues again
the rows left ``running`` (it is the only worker, so one it was killed in).
``--once`` makes what is queued, then exits. Production uses the ``review``
Celery queue's own worker instead (docs/deploy.md).
"""

from __future__ import annotations

import contextlib
import os
import time
from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Make queued game reviews (复盘) one at a time at nice 19 (runsite starts it)."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("--poll", type=float, default=1.0,
                            help="seconds between looks at an empty queue (1.0)")
        parser.add_argument("--parent", type=int, default=None,
                            help="exit when this process (runsite) is no longer the parent")
        parser.add_argument("--once", action="store_true",
                            help="make the queued reviews, then exit")

    def handle(self, *args: Any, poll: float, parent: int | None, once: bool,
               **options: Any) -> None:
        from games import reviews

        with contextlib.suppress(OSError):
            os.nice(19)  # reviews take whatever CPU the site leaves
        reviews.requeue_running()
        while parent is None or os.getppid() == parent:
            if reviews.run_next():
                continue
            if once:
                return
            time.sleep(poll)
