"""Tables, seats, games and their append-only event log (DESIGN.md).

A ``Game`` row holds the engine state (plain JSON) and ``seq``, the number of
actions applied; it is changed only by ``games.play`` inside a transaction
that locks it. ``GameSeat`` rows hold who played each seat; ``GameEvent`` rows
are the log every state is rebuilt from.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, ClassVar, Final, TypedDict

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from games.engine import State
    from games.fairness import SiteState


class Player(TypedDict):
    """One seat's player as views and events show it (:meth:`GameSeat.as_player`):
    ``user_id`` and ``username`` are ``None`` for a bot; ``bot_policy`` is the
    bot's level (``"beginner"`` … ``"master"``), ``None`` for a person."""

    user_id: int | None
    username: str | None
    level: int
    bot: bool
    bot_policy: str | None
    auto_play: bool
    auto_by_clock: bool


def new_server_seed() -> str:
    """A server seed for a table's next deal: 32 hex characters from
    ``secrets`` (games/fairness.py)."""
    return secrets.token_hex(16)


class Table(models.Model):
    """A table in the lobby: four seats, a chat, and the games played at it."""

    WAITING, PLAYING = "waiting", "playing"
    STATUS_CHOICES = ((WAITING, _("waiting")), (PLAYING, _("playing")))

    name = models.CharField(_("name"), max_length=40)
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="owned_tables"
    )
    status = models.CharField(max_length=10, choices=STATUS_CHOICES, default=WAITING)
    current_game = models.ForeignKey(
        "Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    closed = models.BooleanField(_("closed"), default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    # 好友房: never listed; opened only with the invite token or the
    # room code. Other apps read ``private`` (a private table carries no wager,
    # RULES.md §12).
    private = models.BooleanField(_("private"), default=False)
    invite_token = models.CharField(max_length=32, blank=True, db_index=True)
    room_code = models.CharField(max_length=6, blank=True, db_index=True)
    spectators_allowed = models.BooleanField(_("spectators allowed"), default=True)
    # the server seed of the next game dealt here, secret until that game ends;
    # its commitment is shown while the table waits, before any player's seed
    # is sent with ready (games/fairness.py)
    next_server_seed = models.CharField(max_length=32, default=new_server_seed, editable=False)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at"]
        verbose_name = _("table")
        verbose_name_plural = _("tables")

    def __str__(self) -> str:
        return self.name


class Seat(models.Model):
    """One of a table's four seats (0 = North … 3 = West, RULES.md §2).

    Empty, a user, or a bot; ``ready`` marks a player ready for the next game
    (bots are always ready). Whether a user is online comes from :mod:`games.presence`.
    """

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="seats",
    )
    is_bot = models.BooleanField(default=False)
    bot_policy = models.CharField(max_length=20, blank=True)  # the bot's level, if a bot
    ready = models.BooleanField(default=False)
    # the player's seed for the next deal, sent with ready (games.fairness)
    seed = models.CharField(max_length=64, blank=True, default="")

    class Meta:
        ordering: ClassVar[list[str]] = ["table", "index"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["table", "index"], name="games_seat_unique_index"),
            # one seat per person on the whole site (RULES.md §12)
            models.UniqueConstraint(
                fields=["user"], condition=models.Q(user__isnull=False),
                name="games_seat_one_per_person",
            ),
            models.CheckConstraint(
                condition=models.Q(index__lte=3), name="games_seat_index_0_3"
            ),
            models.CheckConstraint(
                condition=~models.Q(is_bot=True, user__isnull=False),
                name="games_seat_bot_or_user",
            ),
        ]

    def __str__(self) -> str:
        return f"table {self.table_id}, seat {self.index}"

    @property
    def empty(self) -> bool:
        """True when neither a user nor a bot sits here."""
        return self.user_id is None and not self.is_bot


class Game(models.Model):
    """One game at a table: the engine state, its ``seq`` and when its turn is due.

    ``due_at`` is when the seat to act must be acted for (a bot's or a 托管
    seat's pause is over, or a human's deadline passed); ``settled`` guards the
    finisher so a game ends once, whatever path ends it; ``end_reason`` is how
    it ended and ``record`` its RULES.md §11 record, both written by the
    finisher. Who plays each seat: ``seats`` (``GameSeat`` rows).
    """

    PLAYING: Final = "playing"
    OVER: Final = "over"
    # the engine's EndReason values (Final: they type as those literals)
    NORMAL: Final = "normal"
    ESCAPE: Final = "escape"
    MODERATOR_CLOSE: Final = "moderator_close"
    MODERATOR_KICK: Final = "moderator_kick"
    SUSPENSION: Final = "suspension"
    END_REASONS = tuple((r, r) for r in (NORMAL, ESCAPE, MODERATOR_CLOSE, MODERATOR_KICK,
                                        SUSPENSION))

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="games")
    # the table's name when the game started: a 招牌 or a moderator may rename
    # the table later, and a replay or result is titled as it was played
    table_name = models.CharField(max_length=40, blank=True)
    # read as the site's state (the engine's plus ``fairness``); any engine state
    # may be written, since ``fairness`` is optional and the engine keeps it
    state: models.JSONField[State, SiteState] = models.JSONField()
    seq = models.PositiveIntegerField(default=0)
    status = models.CharField(max_length=10, default=PLAYING, db_index=True)
    practice = models.BooleanField(default=False)
    due_at = models.DateTimeField(null=True, blank=True, db_index=True)
    settled = models.BooleanField(default=False)
    end_reason = models.CharField(max_length=20, choices=END_REASONS, blank=True)
    record = models.JSONField(null=True, blank=True)
    started_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)

    # the seat rows, loaded once per instance by ``games.roster.seat_rows``
    _seat_rows: list[GameSeat]

    class Meta:
        ordering: ClassVar[list[str]] = ["-started_at"]

    def __str__(self) -> str:
        return f"game {self.pk} at {self.table_id} (seq {self.seq})"

    @property
    def played_name(self) -> str:
        """The table's name as it was when this game was played; for a game
        started before names were kept, the table's current name (the
        migration copied it in; only a blank row gets here)."""
        return self.table_name or self.table.name


