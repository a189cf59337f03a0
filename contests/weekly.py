"""周榜, the weekly board (RULES.md §12 "Rated game"): the net rating change of
each player's rated game endings this week, recomputed in bulk by a periodic
job (``contests.tasks.recompute_weekly``, beside the all-time board), never per
request.

A week runs from Monday 00:00 Asia/Shanghai to the next. Its points are the sum
of the ``RatingEntry`` rows of reasons ``game`` and ``escape`` written in it
(wins, losses and escape penalties; gems excluded). Order: points (high
first), then the older account (``date_joined``, then id). Only players whose
week adds up to more than 0 are ranked: a net loss or an escape's penalty is
no place on the board, let alone a badge. When a week is over, the next run
closes it once: its top :data:`settings.CONTESTS_WEEKLY_BADGES` get a badge on
their profile and a notification.
"""

from __future__ import annotations

from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Sum
from django.utils import timezone

from accounts import inbox
from accounts.models import RatingEntry
from contests.models import WeeklyBadge, WeeklyClose, WeeklyEntry

#: the board's clock: weeks begin on Monday 00:00 Beijing time
ZONE = ZoneInfo("Asia/Shanghai")


def week_of(moment: datetime) -> date:
    """The Monday (Asia/Shanghai) of the week ``moment`` (aware) falls in.

    >>> from datetime import timezone as tz
    >>> week_of(datetime(2026, 11, 29, 15, 59, tzinfo=tz.utc))  # Sun 23:59 +08:00
    datetime.date(2026, 11, 23)
    >>> week_of(datetime(2026, 11, 29, 16, 0, tzinfo=tz.utc))   # Mon 00:00 +08:00
    datetime.date(2026, 11, 30)
    """
    local = moment.astimezone(ZONE).date()
    return local - timedelta(days=local.weekday())


def week_bounds(week: date) -> tuple[datetime, datetime]:
    """``[start, end)`` of the week beginning on Monday ``week``, aware datetimes."""
    start = datetime.combine(week, time(0), tzinfo=ZONE)
    return start, start + timedelta(days=7)


def standings(week: date) -> list[tuple[int, int]]:
    """``(user_id, points)`` of every player whose rated game endings in
    ``week`` add up to more than 0 points, best first (one query): the board
    and the week's badges (:func:`close`) both rank from it."""
    start, end = week_bounds(week)
    rows = (RatingEntry.objects
            .filter(reason__in=(RatingEntry.GAME, RatingEntry.ESCAPE),
                    created_at__gte=start, created_at__lt=end)
            .values("user_id")
            .annotate(points=Sum("delta"))
            .filter(points__gt=0)  # below or at 0 is no place, so never a badge
            .order_by("-points", "user__date_joined", "user_id")
            .values_list("user_id", "points"))
    return [(uid, int(pts)) for uid, pts in rows]


def recompute(now: datetime | None = None) -> int:
    """Rebuild this week's board (and drop older weeks' rows); close the week
    before if it is not closed yet. Two overlapping runs: the delete and the
    unique ``(week, rank)`` keep one board.

    :returns: how many players this week's board ranks.
    """
    now = now or timezone.now()
    week = week_of(now)
    close(week - timedelta(days=7))
    ranked = standings(week)
    rows = [WeeklyEntry(week=week, rank=i, user_id=uid, points=pts, computed_at=now)
            for i, (uid, pts) in enumerate(ranked, start=1)]
    try:
        with transaction.atomic():
            WeeklyEntry.objects.all().delete()
            WeeklyEntry.objects.bulk_create(rows, batch_size=1000)
    except IntegrityError:  # a concurrent run wrote the same week: theirs stands
        pass
    return len(rows)


def close(week: date) -> list[WeeklyBadge]:
    """Close ``week`` once: its top three of :func:`standings` (so only
    players above 0 points) get a ``WeeklyBadge`` and a ``weekly_badge``
    notification. A week with no ranked player is closed with no badge; a
    week already closed is left alone (returns ``[]``)."""
    with transaction.atomic():
        _closing, created = WeeklyClose.objects.select_for_update().get_or_create(week=week)
        if not created:
            return []
        top = standings(week)[: settings.CONTESTS_WEEKLY_BADGES]
        badges = [WeeklyBadge.objects.create(week=week, user_id=uid, place=place, points=pts)
                  for place, (uid, pts) in enumerate(top, start=1)]
        for b in badges:
            inbox.post(b.user_id, "weekly_badge",
                       {"place": b.place, "week": week.isoformat(), "points": b.points},
                       link="/weekly/")
    return badges


#: rows of the board per page (the site's lists page by at most 50)
PAGE_SIZE = 50


def page_number(raw: Any) -> int:
    """A ``?page=`` value as a page of the top 100 (anything else: 1)."""
    try:
        n = int(raw)
    except (TypeError, ValueError):
        return 1
    last = max(1, -(-int(settings.CONTESTS_WEEKLY_TOP) // PAGE_SIZE))
    return n if 1 <= n <= last else 1


def board(user_id: int | None, page: int = 1) -> dict[str, Any]:
    """One page (50 rows) of this week's top 100, as the page and ``GET
    /api/weekly`` show it (two queries): ``{"week": "YYYY-MM-DD" (its
    Monday), "computed_at": ISO | None, "page": n, "more": bool (a next page
    of the top 100), "rows": [{"rank", "username", "points"}], "me": your row
    | None}``."""
    week = week_of(timezone.now())
    start = (page - 1) * PAGE_SIZE
    last = int(settings.CONTESTS_WEEKLY_TOP)
    stop = min(start + PAGE_SIZE, last)
    rows = list(WeeklyEntry.objects.filter(week=week).select_related("user")
                .order_by("rank")[start:stop + 1])  # one more: is there a next page?
    top, more = rows[: stop - start], stop < last and len(rows) > stop - start
    mine = None
    if user_id is not None:
        mine = next((r for r in top if r.user_id == user_id), None) or (
            WeeklyEntry.objects.filter(week=week, user_id=user_id).select_related("user").first())
    return {
        "week": week.isoformat(),
        "computed_at": top[0].computed_at.isoformat() if top else None,
        "page": page,
        "more": more,
        "rows": [_row(r) for r in top],
        "me": _row(mine) if mine else None,
    }


def _row(r: WeeklyEntry) -> dict[str, Any]:
    return {"rank": r.rank, "username": r.user.username, "points": r.points}


def badges_of(user_id: int) -> list[WeeklyBadge]:
    """A player's weekly badges, newest week first (one query)."""
    return list(WeeklyBadge.objects.filter(user_id=user_id))
