"""Signal handlers of the shop: a new account's coins come through the ledger."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import Profile
from shop import ledger


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
