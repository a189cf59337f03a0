from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from moderation import reasons


class ModerationConfig(AppConfig):
    """Moderation: what it does to a game is ``moderation.plugin`` (listed in
    ``settings.GAME_PLUGINS``; games never imports this app)."""

    name = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        # these import the models: only once apps are ready
        from accounts import inbox
        from moderation import notices

        reasons.register()
        notices.connect()  # a saved site notice reaches every open page
        inbox.register_kinds({  # 消息: a moderator's action on you or your report
            "moderator_kick": _("A moderator removed you from table “%(table)s” (you may sit "
                                "there again in %(minutes)s minutes): %(reason)s"),
            "muted": _("A moderator muted you in chat until %(until)s: %(reason)s"),
            "unmuted": _("A moderator lifted your mute."),
            "suspended": _("A moderator suspended your account until %(until)s: %(reason)s"),
            "suspended_forever": _("A moderator suspended your account for good: %(reason)s"),
            "unsuspended": _("A moderator lifted your suspension."),
            "coins_granted": _("A moderator gave you %(amount)s coins: %(reason)s"),
            "coins_revoked": _("A moderator took %(amount)s coins: %(reason)s"),
            "report_resolved": _("Thank you: a moderator looked at your report and took "
                                 "action."),
            "report_dismissed": _("Thank you: a moderator looked at your report and took no "
                                  "action."),
        })
