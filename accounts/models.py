"""Account models: the player's Profile."""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.templatetags.static import static
from django.utils.translation import gettext_lazy as _

from accounts import levels

#: the built-in avatars (static/avatars/<code>.svg, hand-drawn), in the
#: chooser's order; ``Profile.avatar`` holds one code or "" (not chosen yet)
AVATARS: tuple[str, ...] = (
    "cat", "panda", "rabbit", "fox", "owl", "fish",
    "crane", "tiger", "frog", "bear", "moon", "plum",
)


def default_avatar(user_id: int) -> str:
    """The avatar of an account that chose none: one of :data:`AVATARS` by
    its id, so a room of new players does not look all alike."""
    return AVATARS[user_id % len(AVATARS)]


def avatar_url(code: str) -> str:
    """The static URL of avatar ``code`` (an unknown code: the first avatar's)."""
    return static(f"avatars/{code if code in AVATARS else AVATARS[0]}.svg")


def avatar_urls() -> dict[str, str]:
    """``{code: static URL}`` of every avatar, for the page scripts (``T.avatars``,
    static/js/avatar.js)."""
    return {code: avatar_url(code) for code in AVATARS}


class Profile(models.Model):
    """A player's ladder standing, coins and game counts (one per user).

    Created for every new user by ``accounts.signals``. ``rating_points`` may be
    negative (RULES.md §7). ``coins`` starts at 0 and is written only by the
    coins ledger (``shop.ledger``, which grants the sign-up coins of RULES.md
    §12), so it always equals the sum of the user's coin entries; a database
    constraint keeps it from going below zero (DESIGN.md "Money and points").
    ``coins_held`` (≤ ``coins``, a database constraint) is the part a running
    wager game holds (``shop.holds``, RULES.md §12 "Held stake"): shown, not
    spendable.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    rating_points = models.IntegerField(_("rating points"), default=0)
    coins = models.PositiveBigIntegerField(_("coins"), default=0)
    # the part of ``coins`` held by running wager games (RULES.md §12 "Held
    # stake"): not spendable, not a movement; written only by ``shop.holds``
    coins_held = models.PositiveBigIntegerField(_("coins held"), default=0)
    games_played = models.PositiveIntegerField(_("games played"), default=0)
    # rated games only (four people, RULES.md §7): what puts a player on the leaderboard
    rated_games = models.PositiveIntegerField(_("rated games"), default=0)
    games_won = models.PositiveIntegerField(_("games won"), default=0)
    # wins of rated games: the leaderboard's win count and tie-break
    rated_wins = models.PositiveIntegerField(_("rated wins"), default=0)
    # double clamps won in rated games only, as rated_wins (accounts.plugin, RULES.md §7)
    double_clamps = models.PositiveIntegerField(_("double clamps"), default=0)
    # a code of AVATARS, or "" for the default by user id (avatar_code)
    avatar = models.CharField(_("avatar"), max_length=16, blank=True, default="")
    # 完成率 (RULES.md §12 "Finish rate"), written only by ``social.reputation``
    # at a game's end, so showing it costs no query: the last 100 counted
    # outcomes oldest first ("1" finished, "0" their own escape), the rate
    # they make (0–100), and the rated games that ended normally or by an
    # escape (the "5 rated games" before it is shown)
    finish_record = models.CharField(_("finish record"), max_length=100, blank=True,
                                     default="")
    finish_rate = models.PositiveSmallIntegerField(_("finish rate"), default=100)
    counted_games = models.PositiveIntegerField(_("counted rated games"), default=0)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(
                condition=models.Q(coins__gte=0), name="accounts_profile_coins_nonnegative"
            ),
            # a hold never exceeds the balance (RULES.md §12 "Held stake")
            models.CheckConstraint(
                condition=models.Q(coins_held__gte=0) & models.Q(coins_held__lte=models.F("coins")),
                name="accounts_profile_held_within_coins",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.rating_points})"

    @property
    def level(self) -> int:
        """Ladder level 0..16 for the current rating points (RULES.md §7)."""
        return levels.level_for(self.rating_points)

    @property
    def avatar_code(self) -> str:
        """The avatar shown: the chosen code of :data:`AVATARS`, else the
        default by user id (:func:`default_avatar`)."""
        return self.avatar if self.avatar in AVATARS else default_avatar(self.user_id)

    @property
    def frame(self) -> int:
        """The avatar frame's band for this level (``levels.frame_for``)."""
        return levels.frame_for(self.level)

    @property
    def title(self) -> str:
        """Chinese level title, e.g. 科员."""
        return levels.title_for(self.level)

    @property
    def title_en(self) -> str:
        """English level title, e.g. Clerk."""
        return levels.title_en_for(self.level)

    @property
    def stake(self) -> int:
        """Stake (对局分) of this player's level."""
        return levels.stake_for(self.level)

    @property
    def points_to_next(self) -> int | None:
        """Rating points still needed for the next level; None at the top."""
        return levels.points_to_next(self.rating_points)


