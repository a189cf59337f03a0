"""Signal handlers of the shop: a new account's coins come through the ledger,
and the new player is told about them; a write of a table's decor or wager
drops its cached copy (the table snapshots read them from the shared cache)."""

from __future__ import annotations

from typing import Any

from allauth.account.signals import user_signed_up
from django.contrib import messages
from django.db import transaction
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from django.utils.translation import gettext as _

from accounts.models import Profile
from shop import ledger
from shop.models import TableDecor, TableWager


@receiver(post_save, sender=Profile, dispatch_uid="shop_signup_grant")
def grant_signup_coins(
    sender: type, instance: Profile, created: bool, raw: bool = False, **_: Any
) -> None:
    """Credit a new Profile (created at 0 coins) with ``ledger.SIGNUP_GRANT``
    coins, reason ``signup`` (RULES.md §12 "Coins"), in the transaction that
    creates it; ``instance.coins`` is set to the new balance so the creator's
    object is current. Skipped for fixture loading (``raw``): a fixture
    carries its balances and their entries.
    """
    if created and not raw:
        with transaction.atomic():
            entry = ledger.credit(instance.user_id, ledger.SIGNUP_GRANT, ledger.Reason.SIGNUP)
        instance.coins = entry.balance_after


@receiver(user_signed_up, dispatch_uid="shop_signup_welcome")
def welcome(request: Any, user: Any, **_kw: Any) -> None:
    """Say what a new account starts with (nothing used to mention
    the sign-up coins): a message on the next page, in the visitor's language."""
    if request is not None:
        messages.success(request, _(
            "Welcome to Yuanzi online! Your account starts with %(coins)s coins: spend "
            "them in the shop on items, or on wager tables. Check in daily for more.")
            % {"coins": f"{ledger.SIGNUP_GRANT:,}"})


@receiver(post_save, sender=TableDecor, dispatch_uid="shop_decor_saved")
@receiver(post_delete, sender=TableDecor, dispatch_uid="shop_decor_deleted")
def decor_written(sender: type, instance: TableDecor, **_: Any) -> None:
    """Drop the table's cached decor now (a ``TableChanged`` published earlier
    in the transaction builds its snapshot after commit) and again once the
    write commits (a read that raced it may have stored the old row)."""
    from shop import ingame

    ingame.forget_decor(instance.table_id)
    transaction.on_commit(lambda: ingame.forget_decor(instance.table_id))


@receiver(post_save, sender=TableWager, dispatch_uid="shop_wager_saved")
@receiver(post_delete, sender=TableWager, dispatch_uid="shop_wager_deleted")
def wager_written(sender: type, instance: TableWager, **_: Any) -> None:
    """Drop the table's cached wager now and again once the write commits
    (as :func:`decor_written`)."""
    from shop import wagers

    wagers.forget_wager(instance.table_id)
    transaction.on_commit(lambda: wagers.forget_wager(instance.table_id))
