"""Celery task of the daily challenge: the periodic job of
``yuanzi_site.jobs.PERIODIC_JOBS`` (beat, and the embedded ticker) that makes
today's day and closes the days due (``contests.challenge_close.tick``).
Imported by ``ContestsConfig.ready`` so workers register it."""

from __future__ import annotations

from celery import shared_task

from contests import challenge_close


@shared_task(ignore_result=True, name="contests.challenge_tasks.tick")  # type: ignore[untyped-decorator]  # celery ships no types
def tick() -> None:
    """Every minute: today's day exists; every day past its 00:30 close is closed."""
    challenge_close.tick()
