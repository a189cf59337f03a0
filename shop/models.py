"""Shop models (DESIGN.md "Money and points", RULES.md §8–§9, §12): the coins
ledger, the catalogue, inventories, and what items leave behind (check-ins,
uses, table decorations, card counters, timer firings, drops, replays).

Write coin entries only through ``shop.ledger``, inventory rows only through
``shop.inventory``; this module defines the rows.
"""

from __future__ import annotations

from typing import ClassVar

from django.conf import settings
from django.db import models
from django.utils.translation import get_language
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
        # contests (RULES.md §12 "Coin sources")
        CHALLENGE = "challenge", _("daily challenge prize")
        TASK = "task", _("daily task")
        ACHIEVEMENT = "achievement", _("achievement")
        ARENA_ENTRY = "arena_entry", _("arena entry fee")
        ARENA_REFUND = "arena_refund", _("arena refund")
        ARENA_PRIZE = "arena_prize", _("arena prize")

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
    # the catalogue's item code (sign, timer, …); a plain code, not a
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
        ordering: ClassVar[list[str]] = ["-id"]
        indexes: ClassVar[list[models.Index]] = [
            models.Index(fields=["user", "id"], name="shop_coinentry_user_id"),
        ]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.CheckConstraint(
                condition=models.Q(balance_after__gte=0), name="shop_coinentry_balance_nonnegative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} {self.amount:+d} → {self.balance_after} ({self.reason})"


# --- wagers (RULES.md §9, §12 "Wagers"; written by shop.wagers) ------------------------


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


class Item(models.Model):
    """One catalogue entry (RULES.md §9). ``code`` is stable (tests, the API,
    ``CoinEntry.item_code``); ``price`` in coins is editable in the admin;
    gems are never ``for_sale`` and never ``stackable``. The picture is
    ``static/shop/<code>.svg``."""

    # the rating points each gem is worth
    GEMS: ClassVar[dict[str, int]] = {"gem_shard": 1, "gem_standard": 10, "gem_perfect": 100}

    code = models.CharField(_("code"), max_length=32, unique=True)
    name_zh = models.CharField(_("Chinese name"), max_length=40)
    name_en = models.CharField(_("English name"), max_length=40)
    description_zh = models.CharField(_("Chinese description"), max_length=300)
    description_en = models.CharField(_("English description"), max_length=300)
    price = models.PositiveIntegerField(_("price"))
    stackable = models.BooleanField(_("stackable"), default=True)
    for_sale = models.BooleanField(_("for sale"), default=True)
    position = models.PositiveSmallIntegerField(default=0)
    #: not columns: set by the shop page for its template (coins you lack, how many you
    #: hold, the buy form's one-time purchase key)
    short: int
    held: int
    buy_key: str

    class Meta:
        ordering: ClassVar[list[str]] = ["position", "id"]
        verbose_name = _("item")
        verbose_name_plural = _("items")

    def __str__(self) -> str:
        return f"{self.name_zh} ({self.code})"

    @property
    def name(self) -> str:
        """The name in the active language (Chinese unless English is active)."""
        return self.name_en if (get_language() or "zh").startswith("en") else self.name_zh

    @property
    def description(self) -> str:
        """The effect in the active language."""
        return (self.description_en if (get_language() or "zh").startswith("en")
                else self.description_zh)

    @property
    def picture(self) -> str:
        """The static path of the item's SVG picture."""
        return f"shop/{self.code}.svg"

    @property
    def gem_points(self) -> int:
        """Rating points a gem adds (0 for an item)."""
        return self.GEMS.get(self.code, 0)


class InventorySlot(models.Model):
    """One of a player's ``SHOP_INVENTORY_SLOTS`` slots (RULES.md §9): empty
    (``item`` null, ``count`` 0) or ``count`` of one item (gems: 1). ``armed``:
    the 定时器 in this slot is armed (one per user)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="inventory")
    slot = models.PositiveSmallIntegerField()
    item = models.ForeignKey(Item, null=True, blank=True, on_delete=models.PROTECT)
    count = models.PositiveSmallIntegerField(default=0)
    armed = models.BooleanField(default=False)

    class Meta:
        ordering: ClassVar[list[str]] = ["user", "slot"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "slot"], name="shop_slot_unique"),
            models.UniqueConstraint(fields=["user"], condition=models.Q(armed=True),
                                    name="shop_one_armed_timer"),
            models.CheckConstraint(
                condition=(models.Q(item__isnull=True, count=0)
                           | models.Q(item__isnull=False, count__gte=1, count__lte=99)),
                name="shop_slot_count"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} slot {self.slot}: {self.item_id} × {self.count}"


class CheckIn(models.Model):
    """One daily check-in (每日签到): ``day`` in SHOP_DAY_TIME_ZONE, ``streak``
    its place in the 7-day cycle (0–6)."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="check_ins")
    day = models.DateField()
    streak = models.PositiveSmallIntegerField()

    class Meta:
        ordering: ClassVar[list[str]] = ["-day"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "day"], name="shop_checkin_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} on {self.day} (streak {self.streak})"


class ItemUse(models.Model):
    """A use or purchase already carried out, by its client-made ``key``: a
    resent request with the same key returns ``result`` and acts no more."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    key = models.CharField(max_length=64)
    item_code = models.CharField(max_length=32)
    result = models.JSONField(default=dict)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "key"], name="shop_use_key"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} used {self.item_code} ({self.key})"


class TableDecor(models.Model):
    """What items did to a table: its 桌布 ``theme`` and the 招牌 protection
    of its name (``sign_by`` may rename until ``sign_until``)."""

    table = models.OneToOneField("games.Table", on_delete=models.CASCADE, related_name="decor")
    theme = models.CharField(max_length=20, default="default")
    sign_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                on_delete=models.SET_NULL, related_name="+")
    sign_item = models.CharField(max_length=32, blank=True)
    sign_until = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"table {self.table_id}: {self.theme}"


class CounterUse(models.Model):
    """A 算牌器 in force for ``user`` for ``half`` of ``game`` (RULES.md §12)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    half = models.PositiveSmallIntegerField()

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "user", "half"], name="shop_counter_once"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id}, user {self.user_id}, half {self.half}"


