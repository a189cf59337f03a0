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

    def ready(self) -> None:
        # here, not at the top: these import the models (Django's app registry)
        from accounts import inbox
        from contests import challenge_reasons, challenge_tasks  # noqa: F401  (the task)

        challenge_reasons.register()
        inbox.register_kinds({
            "challenge_prize": _("Daily challenge %(date)s: place %(place)s, "
                                 "%(coins)s coins."),
        })
