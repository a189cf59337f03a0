from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ShopConfig(AppConfig):
    name = "shop"
    verbose_name = _("Shop")

    def ready(self) -> None:
        from shop import signals, wagers  # noqa: F401  (signals: connects the sign-up grant)

        wagers.register()  # wager tables plug into the lifecycle seam (issue 9)
