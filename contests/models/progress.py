"""The weekly board, daily tasks and achievements (RULES.md §12 "Coin sources",
"Rated game"): what ``contests.weekly``, ``contests.quests`` and
``contests.achievements`` keep."""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class WeeklyEntry(models.Model):
    """One row of this week's board (周榜), rebuilt every minute by
    ``contests.weekly.recompute``: the net rating change (``points``) of a
    player's rated game endings since ``week`` (a Monday, Asia/Shanghai)."""

    week = models.DateField()
    rank = models.PositiveIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    points = models.IntegerField()
    computed_at = models.DateTimeField()

    class Meta:
        ordering: ClassVar[list[str]] = ["week", "rank"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["week", "rank"], name="contests_weekly_rank"),
            models.UniqueConstraint(fields=["week", "user"], name="contests_weekly_user"),
        ]

    def __str__(self) -> str:
        return f"{self.week} #{self.rank} {self.user_id} ({self.points:+d})"


class WeeklyBadge(models.Model):
    """A closed week's top three (``place`` 1–3) on the profile. One per
    (week, user); written once, when the week closes."""

    week = models.DateField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="weekly_badges")
    place = models.PositiveSmallIntegerField()
    points = models.IntegerField()

    class Meta:
        ordering: ClassVar[list[str]] = ["-week", "place"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["week", "user"], name="contests_badge_once"),
        ]

    def __str__(self) -> str:
        return f"{self.week} #{self.place} {self.user_id}"


class WeeklyClose(models.Model):
    """A week (its Monday) whose badges were given: closing is done once."""

    week = models.DateField(unique=True)
    closed_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"week of {self.week} closed"


class TaskProgress(models.Model):
    """A player's progress on one of their tasks of ``day`` (Asia/Shanghai).

    Which tasks a day gives a player is computed (``contests.quests.assigned``);
    a row exists once a fact counted or the task was claimed. ``claimed_at``
    is set once, by a conditional UPDATE, in the transaction of the reward's
    ledger entry (``contests.quests.claim``)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    day = models.DateField()
    code = models.CharField(max_length=32)
    progress = models.PositiveIntegerField(default=0)
    claimed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("task progress")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "day", "code"], name="contests_task_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.day} {self.code}: {self.progress}"


class Achievement(models.Model):
    """An achievement (成就) ``code`` earned once per account. ``reward``: the
    coins it carries (settings ``CONTESTS_ACHIEVEMENTS``); ``paid`` once the
    ledger paid them (at once for an account with the rated games RULES.md §12
    asks, else when it reaches them)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="achievements")
    code = models.CharField(max_length=32)
    earned_at = models.DateTimeField(auto_now_add=True)
    reward = models.PositiveIntegerField(default=0)
    paid = models.BooleanField(default=False)

    class Meta:
        verbose_name = _("achievement")
        ordering: ClassVar[list[str]] = ["earned_at", "id"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "code"], name="contests_achievement_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.code}"
