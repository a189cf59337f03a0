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
        """Register the arenas' reason codes and notification kinds, and
        their Celery task (``contests.arena_tasks``)."""
        from accounts import inbox
        from contests import arena_reasons, arena_run, arena_tasks

        arena_reasons.register()
        inbox.register_kinds(arena_run.KINDS)
        del arena_tasks  # imported for Celery's registry
