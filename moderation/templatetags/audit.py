"""How the audit log reads in the console (``moderation/_audit_rows.html``):
each action by its translated name, each before/after state as ``key: value``
pairs instead of a raw dict."""

from __future__ import annotations

import json
from typing import Any

from django import template
from django.utils.translation import gettext_lazy as _

register = template.Library()

#: AuditEntry.action → what the console calls it
ACTION_NAMES = {
    "close": _("close table"), "kick": _("kick"), "rename": _("rename table"),
    "mute": _("mute"), "unmute": _("lift mute"), "suspend": _("suspend"),
    "unsuspend": _("lift suspension"), "grant": _("grant coins"), "revoke": _("revoke coins"),
    "gem_cap": _("gem cap"), "report": _("report"), "words": _("blocked words"),
    "role": _("moderator role"), "price": _("catalogue change"),
}


@register.filter
def audit_action(code: str) -> str:
    """The action's name in the current language (the code itself if unknown)."""
    return str(ACTION_NAMES.get(code, code))


@register.filter
def audit_state(state: Any) -> str:
    """``{"name": "x", "sign": None}`` → ``name: x; sign: —`` (nested values as JSON)."""
    if not isinstance(state, dict):
        return "—" if state in (None, "", {}) else str(state)
    if not state:
        return "—"
    def show(v: Any) -> str:
        if v is None:
            return "—"
        return v if isinstance(v, str) else json.dumps(v, ensure_ascii=False)
    return "; ".join(f"{k}: {show(v)}" for k, v in state.items())
