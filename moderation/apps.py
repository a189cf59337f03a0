from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ModerationConfig(AppConfig):
    """Moderation plugs into games through ``games.lifecycle`` (games never imports it)."""

    name = "moderation"
    verbose_name = _("Moderation")

    def ready(self) -> None:
        from games import lifecycle
        from moderation import fairplay, hooks, reasons, reports

        reasons.register()
        lifecycle.snapshot_contribution(hooks.moderators_at)
        lifecycle.chat_line_contribution(hooks.chat_lines)
        lifecycle.chat_policy(hooks.chat_policy, priority=10)
        lifecycle.seat_policy(hooks.seat_policy, priority=5)
        lifecycle.name_policy(hooks.name_policy)
        lifecycle.socket_message("report", reports.handle_report_message, rate="chat")
        lifecycle.on_connect(fairplay.remember_address)
        lifecycle.on_game_end(fairplay.on_game_end, priority=90)
