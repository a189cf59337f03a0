from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from social import reasons


class SocialConfig(AppConfig):
    """The social hall: friends, blocks and table invites. It reads ``games`` and ``accounts``;
    neither of them, nor ``shop``, imports it. What it does to a game is
    ``social.plugin`` (listed in ``settings.GAME_PLUGINS``)."""

    name = "social"
    verbose_name = _("Friends and blocks")

    def ready(self) -> None:
        from accounts import inbox
        from social import invites

        reasons.register()
        inbox.register_kinds({invites.KIND: _(
            "%(from)s invites you to the table “%(table)s” (wager %(wager)s coins, finish-rate "
            "minimum %(min_finish_rate)s%%): join within two minutes.")})
