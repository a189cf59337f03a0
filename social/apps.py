from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from social import reasons


class SocialConfig(AppConfig):
    """The social hall: friends, blocks, table invites and finish rates (完成率).
    It reads ``games`` and ``accounts``; neither of them, nor ``shop``, imports it.
    What it does to a game is
    ``social.plugin`` (listed in ``settings.GAME_PLUGINS``)."""

    name = "social"
    verbose_name = _("Friends and blocks")

    def ready(self) -> None:
        from django.contrib.auth.signals import user_logged_in

        from accounts import inbox
        from social import blocks, invites, reputation

        reasons.register()
        user_logged_in.connect(blocks.warm, dispatch_uid="social_warm_blocks")
        inbox.register_kinds({
            invites.KIND: invites.invite_text,
            reputation.KIND_KEPT_OUT: _(
                "A minimum finish rate of %(minimum)s%% at table “%(table)s” stood you up."),
            # 消息 of friends (social.friends)
            "friend_request": _("%(name)s asks to be your friend."),
            "friend_accepted": _("%(name)s accepted your friend request."),
        })
