"""Coin sources: the daily check-in (每日签到) and relief (救济金) (RULES.md §12
"Coins"). Amounts are settings (``SHOP_CHECKIN_REWARDS``,
``SHOP_RELIEF_*``); coins move through ``shop.ledger`` in the claim's
transaction, with the player's profile locked first, so two claims at once
give one.

Errors: :class:`yuanzi_site.refusals.Refused` (``already_checked_in``,
``relief_too_rich``, ``relief_too_soon``); nothing has changed when it is raised.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from shop import ledger
from shop.models import CheckIn, CoinEntry
from yuanzi_site.refusals import Refused


def today() -> date:
    """The calendar day now in ``SHOP_DAY_TIME_ZONE`` (Asia/Shanghai)."""
    return timezone.now().astimezone(ZoneInfo(settings.SHOP_DAY_TIME_ZONE)).date()


@dataclass(frozen=True)
class CheckInStatus:
    """What the next check-in gives: ``amount`` coins, ``streak`` 0–6 (the
    day of the cycle), ``available`` today or not; ``next_day``: the day
    it can be claimed."""

    available: bool
    amount: int
    streak: int
    next_day: date


def check_in_status(user: User) -> CheckInStatus:
    """The next check-in of ``user`` (read only)."""
    rewards = settings.SHOP_CHECKIN_REWARDS
    day = today()
    last = CheckIn.objects.filter(user=user).order_by("-day").first()
    if last is not None and last.day == day:
        streak = (last.streak + 1) % len(rewards)
        return CheckInStatus(False, rewards[streak], streak, day + timedelta(days=1))
    if last is not None and last.day == day - timedelta(days=1):
        streak = (last.streak + 1) % len(rewards)
    else:
        streak = 0  # first check-in, or a day was missed: the cycle restarts
    return CheckInStatus(True, rewards[streak], streak, day)


def check_in(user: User) -> CoinEntry:
    """Claim today's check-in: ``SHOP_CHECKIN_REWARDS[streak]`` coins, reason
    ``checkin``.

    :returns: the ledger entry.
    :raises Refused: ``already_checked_in`` when today's was claimed.
    """
    with transaction.atomic():
        ledger.lock_balances([user])  # serialises this user's claims
        status = check_in_status(user)
        if not status.available:
            raise Refused("already_checked_in",
                          _("You have checked in today. Come back tomorrow."))
        CheckIn.objects.create(user=user, day=today(), streak=status.streak)
        return ledger.credit(user, status.amount, ledger.Reason.CHECKIN,
                             note=f"day {status.streak + 1}")


@dataclass(frozen=True)
class ReliefStatus:
    """Relief for a player: ``available`` now; ``amount``; ``poor``: under
    ``SHOP_RELIEF_BELOW`` coins; ``next_at``: when the 24 h since the last
    claim are over (``None``: no claim in the window)."""

    available: bool
    amount: int
    poor: bool
    next_at: datetime | None


def relief_status(user: User, coins: int | None = None) -> ReliefStatus:
    """Relief for ``user`` (read only); ``coins``: the balance if known."""
    if coins is None:
        coins = user.profile.coins
    since = timezone.now() - timedelta(hours=settings.SHOP_RELIEF_HOURS)
    last = (CoinEntry.objects.filter(user=user, reason=CoinEntry.Reason.RELIEF,
                                     created_at__gt=since)
            .order_by("-created_at").values_list("created_at", flat=True).first())
    next_at = last + timedelta(hours=settings.SHOP_RELIEF_HOURS) if last else None
    poor = coins < settings.SHOP_RELIEF_BELOW
    return ReliefStatus(poor and next_at is None, settings.SHOP_RELIEF_AMOUNT, poor, next_at)


def claim_relief(user: User) -> CoinEntry:
    """Claim relief: ``SHOP_RELIEF_AMOUNT`` coins, reason ``relief``.

    :raises Refused: ``relief_too_rich`` (``SHOP_RELIEF_BELOW`` coins or
        more), ``relief_too_soon`` (a claim in the last 24 h).
    """
    with transaction.atomic():
        coins = ledger.lock_balances([user])[user.pk]
        status = relief_status(user, coins)
        if not status.poor:
            raise Refused("relief_too_rich",
                          _("Relief is for players with under %(coins)s coins.")
                          % {"coins": settings.SHOP_RELIEF_BELOW})
        if not status.available:
            raise Refused("relief_too_soon",
                          _("You had relief in the last 24 hours; next from %(when)s.")
                          % {"when": timezone.localtime(status.next_at).strftime("%m-%d %H:%M")})
        return ledger.credit(user, status.amount, ledger.Reason.RELIEF)
