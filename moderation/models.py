"""Moderation models (RULES.md §12 "Moderators"): sanctions (mutes,
suspensions, table bans), the append-only audit log, reports, blocked words and
the fair-play signals.

Rows are written by :mod:`moderation.actions`, :mod:`moderation.reports` and
:mod:`moderation.fairplay`; nothing else writes them.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar, NoReturn

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

REASON_MAX_LENGTH = 500


class SanctionQuerySet(models.QuerySet["Sanction"]):
    """Sanctions, with :meth:`active` (in force at ``now``)."""

    def active(self, now: datetime | None = None) -> SanctionQuerySet:
        """Sanctions in force: not lifted and not yet over (``until`` null: for good)."""
        now = now or timezone.now()
        return self.filter(lifted_at__isnull=True).filter(Q(until__isnull=True) | Q(until__gt=now))


class Sanction(models.Model):
    """A mute (no chat), a suspension (no log-in, no play) or a table ban (no
    sitting at ``table``), until ``until`` (``None``: for good, suspensions only).
    Ends by itself when ``until`` passes; ``lifted_at`` records an early lift."""

    MUTE, SUSPENSION, TABLE_BAN = "mute", "suspension", "table_ban"
    KINDS = ((MUTE, _("mute")), (SUSPENSION, _("suspension")), (TABLE_BAN, _("table ban")))

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="sanctions", verbose_name=_("user"))
    kind = models.CharField(_("kind"), max_length=12, choices=KINDS)
    table = models.ForeignKey("games.Table", null=True, blank=True, on_delete=models.CASCADE,
                              related_name="+", verbose_name=_("table"))
    until = models.DateTimeField(_("until"), null=True, blank=True)
    reason = models.CharField(_("reason"), max_length=REASON_MAX_LENGTH)
    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                  related_name="+", verbose_name=_("moderator"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    lifted_at = models.DateTimeField(_("lifted at"), null=True, blank=True)

    objects = SanctionQuerySet.as_manager()

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at"]
        verbose_name = _("sanction")
        verbose_name_plural = _("sanctions")
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["user", "kind"], name="moderation_sanction_user_kind"),
        ]
        permissions: ClassVar[list[tuple[str, StrOrPromise]]] = [
            ("use_console", "Can use the moderator console"),
            ("sanction_users", "Can mute, suspend, kick and ban"),
            ("manage_tables", "Can close and rename tables"),
            ("grant_coins", "Can grant and revoke coins and set the gem cap"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} {self.user_id} until {self.until or '∞'}"


class AuditQuerySet(models.QuerySet["AuditEntry"]):
    """The audit log cannot be changed in bulk either."""

    def update(self, **kwargs: Any) -> NoReturn:
        raise PermissionError("the audit log is append-only")

    def delete(self) -> NoReturn:
        raise PermissionError("the audit log is append-only")


class AuditEntry(models.Model):
    """One moderator action, append-only: who, when, what, on whom / which
    table, why, and the state before → after (plain JSON)."""

    CLOSE, KICK, RENAME, MUTE, UNMUTE, SUSPEND, UNSUSPEND = (
        "close", "kick", "rename", "mute", "unmute", "suspend", "unsuspend")
    GRANT, REVOKE, GEM_CAP, REPORT, WORDS, ROLE, PRICE = (
        "grant", "revoke", "gem_cap", "report", "words", "role", "price")
    ACTIONS = tuple((a, a) for a in (CLOSE, KICK, RENAME, MUTE, UNMUTE, SUSPEND, UNSUSPEND, GRANT,
                                     REVOKE, GEM_CAP, REPORT, WORDS, ROLE, PRICE))

    moderator = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                  related_name="+", verbose_name=_("moderator"))
    moderator_name = models.CharField(_("moderator"), max_length=150)
    action = models.CharField(_("action"), max_length=12, choices=ACTIONS, db_index=True)
    target_user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                    on_delete=models.SET_NULL, related_name="+",
                                    verbose_name=_("target user"))
    target_name = models.CharField(_("target user"), max_length=150, blank=True)
    table = models.ForeignKey("games.Table", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+", verbose_name=_("table"))
    table_name = models.CharField(_("table"), max_length=40, blank=True)
    reason = models.CharField(_("reason"), max_length=REASON_MAX_LENGTH)
    before = models.JSONField(_("before"), default=dict, blank=True)
    after = models.JSONField(_("after"), default=dict, blank=True)
    created_at = models.DateTimeField(_("when"), auto_now_add=True, db_index=True)

    objects = AuditQuerySet.as_manager()

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at", "-pk"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit log")

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.moderator_name} {self.action}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        """Insert only: an existing entry is never changed."""
        if self.pk is not None:
            raise PermissionError("the audit log is append-only")
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> NoReturn:
        """Never: the audit log is append-only."""
        raise PermissionError("the audit log is append-only")


class Report(models.Model):
    """A player's report of another player, or of a chat line, at a table."""

    CHEATING, CHAT_ABUSE, STALLING, OTHER = "cheating", "chat_abuse", "stalling", "other"
    CATEGORIES = ((CHEATING, _("cheating / collusion")), (CHAT_ABUSE, _("abuse in chat")),
                  (STALLING, _("stalling")), (OTHER, _("other")))
    OPEN, RESOLVED, DISMISSED = "open", "resolved", "dismissed"
    STATUSES = ((OPEN, _("open")), (RESOLVED, _("resolved")), (DISMISSED, _("dismissed")))
    NOTE_MAX_LENGTH = 500

    reporter = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                 related_name="reports_made", verbose_name=_("reporter"))
    target = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="reports_against", verbose_name=_("reported player"))
    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="+",
                              verbose_name=_("table"))
    game = models.ForeignKey("games.Game", null=True, blank=True, on_delete=models.SET_NULL,
                             related_name="+", verbose_name=_("game"))
    chat_line = models.ForeignKey("games.ChatMessage", null=True, blank=True,
                                  on_delete=models.SET_NULL, related_name="+",
                                  verbose_name=_("chat line"))
    category = models.CharField(_("category"), max_length=12, choices=CATEGORIES)
    note = models.CharField(_("note"), max_length=NOTE_MAX_LENGTH, blank=True)
    status = models.CharField(_("status"), max_length=10, choices=STATUSES, default=OPEN,
                              db_index=True)
    outcome_note = models.CharField(_("moderator's note"), max_length=REASON_MAX_LENGTH,
                                    blank=True)
    handled_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("handled by"))
    handled_at = models.DateTimeField(_("handled at"), null=True, blank=True)
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at"]
        verbose_name = _("report")
        verbose_name_plural = _("reports")

    def __str__(self) -> str:
        return f"{self.category} on {self.target_id} by {self.reporter_id} ({self.status})"


