"""Who calls ``play.run_due`` when a turn falls due (DESIGN.md "Time, bots").

Production (``GAMES_SCHEDULER = "celery"``): a Celery task with an ETA at the
turn's due time when that is at most ``GAMES_COUNTDOWN_HORIZON_SECONDS`` away
(bots, 托管, short clocks), plus the beat sweep every second, which also acts
on the later deadlines and on lost tasks and restarts. A human's 30 s turn gets
no task of its own: one ETA task per move, held by the worker for the whole
turn and run as a no-op once the move was made, was 40 % of the production
stack's CPU under load; the sweep acts on it at most a second late.
Embedded default (``"ticker"``): an in-process task on Daphne's event loop
sweeping a few times a second, started by ``manage.py runsite`` (never under
tests or migrations), since eager Celery ignores countdowns.

It also sends each queued review (复盘, ``events.ReviewQueued``) to the
``review`` queue's own worker when ``GAMES_REVIEW_RUNNER = "celery"``.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from datetime import datetime
from importlib import import_module

from channels.db import database_sync_to_async
from django.conf import settings
from django.utils import timezone

from games import events, tasks
from yuanzi_site.jobs import PERIODIC_JOBS, SWEEP_JOB

log = logging.getLogger(__name__)


def schedule_due(game_id: int, seq: int, due_at: datetime) -> None:
    """Arrange for ``run_due(game_id, seq)`` at ``due_at`` (an aware datetime):
    a countdown task if it is within the horizon, else the beat sweep's."""
    if (settings.GAMES_SCHEDULER == "celery" and (due_at - timezone.now()).total_seconds()
            <= settings.GAMES_COUNTDOWN_HORIZON_SECONDS):
        tasks.run_due.apply_async((game_id, seq), eta=due_at)


def game_changed(event: events.GameChanged) -> None:
    """A running game's next turn gets its countdown."""
    if event.due_at is not None and event.state["status"] == "playing":
        schedule_due(event.game_id, event.state["seq"], event.due_at)


def review_queued(event: events.ReviewQueued) -> None:
    """复盘: with ``GAMES_REVIEW_RUNNER=celery`` the review goes to the ``review``
    queue (``games.tasks.run_review``), whose own worker makes it; the embedded
    worker (``manage.py reviewworker``) polls the table instead."""
    if settings.GAMES_REVIEW_RUNNER == "celery":
        from games import tasks

        tasks.run_review.delay(event.review_id)


def subscribe() -> None:
    """Subscribe the scheduler to the write side's events (``GamesConfig.ready``)."""
    events.subscribe(events.GameChanged, game_changed)
    events.subscribe(events.ReviewQueued, review_queued)


class Ticker:
    """The embedded default's beat, run as a task on Daphne's own event loop.

    Every ``interval`` seconds it runs whichever jobs of
    ``yuanzi_site.jobs.PERIODIC_JOBS`` (the table beat's schedule is built
    from) are due — the due-turn sweep on every tick — each through
    ``database_sync_to_async`` in a thread of its own (with its own database
    connection), so the broadcasts it makes after commit land on this loop,
    the one the in-memory channel layer's consumers wait on. (A plain thread
    would wake those consumers from a foreign loop and could leave a page
    without updates.) Not Channels' database thread: there every sweep and job
    queued behind the consumers' calls and the moves behind them, and after a
    connect storm a sweep waited longer than ``GAMES_OUTAGE_SECONDS``, so the
    site took itself for down and resumed every clock (docs/bench.md "The tail
    at 50 tables"). SQLite orders the two threads' writes.

    :param intervals: per job name, an interval in seconds replacing the table's.
    """

    def __init__(self, interval: float = 0.2, intervals: dict[str, float] | None = None) -> None:
        self.interval = interval
        self.task: asyncio.Task[None] | None = None
        # (name, the job: a Celery task, called directly, or a function; seconds)
        self.jobs: list[tuple[str, Callable[[], object], float]] = []
        for name, dotted, every in PERIODIC_JOBS:
            module, _, attr = dotted.rpartition(".")
            every = (intervals or {}).get(name, 0.0 if name == SWEEP_JOB else every)
            self.jobs.append((name, getattr(import_module(module), attr), every))
        self._next = {name: 0.0 for name, _, _ in self.jobs}

    def tick(self) -> None:
        """Run the jobs that are due (sync; called in the ticker's own thread).

        A job that raises is logged and tried again at its next period, as
        Celery beat would: the jobs after it still run (a stuck arena once
        kept the daily challenge's close from running, and logged 5 a second).
        """
        now = time.monotonic()
        for name, task, every in self.jobs:
            if now >= self._next[name]:
                self._next[name] = now + every
                try:
                    task()  # a Celery task called directly runs here, in this thread
                except Exception:
                    log.exception("ticker job %s failed", name)

    async def run(self) -> None:
        """Tick forever (until cancelled)."""
        from concurrent.futures import ThreadPoolExecutor

        executor = ThreadPoolExecutor(1, thread_name_prefix="ticker")
        tick = database_sync_to_async(self.tick, thread_sensitive=False, executor=executor)
        try:
            while True:
                await asyncio.sleep(self.interval)
                try:
                    await tick()
                except Exception:  # keep ticking: one bad game must not stop the clock
                    log.exception("ticker sweep failed")
        finally:
            # wait for a job still running in the thread (off the loop), so a
            # stopped ticker touches the database no more
            await asyncio.shield(asyncio.get_running_loop().run_in_executor(
                None, executor.shutdown, True))

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Start ticking on ``loop`` (call from that loop, e.g. when the reactor runs)."""
        self.task = loop.create_task(self.run())

    def stop(self) -> None:
        """Stop ticking (await :attr:`task` to know its last job has finished)."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
