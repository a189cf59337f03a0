"""Contests in the Django admin: listed and searchable, view only (arenas are
created on /arenas/new/ with an audit entry; the rest is written by its own
modules and moves coins)."""

from __future__ import annotations

from django.contrib import admin

from contests.models import (
    Achievement,
    Arena,
    ArenaEntry,
    ArenaSeating,
    ChallengeBoard,
    ChallengeDay,
    ChallengeEntry,
    TaskProgress,
    WeeklyBadge,
    WeeklyClose,
    WeeklyEntry,
)
from yuanzi_site.admin import ViewOnlyAdmin


def _view_only(model: type, *fields: str, exclude: tuple[str, ...] = ()) -> None:
    admin.site.register(model, type(f"{model.__name__}Admin", (ViewOnlyAdmin,),
                                    {"list_display": fields, "exclude": exclude}))


_view_only(Arena, "name", "starts_at", "status", "entry_fee")
_view_only(ArenaEntry, "arena", "user", "status", "points")
_view_only(ArenaSeating, "arena", "table", "created_at", "done")
_view_only(TaskProgress, "user", "day", "code", "progress", "claimed_at")
_view_only(Achievement, "user", "code", "earned_at")
_view_only(WeeklyEntry, "week", "rank", "user", "points")
_view_only(WeeklyBadge, "user", "week", "place")
_view_only(WeeklyClose, "week", "closed_at")
# a day's seed and a board's hands stay out of the admin too (revealed at the close)
_view_only(ChallengeDay, "date", "commitment", "bot_policy", "closed_at",
           exclude=("server_seed",))
_view_only(ChallengeEntry, "day", "user", "ranked", "result", "place", "prize")
_view_only(ChallengeBoard, "day", "user", "number", "status", "raw", "matchpoints",
           exclude=("state",))
