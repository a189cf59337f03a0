"""The coins ledger in the admin: read only (DESIGN.md "Money and points")."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from shop.models import CoinEntry, GameWager, TableWager


@admin.register(CoinEntry)
class CoinEntryAdmin(admin.ModelAdmin):
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

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class _ReadOnly(admin.ModelAdmin):
    """Viewable only: wagers change through ``shop.wagers`` (its rules and locks)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(TableWager)
class TableWagerAdmin(_ReadOnly):
    """Tables' wagers (issue 9), read only."""

    list_display = ("table", "wager")
    raw_id_fields = ("table",)


@admin.register(GameWager)
class GameWagerAdmin(_ReadOnly):
    """Settled wager games: the wager and each seat's coin change, read only."""

    list_display = ("game", "wager", "coin_changes")
    raw_id_fields = ("game",)
