from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "accounts"
    verbose_name = _("Accounts")

    def ready(self) -> None:
        from accounts import hooks, signals  # noqa: F401  (signals: the post_save handler)
        from games import lifecycle

        lifecycle.on_game_end(hooks.settle_rating, hooks.PRIORITY)
        from accounts import live

        lifecycle.subscribe("me_changed", live.send_figures)  # the headers' ``me`` frames