class RatingEntry(models.Model):
    """One movement of a player's rating points (DESIGN.md "Money and points").

    Written in the same transaction as its cause and as the ``F()`` update of
    ``Profile.rating_points``; one entry per (user, game, reason), so a game can
    move a player's points only once.
    """

    GAME, ESCAPE, GEM = "game", "escape", "gem"
    REASONS = ((GAME, _("game result")), (ESCAPE, _("escape")), (GEM, _("gem")))

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_entries"
    )
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL)
    delta = models.IntegerField()
    reason = models.CharField(max_length=10, choices=REASONS)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(
                fields=["user", "game", "reason"], condition=models.Q(game__isnull=False),
                name="accounts_rating_once_per_game",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.delta:+d} ({self.reason})"


class LeaderboardEntry(models.Model):
    """One row of the ranking, recomputed every minute by a Celery beat task.

    Order: rating points, then games won, then the older
    account. Only players with a rated game (``Profile.rated_games``) are ranked.
    """

    rank = models.PositiveIntegerField(unique=True)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    rating_points = models.IntegerField()
    games_won = models.PositiveIntegerField()
    computed_at = models.DateTimeField()
    #: not a column: the title for ``rating_points``, set by the leaderboard view
    title: str
    #: not a column: its English title, set beside ``title``
    title_en: str

    class Meta:
        ordering: ClassVar[list[str]] = ["rank"]

    def __str__(self) -> str:
        return f"#{self.rank} {self.user_id} ({self.rating_points})"


class GemCap(models.Model):
    """The rating-point cap under which gems may be used (RULES.md §9).

    A single row (pk 1). ``points`` is the 100th place's rating points, or
    ``None`` (no cap) while fewer than 100 players are ranked; moderators may
    override it with ``override``.
    """

    points = models.IntegerField(null=True, blank=True)
    override = models.IntegerField(null=True, blank=True)
    computed_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"gem cap {self.cap}"

    @property
    def cap(self) -> int | None:
        """The cap in force: the moderators' override, else the computed one."""
        return self.override if self.override is not None else self.points


class Notification(models.Model):
    """One thing a person must be told (消息), kept 90 days (``accounts.inbox``).

    Written only by :func:`accounts.inbox.post`, in the transaction of its
    cause; ``kind`` names a registered message (``inbox.register_kinds``),
    rendered in the reader's language from ``params`` when shown; ``link`` is a
    site path to what it is about ("" for none).
    """

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="notifications")
    kind = models.CharField(max_length=40)
    params = models.JSONField(default=dict, blank=True)
    link = models.CharField(max_length=200, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    read_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("notification")
        verbose_name_plural = _("notifications")
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["user", "-created_at", "-id"], name="accounts_notice_newest"),
            models.Index(fields=["user", "read_at"], name="accounts_notice_unread"),
            models.Index(fields=["created_at"], name="accounts_notice_age"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id}: {self.kind}"
