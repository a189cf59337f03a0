"""Site-wide admin pieces every app's ``admin.py`` may use without reaching
into another app for them (``yuanzi_site`` is not an installed app, so the
admin does not autodiscover this module)."""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.http import HttpRequest


class ViewOnlyAdmin(admin.ModelAdmin):  # type: ignore[type-arg]
    """Listed and searchable, never added, changed or deleted here (logs,
    computed rows, money: they change only through their own modules)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        """Never: rows are written by their own modules."""
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Never (see the class)."""
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        """Never (see the class)."""
        return False
