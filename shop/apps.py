from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ShopConfig(AppConfig):
    name = "shop"
    verbose_name = _("Shop")

    def ready(self) -> None:
        from shop import hooks, reasons, signals, wagers  # noqa: F401  (signals: the sign-up grant)

        reasons.register()
        hooks.register()
        wagers.register()  # wager tables plug into the lifecycle seam (issue 9)
