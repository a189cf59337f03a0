"""The scheduler's heartbeat, read side (never writes): whether the site counts
as down, so turn clocks stand still (RULES.md §12; the writer is
:mod:`games.clock`).
"""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from games.models import SchedulerHeartbeat

NAME = "scheduler"

_read: tuple[float, datetime | None] = (0.0, None)  # (monotonic, heartbeat) cache


def _stale_before(now: datetime) -> datetime:
    return now - timedelta(seconds=settings.GAMES_OUTAGE_SECONDS)


def paused_since() -> datetime | None:
    """The last heartbeat if it is stale (turn clocks are paused), else ``None``;
    ``None`` too when no scheduler ever ran. Read at most once a second per
    process (views call it)."""
    global _read
    if settings.GAMES_SCHEDULER == "none":
        return None
    if time.monotonic() - _read[0] >= 1.0:
        at = SchedulerHeartbeat.objects.filter(name=NAME).values_list("at", flat=True).first()
        _read = (time.monotonic(), at)
    at = _read[1]
    if at is not None and at < _stale_before(timezone.now()):
        return at
    return None


def _forget_read() -> None:
    global _read
    _read = (0.0, None)


def age() -> float | None:
    """Seconds since the scheduler's last heartbeat, read now (uncached), or
    ``None`` if no scheduler ever ran. ``/readyz`` calls it: an age over
    ``GAMES_OUTAGE_SECONDS`` means turn clocks are paused (RULES.md §12)."""
    at = SchedulerHeartbeat.objects.filter(name=NAME).values_list("at", flat=True).first()
    return None if at is None else (timezone.now() - at).total_seconds()
