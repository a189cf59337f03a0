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
        """Register the contests' reason codes and notification kinds, and
        their Celery tasks (``contests.arena_tasks``, ``contests.challenge_tasks``)."""
        # here, not at the top: these import the models (Django's app registry)
        from accounts import inbox
        from contests import (
            achievements,
            arena_reasons,
            arena_run,
            arena_tasks,
            challenge_reasons,
            challenge_tasks,
            reasons,
        )
        from moderation import roles

        reasons.register()
        arena_reasons.register()
        roles.hold("contests", ("manage_arena",))  # moderators create arenas
        challenge_reasons.register()
        inbox.register_kinds({
            "task_done": _("A daily task is done: claim its %(reward)s coins in the lobby."),
            "task_done_locked": _("A daily task is done. Its %(reward)s coins can be claimed "
                                  "once you have played %(needed)s rated games (you have "
                                  "%(rated)s)."),
            "weekly_badge": _("You finished the week of %(week)s in place %(place)s on the "
                              "weekly board (%(points)s points)."),
            "challenge_prize": _("Daily challenge %(date)s: place %(place)s, "
                                 "%(coins)s coins."),
            **achievements.notification_kinds(),
            **arena_run.KINDS,
        })
        del arena_tasks, challenge_tasks  # imported for Celery's registry
