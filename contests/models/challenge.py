"""The daily challenge's rows (每日挑战, RULES.md §12 "Daily challenge").

- :class:`ChallengeDay`: one per Asia/Shanghai date: the committed server seed,
  the bot that plays the other three seats (level and version), when it closed;
- :class:`ChallengeEntry`: one account's attempt at a day (one per account and
  day), its ranked flag and, once the day closes, its final result and place;
- :class:`ChallengeBoard`: one board (1–8) of an entry: the engine state of its
  first half, the turn clock that runs only while its player is connected, and
  its raw score and matchpoints.

The logic lives in ``contests.challenge`` (the day), ``contests.challenge_play``
(playing a board) and ``contests.challenge_scores`` (matchpoints, standings).
"""

from __future__ import annotations

from typing import Any, ClassVar

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class ChallengeDay(models.Model):
    """One day's challenge (Asia/Shanghai ``date``).

    ``server_seed``: 64 hex characters from ``secrets``, secret until
    ``closed_at``; ``commitment``: its SHA-256 in hex, public from the start.
    ``bot_policy`` / ``bot_version``: the strongest bot when the day opened and a
    fingerprint of its code, so a day is played by one bot throughout.
    """

    date = models.DateField(_("date"), unique=True)
    server_seed = models.CharField(max_length=64)
    commitment = models.CharField(_("commitment"), max_length=64)
    bot_policy = models.CharField(_("bot"), max_length=20)
    bot_version = models.CharField(_("bot version"), max_length=40)
    created_at = models.DateTimeField(auto_now_add=True)
    closed_at = models.DateTimeField(_("closed at"), null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-date"]
        verbose_name = _("challenge day")

    def __str__(self) -> str:
        return f"challenge {self.date}"

    @property
    def closed(self) -> bool:
        """The day is closed: seed revealed, results final (RULES.md §12)."""
        return self.closed_at is not None


class ChallengeEntry(models.Model):
    """One account's attempt at one day (one per account per day).

    ``ranked``: the account had at least ``CHALLENGE_RANKED_GAMES`` rated games
    when it started its first board (fixed for the day). Set at the close:
    ``result`` (the average matchpoints in %, ranked entries with all boards),
    ``place`` (1 = best; ties share a place) and ``prize`` (coins paid).
    """

    day = models.ForeignKey(ChallengeDay, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="challenge_entries")
    ranked = models.BooleanField(default=False)
    started_at = models.DateTimeField(auto_now_add=True)
    result = models.FloatField(null=True, blank=True)
    place = models.PositiveIntegerField(null=True, blank=True)
    prize = models.PositiveIntegerField(default=0)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["day", "user"], name="contests_challenge_one_entry"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["day", "result"], name="contests_challenge_result"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.day_id}"


class ChallengeBoard(models.Model):
    """One board (``number`` 1–8) of an entry, played in seat 2 (South).

    ``state``: the engine state (``games.engine``) dealt from the board's seed;
    the board is over once its first half is (``status`` ``done``). ``clock_ms``:
    milliseconds of the current turn used while connected; ``seen_at``: the
    player's last sign of life (a gap longer than ``CHALLENGE_GAP_SECONDS``
    counts as away); ``timeouts``: the player's timeouts in a row (two pause the
    board). ``raw``: North–South points ±100 for a double clamp;
    ``matchpoints``: final, in % (set at the close). ``by_bot``: the bot
    finished it at the close. ``moves_by``: the player's moves they did not
    choose, ``{"<index in the half's actions>": "clock" | "auto"}`` (a
    timeout, §8; the bot's play-out at the close), which 复盘 does not judge.
    ``address_hash``: the keyed hash of the address it was last played from
    (``moderation.fairplay.address_hash``, never the address), for the
    fair-play view.
    """

    PLAYING = "playing"
    PAUSED = "paused"
    DONE = "done"
    STATUSES: ClassVar[list[tuple[str, Any]]] = [
        (PLAYING, _("playing")), (PAUSED, _("paused")), (DONE, _("done"))]

    entry = models.ForeignKey(ChallengeEntry, on_delete=models.CASCADE, related_name="boards")
    day = models.ForeignKey(ChallengeDay, on_delete=models.CASCADE, related_name="boards")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="challenge_boards")
    number = models.PositiveSmallIntegerField()
    state = models.JSONField()
    status = models.CharField(max_length=8, choices=STATUSES, default=PLAYING)
    clock_ms = models.PositiveIntegerField(default=0)
    seen_at = models.DateTimeField(null=True, blank=True)
    timeouts = models.PositiveSmallIntegerField(default=0)
    raw = models.IntegerField(null=True, blank=True)
    matchpoints = models.FloatField(null=True, blank=True)
    by_bot = models.BooleanField(default=False)
    moves_by = models.JSONField(default=dict, blank=True)
    # the keyed hash of the address it was last played from (moderation.fairplay)
    address_hash = models.CharField(max_length=64, blank=True, default="")
    started_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["day", "user", "number"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["entry", "number"], name="contests_challenge_board"),
            models.CheckConstraint(condition=models.Q(number__gte=1, number__lte=8),
                                   name="contests_challenge_board_1_8"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["day", "number", "status"], name="contests_challenge_field"),
            models.Index(fields=["user", "status"], name="contests_challenge_user"),
        ]

    def __str__(self) -> str:
        return f"board {self.number} of {self.entry_id}"
