"""Celery tasks of the accounts app."""

from __future__ import annotations

from celery import shared_task


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no types
def recompute_leaderboard() -> int:
    """Beat task, every minute: rebuild the ranking and the gem cap."""
    from accounts import leaderboard

    return leaderboard.recompute()