class BlockedWord(models.Model):
    """A word masked in chat and refused in usernames and table names
    (matched as a substring, case-insensitively; the game's own vocabulary wins)."""

    word = models.CharField(_("word"), max_length=40, unique=True)
    added_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL,
                                 related_name="+", verbose_name=_("added by"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["word"]
        verbose_name = _("blocked word")
        verbose_name_plural = _("blocked words")

    def __str__(self) -> str:
        return self.word


class PairSignal(models.Model):
    """Fair-play measures of one pair of accounts (``user_a`` id < ``user_b`` id)
    over their rated games together, recomputed by ``moderation.tasks``.

    ``opp_win_rate``: how often ``user_a``'s team won when they were opponents;
    ``coin_flow``: coins that went from ``user_b`` to ``user_a`` in wager games
    (negative: the other way); ``pass_rate``: of the times one passed on the
    other's play while holding a play that beat it, per opportunity.
    ``flags``: the measures ≥ 3 SD from the population, or ``same_ip``.
    """

    user_a = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="+")
    user_b = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="+")
    games = models.PositiveIntegerField(_("games together"), default=0)
    as_partners = models.PositiveIntegerField(_("as partners"), default=0)
    as_opponents = models.PositiveIntegerField(_("as opponents"), default=0)
    opp_win_rate = models.FloatField(_("win rate as opponents"), null=True)
    coin_flow = models.BigIntegerField(_("coin flow"), default=0)
    pass_rate = models.FloatField(_("soft passes"), null=True)
    same_ip_games = models.PositiveIntegerField(_("games from one address"), default=0)
    game_ids = models.JSONField(default=list)
    flags = models.JSONField(default=list)
    computed_at = models.DateTimeField()

    class Meta:
        ordering: ClassVar[list[str]] = ["-games"]
        verbose_name = _("pair signal")
        verbose_name_plural = _("pair signals")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user_a", "user_b"], name="moderation_pair_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_a_id} and {self.user_b_id}: {self.games} games"


class ConnectionAddress(models.Model):
    """A keyed hash of the address a user connected to a table from (the
    trusted proxy's; never the address itself), for same-address pairs."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="+")
    address_hash = models.CharField(max_length=64, db_index=True)
    seen_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "table", "address_hash"],
                                    name="moderation_address_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} at table {self.table_id}"


class SiteNotice(models.Model):
    """维护公告: a site-wide notice every open page shows (an operator's, e.g.
    before a deploy), from its saving until ``until`` (or until it is switched
    off). Saved or changed, it reaches every open socket at once
    (``moderation.notices``); a page loaded later shows it from the start."""

    text = models.CharField(_("text (Chinese)"), max_length=300)
    text_en = models.CharField(_("text (English)"), max_length=300, blank=True,
                               help_text=_("Shown on English pages; the Chinese text if empty."))
    active = models.BooleanField(_("shown"), default=True)
    until = models.DateTimeField(_("shown until"), null=True, blank=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                   on_delete=models.SET_NULL, related_name="+",
                                   verbose_name=_("posted by"))
    created_at = models.DateTimeField(_("posted at"), auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at"]
        verbose_name = _("site notice")
        verbose_name_plural = _("site notices")

    def __str__(self) -> str:
        return self.text

    def shown(self, now: datetime | None = None) -> bool:
        """Is it on the pages now?"""
        return self.active and (self.until is None or self.until > (now or timezone.now()))

    def as_frame(self) -> dict[str, Any]:
        """What a page shows: ``{"id", "text", "text_en", "until"}`` (ISO time or None)."""
        return {"id": self.pk, "text": self.text, "text_en": self.text_en or self.text,
                "until": self.until.isoformat() if self.until else None}
