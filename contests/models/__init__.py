"""Contests' models, one module per contest kind (Django loads this package
as ``contests.models``): each module's models are imported here."""

from contests.models.arena import Arena, ArenaEntry, ArenaSeating
from contests.models.challenge import ChallengeBoard, ChallengeDay, ChallengeEntry
from contests.models.progress import (
    Achievement,
    TaskProgress,
    WeeklyBadge,
    WeeklyClose,
    WeeklyEntry,
)

__all__ = ["Achievement", "Arena", "ArenaEntry", "ArenaSeating", "ChallengeBoard",
           "ChallengeDay", "ChallengeEntry", "TaskProgress", "WeeklyBadge", "WeeklyClose",
           "WeeklyEntry"]
