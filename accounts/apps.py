from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    """Accounts, profiles and levels; what they do to a game is
    ``accounts.plugin`` (listed in ``settings.GAME_PLUGINS``)."""

    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        # here, not at the top: these import the models, which load only after
        # every app's config (Django's app registry)
        from accounts import live, reasons, signals  # noqa: F401  (signals: post_save)
        from games import events

        reasons.register()
        events.subscribe(events.MeChanged, live.send_figures)  # the headers' ``me`` frames
