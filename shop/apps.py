from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class ShopConfig(AppConfig):
    """The shop (RULES.md §9): what it does to a game is ``shop.plugin``
    (listed in ``settings.GAME_PLUGINS``); here only its refusal codes and the
    sign-up grant's signal."""

    name = "shop"
    verbose_name = _("Shop")

    def ready(self) -> None:
        # here, not at the top: these import the models, which load only after
        # every app's config (Django's app registry)
        from shop import reasons, signals  # noqa: F401  (signals: the sign-up grant)

        reasons.register()
