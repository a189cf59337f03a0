"""Presence: one row per open connection, refreshed by heartbeats that expire
(DESIGN.md "Time, bots, departures": a killed process sends no disconnect).

Owns ``Presence`` rows and the online cutoff every reader uses.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from games import lifecycle
from games.models import Presence


def touch_presence(channel_name: str, table_id: int | None, user) -> None:
    """Record or refresh one connection's heartbeat."""
    Presence.objects.update_or_create(
        channel_name=channel_name,
        defaults={
            "table_id": table_id,
            "user": user if getattr(user, "is_authenticated", False) else None,
            "last_seen": timezone.now(),
        },
    )


def drop_presence(channel_name: str) -> None:
    """Forget a closed connection."""
    Presence.objects.filter(channel_name=channel_name).delete()


def expire_presence() -> int:
    """Forget connections whose heartbeats stopped (a killed process says no
    goodbye) and tell their tables, so they show offline; users left with no
    live connection at all are published as ``presence_expired(user_ids)``
    (``games.tables`` stands them up from waiting seats).

    :returns: how many connections were forgotten.
    """
    cutoff = online_cutoff()
    stale = Presence.objects.filter(last_seen__lt=cutoff)
    tables = set(stale.exclude(table=None).values_list("table_id", flat=True))
    users = set(stale.exclude(user=None).values_list("user_id", flat=True))
    count, _ = stale.delete()
    gone = users - set(Presence.objects.filter(user_id__in=users, last_seen__gte=cutoff)
                       .values_list("user_id", flat=True))
    for table_id in tables:
        lifecycle.publish("table_changed", table_id=table_id)
    if gone:
        lifecycle.publish("presence_expired", user_ids=sorted(gone))
    return count


def online_cutoff():
    """Heartbeats older than this no longer count (a killed process sends no goodbye)."""
    return timezone.now() - timedelta(seconds=settings.GAMES_PRESENCE_TTL_SECONDS)
