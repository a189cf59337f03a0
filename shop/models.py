"""Shop models: the coins ledger (DESIGN.md "Money and points", RULES.md §9, §12).

Catalogue and inventory come with the shop issue. Write entries only through
``shop.ledger``; this module defines the rows.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class CoinEntry(models.Model):
    """One movement of a player's coins; ``Profile.coins`` is the sum of them.

    ``amount`` is signed (coins, + gained, − paid); ``balance_after`` is the
    player's balance once this entry applied. The entries of one multi-party
    transfer (a wager's settlement, a 定时器's payment) share a ``transfer_id``
    and sum to zero; a single credit or debit has none. ``game`` / ``table`` /
    ``item_code`` / ``other`` name the cause where there is one. Rows are
    append-only: ``shop.ledger`` inserts them, nothing updates or deletes them
    (the user foreign key protects them).
    """

    class Reason(models.TextChoices):
        """Why coins moved (RULES.md §12 "Coins")."""

        OPENING = "opening", _("opening balance")
        SIGNUP = "signup", _("sign-up grant")
        GRANT = "grant", _("moderator grant")
        PURCHASE = "purchase", _("purchase")
        ITEM = "item", _("item effect")  # e.g. the 定时器's 270 / 3 × 90 (RULES.md §12)
        CHECKIN = "checkin", _("daily check-in")
        RELIEF = "relief", _("relief")
        WAGER = "wager", _("wager")
        ESCAPE_WAGER = "escape_wager", _("escape wager")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="coin_entries",
        verbose_name=_("user"),
    )
    amount = models.BigIntegerField(_("amount"))
    balance_after = models.PositiveBigIntegerField(_("balance after"))
    reason = models.CharField(_("reason"), max_length=16, choices=Reason.choices)
    game = models.ForeignKey(
        "games.Game", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("game"),
    )
    table = models.ForeignKey(
        "games.Table", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("table"),
    )
    # the catalogue's item code (issue 8: sign, timer, …); a plain code, not a
    # foreign key, so entries outlive catalogue edits
    item_code = models.CharField(_("item"), max_length=32, blank=True, default="")
    other = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
        related_name="+", verbose_name=_("other party"),
    )
    transfer_id = models.UUIDField(_("transfer"), null=True, blank=True, db_index=True)
    note = models.CharField(_("note"), max_length=200, blank=True, default="")
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        verbose_name = _("coin entry")
        verbose_name_plural = _("coin entries")
        ordering = ["-id"]
        indexes = [models.Index(fields=["user", "id"], name="shop_coinentry_user_id")]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(balance_after__gte=0), name="shop_coinentry_balance_nonnegative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.amount:+d} → {self.balance_after} ({self.reason})"


# --- wagers (issue 9, RULES.md §9, §12 "Wagers"; written by shop.wagers) ---------------


class TableWager(models.Model):
    """A table's coin wager (押宝): one of ``shop.wagers.LADDER``; a table
    without a row has wager 0. Changed only while the table waits, under its
    row lock, so a game's wager is the table's wager while it runs."""

    table = models.OneToOneField(
        "games.Table", primary_key=True, on_delete=models.CASCADE, related_name="wager",
        verbose_name=_("table"),
    )
    wager = models.PositiveIntegerField(_("wager"), default=0)

    class Meta:
        verbose_name = _("table wager")
        verbose_name_plural = _("table wagers")

    def __str__(self) -> str:
        return f"table {self.table_id}: {self.wager}"


class GameWager(models.Model):
    """A settled wager game's record (RULES.md §9): the ``wager`` and each
    seat's ``coin_changes`` (signed coins, seat order). Written once, by the
    settlement hook, in the transaction that ended the game; its ledger
    entries name the same game."""

    game = models.OneToOneField(
        "games.Game", primary_key=True, on_delete=models.CASCADE, related_name="wager",
        verbose_name=_("game"),
    )
    wager = models.PositiveIntegerField(_("wager"))
    coin_changes = models.JSONField(_("coin changes"))

    class Meta:
        verbose_name = _("game wager")
        verbose_name_plural = _("game wagers")

    def __str__(self) -> str:
        return f"game {self.game_id}: {self.wager} × {self.coin_changes}"
