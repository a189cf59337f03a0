from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    """Tables and games. What this app itself plugs into a game is
    ``games.plugin``; here its transports subscribe to the write side's
    after-commit events (``games.events``)."""

    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # here, not at the top: these import the models, which load only after
        # every app's config (Django's app registry)
        from django.conf import settings

        from games import access, events, reasons, tables
        from games.adapters import broadcast, lastview, scheduler

        reasons.register()
        # one process (the in-memory layer): every change is broadcast here
        lastview.enabled = "InMemory" in settings.CHANNEL_LAYERS["default"]["BACKEND"]
        broadcast.subscribe()
        scheduler.subscribe()  # after the broadcast: the views go out first
        events.subscribe(events.PresenceExpired, tables.stand_up_expired)
        access.connect_signals()  # the cached list of moderators