class GameSeat(models.Model):
    """Who played one seat of a game: a user (with the level they had when it
    started, RULES.md §7) or a bot (its policy), and the seat's 托管 flag and
    turns lost to the clock in a row (RULES.md §8)."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats")
    index = models.PositiveSmallIntegerField()
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="game_seats",
    )
    username = models.CharField(max_length=150, blank=True)  # as it was when played
    level = models.PositiveSmallIntegerField(default=0)
    bot = models.CharField(max_length=20, blank=True)  # bot policy; "" for a person
    auto_play = models.BooleanField(default=False)
    timeouts = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering: ClassVar[list[str]] = ["game", "index"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "index"], name="games_gameseat_unique"),
        ]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["user", "game"], name="games_gameseat_user_game"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id}, seat {self.index}: {self.username or self.bot}"

    @property
    def is_bot(self) -> bool:
        """A bot played this seat (a practice game, RULES.md §7)."""
        return bool(self.bot)

    def as_player(self) -> Player:
        """The seat as views show it: ``{"user_id", "username", "level", "bot",
        "bot_policy", "auto_play", "auto_by_clock"}`` (``user_id``/``username``
        ``None`` for a bot). ``auto_by_clock``: 托管 is on because two turns in
        a row ran out (RULES.md §8), not by the player's own choice, so a page
        opened later can still say why."""
        return {"user_id": self.user_id, "username": self.username or None,
                "level": self.level, "bot": self.is_bot, "bot_policy": self.bot or None,
                "auto_play": self.auto_play,
                # play.run_due sets timeouts to 2 with 托管; set_auto_play resets them
                "auto_by_clock": self.auto_play and self.timeouts >= 2}


class GameEvent(models.Model):
    """One applied action and the events it produced; ``(game, seq)`` is unique."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="events")
    seq = models.PositiveIntegerField()
    seat = models.PositiveSmallIntegerField(null=True)  # None: a moderator closed the table
    action = models.JSONField()
    events = models.JSONField()
    by = models.CharField(max_length=10, default="player")  # player|bot|clock|auto|moderator
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["game", "seq"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "seq"], name="games_event_unique_seq"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id} #{self.seq} ({self.by})"


class ChatMessage(models.Model):
    """A line of table chat, kept with the table."""

    MAX_LENGTH = 200

    table = models.ForeignKey(Table, on_delete=models.CASCADE, related_name="chat")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    text = models.CharField(max_length=MAX_LENGTH)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["created_at"]

    def __str__(self) -> str:
        return f"{self.user_id} at table {self.table_id}: {self.text}"


class SchedulerHeartbeat(models.Model):
    """When the scheduler (the embedded ticker, or Celery beat's sweep) last ran:
    one row, ``name="scheduler"`` (RULES.md §12 "The site's own outage").

    A heartbeat older than ``GAMES_OUTAGE_SECONDS`` means the site was down;
    :mod:`games.clock` gives running games back the time they had left then.
    """

    name = models.CharField(max_length=20, unique=True)
    at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.at}"


class TutorialProgress(models.Model):
    """A tutorial lesson an account finished (``games.tutorial``): the lesson's
    code and when it was first completed. Visitors' progress stays in their
    browser (localStorage); nothing else of a lesson is kept."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="tutorial_progress")
    lesson = models.CharField(max_length=20)
    completed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "lesson"], name="tutorial_progress_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.lesson}"


class GameReview(models.Model):
    """复盘: the review of one seat's decisions in a finished record, asked for
    by the player of that seat (``games.reviews``), and kept: asking again shows
    this row. One per record and seat.

    The record is ``kind`` ``"game"`` (``game``, and ``ref`` its id) or a
    plugin's kind (``games.plugins.ReviewKind``: ``"challenge"``, ``ref`` a
    daily challenge board's id; ``game`` empty). ``status``: ``queued`` →
    ``running`` → ``done`` (or ``failed``); ``done`` / ``total``: decisions
    judged so far / to judge (``total`` 0 until the worker counts them);
    ``result``: the stored review (``games.reviews.result_of``), ``None`` until
    done; ``error``: why it failed; ``beat_at``: the worker's last sign of life
    (a running row that stops beating is taken as failed).
    """

    QUEUED, RUNNING, DONE, FAILED = "queued", "running", "done", "failed"
    STATUS_CHOICES = tuple((s, s) for s in (QUEUED, RUNNING, DONE, FAILED))
    GAME = "game"

    kind = models.CharField(max_length=20, default=GAME)
    ref = models.PositiveBigIntegerField()
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="reviews",
                             null=True, blank=True)
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="game_reviews")
    status = models.CharField(max_length=10, choices=STATUS_CHOICES, default=QUEUED,
                              db_index=True)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    result = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    beat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["created_at", "pk"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["kind", "ref", "seat"],
                                    name="games_review_once_per_record_seat"),
            models.CheckConstraint(condition=models.Q(seat__lte=3), name="games_review_seat_0_3"),
            # a game's row names its game (and ref is its id); another kind's names none
            models.CheckConstraint(
                condition=(models.Q(kind="game", game__isnull=False, ref=models.F("game"))
                           | (~models.Q(kind="game") & models.Q(game__isnull=True))),
                name="games_review_game_or_other_kind"),
        ]

    def __str__(self) -> str:
        return f"review of {self.kind} {self.ref} seat {self.seat} ({self.status})"
