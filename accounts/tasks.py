"""Celery tasks of the accounts app."""

from __future__ import annotations

from celery import shared_task

from accounts import inbox, leaderboard


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no types
def recompute_leaderboard() -> int:
    """Beat task, every minute: rebuild the ranking and the gem cap."""

    return leaderboard.recompute()


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no types
def purge_notifications() -> int:
    """Beat task, hourly: forget notifications older than 90 days
    (``accounts.inbox.purge``); returns how many."""

    return inbox.purge()
