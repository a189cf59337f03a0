"""Games in the admin: tables, seats, games and their logs,
and chat, listed with filters and search. Game state, records and
event logs are read only: they change only through ``games.play``."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest

from games.models import (
    ChatMessage,
    Game,
    GameEvent,
    GameReview,
    GameSeat,
    SchedulerHeartbeat,
    Seat,
    Table,
    TutorialProgress,
)
from yuanzi_site.admin import ViewOnlyAdmin


class SeatInline(admin.TabularInline[Seat, Table]):
    model = Seat
    extra = 0
    can_delete = False
    raw_id_fields = ("user",)
    readonly_fields = ("index", "user", "is_bot", "bot_policy", "ready", "seed")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Table)
class TableAdmin(admin.ModelAdmin[Table]):
    """Tables; close them from the moderator console (/mod/), which audits."""

    list_display = ("id", "name", "owner", "status", "closed", "created_at")
    list_filter = ("status", "closed", "created_at")
    search_fields = ("name", "owner__username")
    raw_id_fields = ("owner", "current_game")
    readonly_fields = ("status", "current_game", "closed")
    inlines = (SeatInline,)


@admin.register(Seat)
class SeatAdmin(ViewOnlyAdmin):
    list_display = ("table", "index", "user", "is_bot", "bot_policy", "ready")
    list_filter = ("is_bot", "ready")
    search_fields = ("user__username", "table__name")


class GameSeatInline(admin.TabularInline[GameSeat, Game]):
    model = GameSeat
    extra = 0
    can_delete = False
    readonly_fields = ("index", "user", "username", "level", "bot", "auto_play", "timeouts")

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(ViewOnlyAdmin):
    """Games, view only (their state and rating effects come from the finisher)."""

    list_display = ("id", "table", "status", "practice", "end_reason", "seq", "started_at",
                    "ended_at")
    list_filter = ("status", "practice", "end_reason", "started_at")
    search_fields = ("=id", "table__name", "seats__username")
    inlines = (GameSeatInline,)


@admin.register(GameSeat)
class GameSeatAdmin(ViewOnlyAdmin):
    list_display = ("game", "index", "username", "level", "bot", "auto_play", "timeouts")
    list_filter = ("auto_play", "bot")
    search_fields = ("username", "=game__id")


@admin.register(GameEvent)
class GameEventAdmin(ViewOnlyAdmin):
    list_display = ("game", "seq", "seat", "by", "created_at")
    list_filter = ("by",)
    search_fields = ("=game__id",)


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin[ChatMessage]):
    """Chat as written (raw); delete a line here if it must go."""

    list_display = ("created_at", "table", "user", "text")
    search_fields = ("text", "user__username", "table__name")
    raw_id_fields = ("table", "user")
    readonly_fields = ("table", "user", "text")


@admin.register(SchedulerHeartbeat)
class SchedulerHeartbeatAdmin(ViewOnlyAdmin):
    """When the scheduler last ran (an outage pauses turn clocks, RULES.md §12)."""

    list_display = ("name", "at")


@admin.register(TutorialProgress)
class TutorialProgressAdmin(ViewOnlyAdmin):
    """Tutorial lessons accounts finished (``games.tutorial``), read only."""

    list_display = ("user", "lesson", "completed_at")
    list_filter = ("lesson",)
    search_fields = ("user__username",)
    raw_id_fields = ("user",)


@admin.register(GameReview)
class GameReviewAdmin(ViewOnlyAdmin):
    """复盘: the reviews players asked for (``games.reviews``), read only: the
    worker writes them."""

    list_display = ("kind", "ref", "seat", "user", "status", "done", "total", "created_at",
                    "finished_at")
    list_filter = ("status", "kind")
    search_fields = ("user__username",)
    raw_id_fields = ("game", "user")
