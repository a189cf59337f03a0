"""Moderation models in the admin: the audit log is read only (append-only),
the fair-play signals are computed (read only); sanctions, reports and blocked
words are listed with filters and search (issue 10)."""

from __future__ import annotations

from django.contrib import admin

from games.admin import ViewOnlyAdmin
from moderation.models import (
    AuditEntry,
    BlockedWord,
    ConnectionAddress,
    PairSignal,
    Report,
    Sanction,
)


@admin.register(AuditEntry)
class AuditEntryAdmin(ViewOnlyAdmin):
    """The audit log, view only."""

    list_display = ("created_at", "moderator_name", "action", "target_name", "table_name",
                    "reason")
    list_filter = ("action", "created_at")
    search_fields = ("moderator_name", "target_name", "table_name", "reason")
    date_hierarchy = "created_at"


@admin.register(Sanction)
class SanctionAdmin(admin.ModelAdmin):
    """Mutes, suspensions and table bans (use the console to impose them: it audits)."""

    list_display = ("created_at", "user", "kind", "table", "until", "lifted_at", "moderator")
    list_filter = ("kind", "created_at")
    search_fields = ("user__username", "moderator__username", "reason")
    raw_id_fields = ("user", "table", "moderator")


@admin.register(Report)
class ReportAdmin(admin.ModelAdmin):
    """Players' reports."""

    list_display = ("created_at", "reporter", "target", "category", "table", "status",
                    "handled_by")
    list_filter = ("status", "category")
    search_fields = ("reporter__username", "target__username", "note", "outcome_note")
    raw_id_fields = ("reporter", "target", "table", "game", "chat_line", "handled_by")


@admin.register(BlockedWord)
class BlockedWordAdmin(admin.ModelAdmin):
    """The chat filter's words."""

    list_display = ("word", "added_by", "created_at")
    search_fields = ("word",)
    raw_id_fields = ("added_by",)


@admin.register(PairSignal)
class PairSignalAdmin(ViewOnlyAdmin):
    """Fair-play measures per pair, computed by the beat task."""

    list_display = ("user_a", "user_b", "games", "as_partners", "as_opponents", "opp_win_rate",
                    "coin_flow", "pass_rate", "flags", "computed_at")
    search_fields = ("user_a__username", "user_b__username")


@admin.register(ConnectionAddress)
class ConnectionAddressAdmin(ViewOnlyAdmin):
    """Keyed address hashes per user and table (never the address)."""

    list_display = ("user", "table", "address_hash", "seen_at")
    search_fields = ("user__username", "address_hash")
