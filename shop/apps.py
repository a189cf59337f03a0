from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ShopConfig(AppConfig):
    """The shop (RULES.md §9): its refusal codes, lifecycle hooks and wager
    policies are registered with the games seam at start-up."""

    name = "shop"
    verbose_name = _("Shop")

    def ready(self) -> None:
        from shop import holds, hooks, reasons, signals, wagers  # noqa: F401  (signals: the sign-up grant)

        reasons.register()
        hooks.register()
        wagers.register()  # wager tables plug into the lifecycle seam
        holds.register()  # the held stake of wager games
