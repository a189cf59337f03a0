"""Arenas (比赛, RULES.md §12 "Arenas"): the arena, its entries and the tables
it seats.

An arena's prize pool is the coins of its own ledger account, ``pool``: a
dedicated inactive user with a Profile, so entries, refunds and prizes are
ordinary zero-sum user-to-user transfers (``shop.ledger``) and
``check_ledger`` needs nothing new. Every write is ``contests.arena`` /
``contests.arena_run``; lock order after the site's: Table → Seat → Arena →
ArenaEntry → Profile.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

#: the default prize split by place, in per cent
DEFAULT_SPLIT = [50, 30, 20]


class Arena(models.Model):
    """One arena: when it runs, what it costs, who may join, how it pays.

    ``status``: ``upcoming`` → ``running`` (at ``starts_at``) → ``finishing``
    (``ends_at`` passed: games in progress finish and count) → ``finished``
    (paid out); or ``cancelled`` (fewer than four entrants: every entry
    refunded). ``prize_split``: per cent by place (whole numbers summing to
    100). ``house_prize``: coins granted into the pool when it starts
    (``house_paid`` then true), none if cancelled.
    """

    UPCOMING, RUNNING, FINISHING, FINISHED, CANCELLED = (
        "upcoming", "running", "finishing", "finished", "cancelled")
    STATUSES = tuple((s, s) for s in (UPCOMING, RUNNING, FINISHING, FINISHED, CANCELLED))

    name = models.CharField(_("name"), max_length=40)
    starts_at = models.DateTimeField(_("starts at"), db_index=True)
    duration_minutes = models.PositiveSmallIntegerField(_("duration (minutes)"))
    entry_fee = models.PositiveIntegerField(_("entry fee"), default=0)
    min_level = models.PositiveSmallIntegerField(_("minimum level"), default=0)
    max_players = models.PositiveSmallIntegerField(_("maximum players"), default=64)
    prize_split = models.JSONField(_("prize split"), default=list)
    house_prize = models.PositiveIntegerField(_("house prize"), default=0)
    house_paid = models.BooleanField(default=False)
    pool = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.PROTECT,
                                related_name="arena_pool")
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True,
                                   on_delete=models.SET_NULL, related_name="+")
    status = models.CharField(max_length=10, choices=STATUSES, default=UPCOMING,
                              db_index=True)
    created_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["starts_at", "pk"]
        permissions = (("manage_arena", "Can create arenas"),)

    def __str__(self) -> str:
        return self.name


class ArenaEntry(models.Model):
    """One player's entry in an arena, their place in its queue and score.

    ``status``: ``queued`` (waiting for a table, since ``queued_at``),
    ``seated`` (at an arena table, to confirm the new game), ``playing``,
    ``paused``, ``withdrawn`` (before the start: refunded; while running: out
    of the queue, points kept), ``removed`` (escaped: out, points void) or
    ``done`` (the arena paid out: ``place`` and ``prize`` are final; or it was
    cancelled and the fee refunded).
    ``pause_after``: pause once the current game ends. ``last_partner`` and
    ``last_opponents`` (user ids): whom pairing avoids next.
    """

    QUEUED, SEATED, PLAYING, PAUSED, WITHDRAWN, REMOVED, DONE = (
        "queued", "seated", "playing", "paused", "withdrawn", "removed", "done")
    STATUSES = tuple((s, s) for s in (QUEUED, SEATED, PLAYING, PAUSED, WITHDRAWN, REMOVED,
                                      DONE))

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="arena_entries")
    status = models.CharField(max_length=10, choices=STATUSES, default=QUEUED)
    joined_at = models.DateTimeField()
    queued_at = models.DateTimeField()
    pause_after = models.BooleanField(default=False)
    fee_paid = models.PositiveIntegerField(default=0)
    points = models.PositiveIntegerField(default=0)
    games = models.PositiveIntegerField(default=0)
    wins = models.PositiveIntegerField(default=0)
    last_partner = models.IntegerField(null=True, blank=True)
    last_opponents = models.JSONField(default=list, blank=True)
    place = models.PositiveIntegerField(null=True, blank=True)
    prize = models.PositiveIntegerField(default=0)

    class Meta:
        ordering: ClassVar[list[str]] = ["arena", "joined_at", "pk"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["arena", "user"], name="contests_arena_entry_once"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["arena", "status", "queued_at"], name="contests_arena_queue"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in arena {self.arena_id} ({self.status})"


class ArenaSeating(models.Model):
    """Four queued players seated at an arena table (a ``games.Table`` owned
    by the arena's pool account, private: off the lobby, open to anyone from
    the arena page): they confirm (ready) by ``confirm_by``; ``game`` once it
    starts; ``done`` once the game ended or the seating lapsed."""

    arena = models.ForeignKey(Arena, on_delete=models.CASCADE, related_name="seatings")
    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="+")
    user_ids = models.JSONField(default=list)  # in seat order
    game = models.OneToOneField("games.Game", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="arena_seating")
    created_at = models.DateTimeField(auto_now_add=True)
    confirm_by = models.DateTimeField()
    done = models.BooleanField(default=False, db_index=True)
    points = models.JSONField(default=list, blank=True)  # per seat, once scored

    class Meta:
        ordering: ClassVar[list[str]] = ["arena", "pk"]

    def __str__(self) -> str:
        return f"arena {self.arena_id} at table {self.table_id}"
