"""Celery tasks of contests (where Celery's autodiscovery and the task names
expect them; the periodic table is ``yuanzi_site.jobs``)."""

from __future__ import annotations

from celery import shared_task

from contests import achievements, weekly


@shared_task(ignore_result=True)  # type: ignore[untyped-decorator]  # celery ships no types
def recompute_weekly() -> int:
    """Beat task, every minute: rebuild this week's board (周榜), close last
    week (its badges) once, and grant 7-day check-in streaks."""
    achievements.grant_checkin_streaks()
    return weekly.recompute()
