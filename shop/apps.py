from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ShopConfig(AppConfig):
    """The shop (RULES.md §9): what it does to a game is ``shop.plugin``
    (listed in ``settings.GAME_PLUGINS``); here only its refusal codes and the
    sign-up grant's signal, and its notification kinds (消息)."""

    name = "shop"
    verbose_name = _("Shop")

    def ready(self) -> None:
        # here, not at the top: these import the models, which load only after
        # every app's config (Django's app registry)
        from accounts import inbox
        from shop import reasons, signals  # noqa: F401  (signals: the sign-up grant)

        reasons.register()
        # 消息 of coins received, in the words of their notices (shop.ingame, shop.wagers),
        # and of an escaper's payment
        inbox.register_kinds({
            "timer_paid": _("%(name)s's timer fired: you receive %(coins)s coins."),
            "timer_fired": _("Your timer gave you %(seconds)s more seconds (%(fee)s coins)."),
            "wager_won": _("The wager is settled: you win %(coins)s coins."),
            "wager_lost": _("The wager is settled: you lose %(coins)s coins."),
            "escape_paid": _("%(name)s left the game: you receive %(coins)s coins."),
            "escape_fined": _("You left the game: you paid %(coins)s coins."),
        })
