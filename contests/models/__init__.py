"""Contests' models, one module per contest kind (Django loads this package
as ``contests.models``): each module's models are imported here."""

from contests.models.arena import Arena, ArenaEntry, ArenaSeating
from contests.models.progress import (
    Achievement,
    TaskProgress,
    WeeklyBadge,
    WeeklyClose,
    WeeklyEntry,
)

__all__ = ["Achievement", "Arena", "ArenaEntry", "ArenaSeating", "TaskProgress", "WeeklyBadge",
           "WeeklyClose", "WeeklyEntry"]
