from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class GamesConfig(AppConfig):
    name = "games"
    verbose_name = _("Games")

    def ready(self) -> None:
        # the transports subscribe to the write side's after-commit events
        from games import broadcast, fairness, handlers, lifecycle, scheduler, tables

        broadcast.subscribe()
        scheduler.subscribe()
        lifecycle.subscribe("presence_expired", tables.stand_up_expired)
        handlers.register()
        lifecycle.view_contribution(fairness.view_keys, priority=50)
