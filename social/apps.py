from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class SocialConfig(AppConfig):
    """The social hall: friends and blocks. It reads ``games`` and
    ``accounts``; neither of them, nor ``shop``, imports it."""

    name = "social"
    verbose_name = _("Friends and blocks")

    def ready(self) -> None:
        from games import lifecycle
        from social import blocks, reasons

        reasons.register()
        # after suspensions and bans (5), before the wager's solvency (20)
        lifecycle.seat_policy(blocks.seat_policy, priority=15)
