"""Friends and blocks (RULES.md §12 "Friends and blocks").

Written only by :mod:`social.friends` and :mod:`social.blocks`, each inside one
transaction that locks both people's ``Profile`` rows in ascending user id
(the lock order of DESIGN.md), so two requests racing between the same pair, or
towards a limit, are carried out one after the other.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.db.models import F, Q
from django.utils.translation import gettext_lazy as _


class Friendship(models.Model):
    """One direction of a mutual friendship (好友): a friendship is always two
    rows, ``(a, b)`` and ``(b, a)``, written and deleted together, so "my
    friends" is one indexed filter on ``user``."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="friendships")
    friend = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                               related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("friendship")
        verbose_name_plural = _("friendships")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "friend"], name="social_friendship_once"),
            models.CheckConstraint(condition=~Q(user=F("friend")),
                                   name="social_friendship_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} ↔ {self.friend_id}"


class FriendRequest(models.Model):
    """A friend request (好友申请) and what became of it.

    At most one ``pending`` request per direction. Rows are kept after they are
    answered: the daily limit counts the requests a user *sent* in the last
    24 h, whatever became of them. ``silent``: sent to someone who blocks the
    sender — it stays pending and is never shown to them (RULES.md §12).
    """

    PENDING, ACCEPTED, DECLINED, CANCELLED, ENDED = (
        "pending", "accepted", "declined", "cancelled", "ended")
    STATUSES = ((PENDING, _("pending")), (ACCEPTED, _("accepted")), (DECLINED, _("declined")),
                (CANCELLED, _("cancelled")), (ENDED, _("ended by a block")))

    from_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                  related_name="friend_requests_sent")
    to_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="friend_requests_received")
    status = models.CharField(max_length=10, choices=STATUSES, default=PENDING)
    silent = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("friend request")
        verbose_name_plural = _("friend requests")
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["to_user", "status"], name="social_request_incoming"),
            models.Index(fields=["from_user", "created_at"], name="social_request_sent"),
        ]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["from_user", "to_user"], condition=Q(status="pending"),
                                    name="social_request_one_pending"),
            models.CheckConstraint(condition=~Q(from_user=F("to_user")),
                                   name="social_request_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.from_user_id} → {self.to_user_id} ({self.status})"


class Block(models.Model):
    """A block (屏蔽): one-sided and silent; the blocked person is never told."""

    blocker = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="blocks")
    blocked = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("block")
        verbose_name_plural = _("blocks")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["blocker", "blocked"], name="social_block_once"),
            models.CheckConstraint(condition=~Q(blocker=F("blocked")),
                                   name="social_block_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} ⊘ {self.blocked_id}"


class TableInvite(models.Model):
    """An invite to a table (邀请入座, RULES.md §12): a grant to one person, never
    the table's own invite token (that stays the owner's to share).

    ``pending`` until answered; ``accepted`` lets the invitee open the table
    (a private one too, ``social.invites.grants``) until ``expires_at`` (two
    minutes after it was sent) or the table's next game starts
    (``expired``), whichever comes first. ``silent``: sent to someone who
    blocks the inviter — it looks sent and is never delivered (RULES.md §12).
    """

    PENDING, ACCEPTED, DECLINED, EXPIRED = "pending", "accepted", "declined", "expired"
    STATUSES = ((PENDING, _("pending")), (ACCEPTED, _("accepted")),
                (DECLINED, _("declined")), (EXPIRED, _("expired")))

    table = models.ForeignKey("games.Table", on_delete=models.CASCADE, related_name="+")
    from_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                  related_name="table_invites_sent")
    to_user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                related_name="table_invites")
    status = models.CharField(max_length=10, choices=STATUSES, default=PENDING)
    silent = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)
    expires_at = models.DateTimeField()

    class Meta:
        verbose_name = _("table invite")
        verbose_name_plural = _("table invites")
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["to_user", "table", "status"], name="social_invite_grant"),
            models.Index(fields=["from_user", "created_at"], name="social_invite_sent"),
            models.Index(fields=["table", "status"], name="social_invite_table"),
        ]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(condition=~Q(from_user=F("to_user")),
                                   name="social_invite_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.from_user_id} → {self.to_user_id} @ {self.table_id} ({self.status})"


class SocialSettings(models.Model):
    """One person's social settings (a row only once they changed one; the
    defaults apply without it): ``invites_from_anyone`` — table invites from
    players who are not friends (on by default); ``online_notices`` — a small
    notice when a friend comes online (off by default)."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                                primary_key=True, related_name="social_settings")
    invites_from_anyone = models.BooleanField(_("invites from players who are not friends"),
                                              default=True)
    online_notices = models.BooleanField(_("tell me when a friend comes online"),
                                         default=False)

    class Meta:
        verbose_name = _("social settings")
        verbose_name_plural = _("social settings")

    def __str__(self) -> str:
        return f"{self.user_id}"


class TableMinimum(models.Model):
    """A table's minimum finish rate (完成率, RULES.md §12 "Finish rate"): one of
    ``social.reputation.MINIMUMS``; a table without a row has none. Set by the
    owner while the table waits, under its row lock (``social.reputation``)."""

    table = models.OneToOneField(
        "games.Table", primary_key=True, on_delete=models.CASCADE, related_name="min_finish",
        verbose_name=_("table"),
    )
    minimum = models.PositiveSmallIntegerField(_("minimum finish rate"), default=0)

    class Meta:
        verbose_name = _("table minimum finish rate")
        verbose_name_plural = _("table minimum finish rates")

    def __str__(self) -> str:
        return f"table {self.table_id}: {self.minimum} %"
