from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ContestsConfig(AppConfig):
    """Reasons to come back (RULES.md §12): the daily duplicate challenge,
    arenas, the weekly board, daily tasks and achievements. It reads every
    app below it (games, accounts, shop, social, moderation); none of them
    imports it. What it does to a game is ``contests.plugin`` (listed in
    ``settings.GAME_PLUGINS``)."""

    name = "contests"
    verbose_name = _("Contests")
