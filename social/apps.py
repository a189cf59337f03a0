from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from social import reasons


class SocialConfig(AppConfig):
    """The social hall: friends and blocks. It reads ``games`` and ``accounts``;
    neither of them, nor ``shop``, imports it. What it does to a game is
    ``social.plugin`` (listed in ``settings.GAME_PLUGINS``)."""

    name = "social"
    verbose_name = _("Friends and blocks")

    def ready(self) -> None:
        from accounts import inbox  # it imports the models: only once apps are ready

        reasons.register()
        inbox.register_kinds({  # 消息 of friends (social.friends)
            "friend_request": _("%(name)s asks to be your friend."),
            "friend_accepted": _("%(name)s accepted your friend request."),
        })
