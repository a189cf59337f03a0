"""How the console reads (``moderation/_audit_rows.html`` and the table and
user pages): each action by its translated name, each before/after state as
``key: value`` pairs instead of a raw dict (times in Beijing time, items by
name), seats by their compass names, game results in words."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils import dateformat, timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext_lazy as _

from games import queries, ui
from shop.models import Item

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


#: a recent game's result code (``games.queries``) → its words, as on the profile page
RESULT_NAMES = {
    queries.WIN: _("Win"), queries.LOSS: _("Loss"),
    queries.DOUBLE_CLAMP_WIN: _("Double clamp win"),
    queries.DOUBLE_CLAMP_LOSS: _("Double clamp loss"),
    queries.ESCAPED: _("Escaped"), queries.ABANDONED: _("Abandoned"),
}
#: audit keys whose values are item codes
ITEM_KEYS = {"item", "item_code"}


@register.filter
def local_time(value: Any) -> str:
    """An ISO time (``2026-12-01T09:30:00+00:00``) as ``2026-12-01 17:30`` in the
    site's time zone (Beijing, settings.TIME_ZONE); anything else: ``""``."""
    when = parse_datetime(value) if isinstance(value, str) and "T" in value else None
    if when is None or timezone.is_naive(when):
        return ""
    return dateformat.format(timezone.localtime(when), "Y-m-d H:i")


def _item_name(code: str) -> str:

    item = Item.objects.filter(code=code).first()
    return item.name if item else code


def _show(key: str, v: Any) -> str:
    if v is None or v == "" or v == {} or v == []:
        return "—"
    if isinstance(v, bool):
        return str(_("yes") if v else _("no"))
    if isinstance(v, dict):
        return "(" + "; ".join(f"{k}: {_show(k, x)}" for k, x in v.items()) + ")"
    if isinstance(v, list):
        return ", ".join(_show(key, x) for x in v)
    if isinstance(v, str):
        if key in ITEM_KEYS:
            return _item_name(v)
        if v == "forever":
            return str(_("for good"))
        return local_time(v) or v
    return str(v)


@register.filter
def audit_state(state: Any) -> str:
    """``{"name": "x", "sign": {"item": "gold_sign", "until": "…+00:00"}}`` →
    ``name: x; sign: (item: 金字招牌; until: 2026-12-01 17:30)``: times in
    Beijing time, items by name, nested values in parentheses, never raw JSON."""
    if not isinstance(state, dict):
        return "—" if state in (None, "", {}) else str(state)
    if not state:
        return "—"
    return "; ".join(f"{k}: {_show(k, v)}" for k, v in state.items())


@register.filter
def seat_name(index: int) -> str:
    """Seat 0–3 by its compass name (北 东 南 西, RULES.md §2)."""
    return ui.seat_names()[index]


@register.filter
def emoji_icons(text: str) -> str:
    """A chat line with its emoji as the site's icons (``games.ui.with_icons``)."""
    return ui.with_icons(text)


@register.filter
def game_result(code: str) -> str:
    """A recent game's result code in the current language."""
    return str(RESULT_NAMES.get(code, code))
