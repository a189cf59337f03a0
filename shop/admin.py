"""The shop in the admin: the ledger read only (DESIGN.md "Money and points"),
the catalogue's prices editable, drops and wagers read only."""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.contrib import admin
from django.http import HttpRequest

from shop.models import CoinEntry, Drop, GameWager, Item, TableWager
from yuanzi_site.admin import ViewOnlyAdmin


@admin.register(CoinEntry)
class CoinEntryAdmin(ViewOnlyAdmin):
    """Ledger entries, viewable and searchable; nobody adds, edits or deletes
    them here (coins move only through ``shop.ledger``)."""

    list_display = (
        "created_at", "user", "amount", "balance_after", "reason", "game", "table",
        "item_code", "other", "transfer_id", "note",
    )
    list_filter = ("reason", "created_at")
    search_fields = ("user__username", "other__username", "note", "item_code", "=transfer_id")
    list_select_related = ("user", "other", "game", "table")
    date_hierarchy = "created_at"
    raw_id_fields = ("user", "other", "game", "table")


@admin.register(Item)
class ItemAdmin(admin.ModelAdmin[Item]):
    """The catalogue: prices, names and descriptions are editable
    (prices are set by hand); the code is fixed once created (tests, the API and
    ledger entries name items by it), and items are never deleted here."""

    list_display = ("code", "name_zh", "name_en", "price", "stackable", "for_sale", "position")
    list_editable = ("price",)
    ordering = ("position",)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> tuple[str, ...]:
        return ("code", "stackable", "for_sale") if obj else ()

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Drop)
class DropAdmin(ViewOnlyAdmin):
    """Drops, as logged with their games (read only)."""

    list_display = ("game", "user", "item_code", "cause", "lost")
    list_filter = ("cause", "lost", "item_code")
    raw_id_fields = ("game", "user")


@admin.register(TableWager)
class TableWagerAdmin(ViewOnlyAdmin):
    """Tables' wagers, read only: they change through ``shop.wagers``."""

    list_display = ("table", "wager")
    raw_id_fields = ("table",)


@admin.register(GameWager)
class GameWagerAdmin(ViewOnlyAdmin):
    """Settled wager games: the wager and each seat's coin change, read only."""

    list_display = ("game", "wager", "coin_changes")
    raw_id_fields = ("game",)


def _register_the_rest() -> None:
    """The shop's other rows (catalogue, inventory, uses, check-ins …), view
    only: they change only through the shop's modules."""

    for model in apps.get_app_config("shop").get_models():
        if model in admin.site._registry:
            continue
        names = [f.name for f in model._meta.fields]
        options = {"list_display": names[:8],
                   "search_fields": ("user__username",) if "user" in names else ()}
        admin.site.register(model, type(f"{model.__name__}Admin", (ViewOnlyAdmin,), options))


_register_the_rest()