class TimerFiring(models.Model):
    """A 定时器 that fired: once per (game, user) (RULES.md §8, §12)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    seq = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "user"], name="shop_timer_once"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id}, user {self.user_id}, seq {self.seq}"


class Drop(models.Model):
    """An item or gem a rated game gave (``lost``: the inventory was full)."""

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="drops")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    item_code = models.CharField(max_length=32)
    cause = models.CharField(max_length=10)  # "win" | "first_out"
    lost = models.BooleanField(default=False)

    class Meta:
        ordering: ClassVar[list[str]] = ["id"]

    def __str__(self) -> str:
        return f"game {self.game_id}, user {self.user_id}: {self.item_code} ({self.cause})"


class Replay(models.Model):
    """A game saved to ``user``'s library with a 录像机; ``token`` is the
    unguessable share link's."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="replays")
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+")
    token = models.CharField(max_length=43, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering: ClassVar[list[str]] = ["-created_at"]
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["user", "game"], name="shop_replay_once"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id}, saved by user {self.user_id}"


class Hold(models.Model):
    """One player's held stake in one wager game (RULES.md §12 "Held stake").

    ``amount``: the coins held when the game started, ``min(coins, wager ×
    max(2 × stake, 20))``; ``held``: what is still held (the game's own
    payment draws it down, the game's ending releases the rest and sets
    ``released_at``). ``Profile.coins_held`` is the sum of ``held`` over the
    player's running games; only ``shop.holds`` writes either.
    """

    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="+",
                             verbose_name=_("game"))
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE,
                             related_name="+", verbose_name=_("user"))
    amount = models.PositiveBigIntegerField(_("amount held"))
    held = models.PositiveBigIntegerField(_("still held"))
    created_at = models.DateTimeField(auto_now_add=True)
    released_at = models.DateTimeField(_("released at"), null=True, blank=True)

    class Meta:
        verbose_name = _("held stake")
        verbose_name_plural = _("held stakes")
        constraints: ClassVar[list[models.BaseConstraint]] = [
            models.UniqueConstraint(fields=["game", "user"], name="shop_hold_once"),
            models.CheckConstraint(condition=models.Q(held__lte=models.F("amount")),
                                   name="shop_hold_within_amount"),
        ]

    def __str__(self) -> str:
        return f"game {self.game_id}, user {self.user_id}: {self.held} of {self.amount}"
