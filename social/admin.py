"""Friends, blocks and tables' minimum finish rates in the admin: read-only (they
change only through ``social.friends`` / ``social.blocks`` / ``social.reputation``)."""

from typing import TypeVar

from django.contrib import admin
from django.db.models import Model
from django.http import HttpRequest

from social.models import (
    Block,
    FriendRequest,
    Friendship,
    SocialSettings,
    TableInvite,
    TableMinimum,
)

_M = TypeVar("_M", bound=Model)


class _ReadOnly(admin.ModelAdmin[_M]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: _M | None = None) -> bool:
        return False


@admin.register(Friendship)
class FriendshipAdmin(_ReadOnly[Friendship]):
    """One direction of each friendship (two rows per pair)."""

    list_display = ("user", "friend", "created_at")
    search_fields = ("user__username", "friend__username")
    list_select_related = ("user", "friend")


@admin.register(FriendRequest)
class FriendRequestAdmin(_ReadOnly[FriendRequest]):
    """Friend requests and what became of them (``silent``: to a blocker)."""

    list_display = ("from_user", "to_user", "status", "silent", "created_at", "answered_at")
    list_filter = ("status", "silent")
    search_fields = ("from_user__username", "to_user__username")
    list_select_related = ("from_user", "to_user")


@admin.register(Block)
class BlockAdmin(_ReadOnly[Block]):
    """Who blocks whom (the blocked person never sees it)."""

    list_display = ("blocker", "blocked", "created_at")
    search_fields = ("blocker__username", "blocked__username")
    list_select_related = ("blocker", "blocked")


@admin.register(TableInvite)
class TableInviteAdmin(_ReadOnly[TableInvite]):
    """Invites to a table (a grant to one person; ``social.invites``)."""

    list_display = ("table", "from_user", "to_user", "status", "created_at", "expires_at")
    list_filter = ("status",)
    search_fields = ("from_user__username", "to_user__username")


@admin.register(SocialSettings)
class SocialSettingsAdmin(_ReadOnly[SocialSettings]):
    """A person's social settings (invites from anyone, online notices)."""

    list_display = ("user", "invites_from_anyone", "online_notices")
    search_fields = ("user__username",)


@admin.register(TableMinimum)
class TableMinimumAdmin(_ReadOnly[TableMinimum]):
    """Tables' minimum finish rates (set by their owners, ``social.reputation``)."""

    list_display = ("table", "minimum")
    list_select_related = ("table",)
