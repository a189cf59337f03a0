"""Accounts in the admin. Coins and rating points are read only: they move only
through their ledgers (``shop.ledger``, ``RatingEntry``; DESIGN.md "Money and
points"); ``manage.py grant_coins`` is the audited way to grant coins."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from accounts.models import GemCap, LeaderboardEntry, Notification, Profile, RatingEntry
from yuanzi_site.admin import ViewOnlyAdmin


@admin.register(Profile)
class ProfileAdmin(admin.ModelAdmin[Profile]):
    """Profiles: counts editable, money and points shown read only. Profiles
    are created with their user (``accounts.signals``), never here."""

    list_display = ("user", "rating_points", "level", "coins", "games_played", "games_won")
    search_fields = ("user__username",)
    raw_id_fields = ("user",)
    # the finish rate moves only at a game's end (social.reputation): its record,
    # rate and count together, never one alone by hand
    readonly_fields = ("user", "coins", "coins_held", "rating_points", "rated_wins",
                       "finish_record", "finish_rate", "counted_games")
    ordering = ("-rating_points",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


@admin.register(RatingEntry)
class RatingEntryAdmin(ViewOnlyAdmin):
    """Rating-point movements, view only."""

    list_display = ("created_at", "user", "delta", "reason", "game")
    list_filter = ("reason",)
    search_fields = ("user__username",)
    list_select_related = ("user", "game")


@admin.register(LeaderboardEntry)
class LeaderboardEntryAdmin(ViewOnlyAdmin):
    """The ranking as last recomputed, view only."""

    list_display = ("rank", "user", "rating_points", "games_won", "computed_at")
    search_fields = ("user__username",)
    list_select_related = ("user",)


@admin.register(GemCap)
class GemCapAdmin(admin.ModelAdmin[GemCap]):
    """The gem cap: computed points read only; set the override from the
    moderator console (/mod/settings/), which audits it."""

    list_display = ("points", "override", "computed_at")
    readonly_fields = ("points", "override", "computed_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Notification)
class NotificationAdmin(ViewOnlyAdmin):
    """消息, view only: written only by ``accounts.inbox.post`` in the
    transaction of their cause."""

    list_display = ("created_at", "user", "kind", "read_at", "link")
    list_filter = ("kind",)
    search_fields = ("user__username",)
    list_select_related = ("user",)
