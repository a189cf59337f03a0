"""Celery tasks of moderation: the fair-play signals."""

from __future__ import annotations

from celery import shared_task

from moderation import fairplay


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no types
def compute_fairplay() -> int:
    """Beat, hourly: recompute every pair's fair-play signals; returns the flagged count."""

    return fairplay.compute()
