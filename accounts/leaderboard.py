"""The ranking and the gem cap, recomputed in bulk (never per request).

Order: rating points (high first), then rated wins, then the older account
(``date_joined``, then id). Only players with a rated game are ranked.
The gem cap of RULES.md §9 is the 100th place's rating points, or no cap while
fewer than 100 players are ranked.
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import GemCap, LeaderboardEntry, Profile

GEM_CAP_PLACE = 100


def recompute() -> int:
    """Rebuild the leaderboard table and the gem cap in one transaction.

    Ranked: players with at least one rated game; practice games against bots
    do not put anyone on the board. Two overlapping runs
    queue on the ``GemCap`` row's lock instead of colliding.

    :returns: the number of ranked players.
    """
    with transaction.atomic():
        GemCap.objects.select_for_update().get_or_create(pk=1)
        now = timezone.now()
        ranked = (
            Profile.objects.filter(rated_games__gt=0)
            .order_by("-rating_points", "-rated_wins", "user__date_joined", "user_id")
            .values_list("user_id", "rating_points", "rated_wins")
        )
        rows = [
            LeaderboardEntry(
                rank=i, user_id=uid, rating_points=pts, games_won=won, computed_at=now
            )
            for i, (uid, pts, won) in enumerate(ranked, start=1)
        ]
        cap = rows[GEM_CAP_PLACE - 1].rating_points if len(rows) >= GEM_CAP_PLACE else None
        LeaderboardEntry.objects.all().delete()
        LeaderboardEntry.objects.bulk_create(rows, batch_size=1000)
        GemCap.objects.filter(pk=1).update(points=cap, computed_at=now)
    return len(rows)


def gem_cap() -> int | None:
    """The rating-point cap for using gems now (``None``: no cap)."""
    row = GemCap.objects.filter(pk=1).first()
    return row.cap if row else None
