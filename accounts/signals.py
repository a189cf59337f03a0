"""Signal handlers of the accounts app."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db.models.signals import post_save
from django.dispatch import receiver

from accounts.models import Profile


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts_create_profile")
def create_profile(sender: type, instance: Any, created: bool, raw: bool = False, **_: Any) -> None:
    """Give every newly created user a Profile (0 rating points, 0 coins: the
    shop's ledger credits the sign-up coins when the Profile is saved).

    Skipped for fixture loading (``raw``), where the fixture carries profiles.
    """
    if created and not raw:
        Profile.objects.get_or_create(user=instance)
