from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _

from moderation import reasons


class ModerationConfig(AppConfig):
    """Moderation: what it does to a game is ``moderation.plugin`` (listed in
    ``settings.GAME_PLUGINS``; games never imports this app)."""

    name = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        from moderation import notices  # it imports the models: only once apps are ready

        reasons.register()
        notices.connect()  # a saved site notice reaches every open page
