"""Moderation models in the admin: the audit log is read only (append-only),
the fair-play signals are computed (read only); sanctions, reports and blocked
words are listed with filters and search, read only too: they change only in
the console, which audits every change (a change here would bypass the audit
log). The admin edits the catalogue's prices, each such change audited here
like a console action (``AuditEntry.PRICE``), and the site notice (维护公告),
which records who posted it and when, and reaches every open page at once."""

from __future__ import annotations

from typing import Any, cast

from django.contrib import admin
from django.contrib.auth.models import User
from django.db import transaction
from django.forms import ModelForm
from django.http import HttpRequest

from moderation.models import (
    AuditEntry,
    BlockedWord,
    ConnectionAddress,
    PairSignal,
    Report,
    Sanction,
    SiteNotice,
)
from shop.admin import ItemAdmin
from shop.models import Item
from yuanzi_site.admin import ViewOnlyAdmin


@admin.register(AuditEntry)
class AuditEntryAdmin(ViewOnlyAdmin):
    """The audit log, view only."""

    list_display = ("created_at", "moderator_name", "action", "target_name", "table_name",
                    "reason")
    list_filter = ("action", "created_at")
    search_fields = ("moderator_name", "target_name", "table_name", "reason")
    date_hierarchy = "created_at"


@admin.register(Sanction)
class SanctionAdmin(ViewOnlyAdmin):
    """Mutes, suspensions and table bans, read only (the console imposes and lifts them,
    audited)."""

    list_display = ("created_at", "user", "kind", "table", "until", "lifted_at", "moderator")
    list_filter = ("kind", "created_at")
    search_fields = ("user__username", "moderator__username", "reason")
    raw_id_fields = ("user", "table", "moderator")


@admin.register(Report)
class ReportAdmin(ViewOnlyAdmin):
    """Players' reports, read only (the console handles them, audited)."""

    list_display = ("created_at", "reporter", "target", "category", "table", "status",
                    "handled_by")
    list_filter = ("status", "category")
    search_fields = ("reporter__username", "target__username", "note", "outcome_note")
    raw_id_fields = ("reporter", "target", "table", "game", "chat_line", "handled_by")


@admin.register(BlockedWord)
class BlockedWordAdmin(ViewOnlyAdmin):
    """The chat filter's words, read only (the console edits them, audited)."""

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


admin.site.unregister(Item)


@admin.register(Item)
class AuditedItemAdmin(ItemAdmin):
    """The catalogue as ``shop.admin.ItemAdmin`` edits it (prices, names,
    descriptions), each change written to the audit log in the same
    transaction: action ``price``, ``before``/``after`` the changed fields."""

    def save_model(self, request: HttpRequest, obj: Item, form: ModelForm[Item],
                   change: bool) -> None:
        fields = [f for f in form.changed_data if f in form.fields]
        before = {}
        if change and fields:
            old = Item.objects.filter(pk=obj.pk).values(*fields).first() or {}
            before = {f: old.get(f) for f in fields}
        after = {f: getattr(obj, f) for f in fields}
        with transaction.atomic():
            super().save_model(request, obj, form, change)
            if fields:
                moderator = cast(User, request.user)  # the admin site lets only staff in
                AuditEntry.objects.create(
                    moderator=moderator, moderator_name=moderator.get_username(),
                    action=AuditEntry.PRICE, reason=f"admin: {obj.code}",
                    before=_plain(before), after=_plain(after),
                )


def _plain(values: dict[str, Any]) -> dict[str, Any]:
    """JSON-safe values for the audit row (a lazy string or a decimal as text)."""
    return {k: v if isinstance(v, (int, bool, type(None))) else str(v) for k, v in values.items()}


@admin.register(SiteNotice)
class SiteNoticeAdmin(admin.ModelAdmin[SiteNotice]):
    """维护公告: post a notice every open page shows (e.g. before a deploy); switch
    it off (``shown``) or let ``shown until`` end it."""

    list_display = ("text", "active", "until", "created_by", "created_at")
    list_filter = ("active",)
    fields = ("text", "text_en", "active", "until", "created_by", "created_at")
    readonly_fields = ("created_by", "created_at")

    def save_model(self, request: HttpRequest, obj: SiteNotice, form: ModelForm[SiteNotice],
                   change: bool) -> None:
        """Record who posted it."""
        if not change:
            obj.created_by = cast(User, request.user)  # the admin site lets only staff in
        super().save_model(request, obj, form, change)
