"""Account models: the player's Profile."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts import levels

STARTING_COINS = 2000


class Profile(models.Model):
    """A player's ladder standing, coins and game counts (one per user).

    Created for every new user by ``accounts.signals``. ``rating_points`` may be
    negative (RULES.md §7); ``coins`` never goes below zero, enforced by a
    database constraint (DESIGN.md "Money and points") — change it only with
    row locks or ``F()`` expressions inside the transaction that causes it.
    """

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    rating_points = models.IntegerField(_("rating points"), default=0)
    coins = models.PositiveBigIntegerField(_("coins"), default=STARTING_COINS)
    games_played = models.PositiveIntegerField(_("games played"), default=0)
    games_won = models.PositiveIntegerField(_("games won"), default=0)
    double_clamps = models.PositiveIntegerField(_("double clamps"), default=0)

    class Meta:
        verbose_name = _("profile")
        verbose_name_plural = _("profiles")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(coins__gte=0), name="accounts_profile_coins_nonnegative"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.user} ({self.rating_points})"

    @property
    def level(self) -> int:
        """Ladder level 0..16 for the current rating points (RULES.md §7)."""
        return levels.level_for(self.rating_points)

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
