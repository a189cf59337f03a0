"""``{% load finish_rates %}``: the finish rate (完成率, ``social.reputation``)
as pages show it: ``{% finish_rate profile as rate %}`` (0–100, or ``None``
for a 新人), ``{% recent_escapes user as escapes %}`` (the last 30 days'),
``{% finish_minimums %}`` (the minimums an owner may pick) and, on the table
page, ``{% social_boot user as boot %}`` (what ``social/table.js`` starts
from)."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.translation import gettext as _

from accounts.models import Profile
from social import blocks, reputation

register = template.Library()


@register.simple_tag
def finish_rate(profile: Profile | None) -> int | None:
    """:func:`social.reputation.shown` (no query)."""
    return reputation.shown(profile)


@register.simple_tag
def recent_escapes(user: Any) -> list[dict[str, Any]]:
    """:func:`social.reputation.recent_escapes` of ``user`` (one query)."""
    return reputation.recent_escapes(user.pk)


@register.simple_tag
def finish_minimums() -> tuple[int, ...]:
    """:data:`social.reputation.MINIMUMS` (percent; 0: none)."""
    return reputation.MINIMUMS


@register.simple_tag
def social_boot(user: Any) -> dict[str, Any]:
    """The table page's social data for the viewer: ``{"finish_rate" (theirs,
    ``None`` for a 新人 or a visitor), "blocked" (the names they block, to warn
    before sitting beside one), "minimums"}`` — only ever their own."""
    if not getattr(user, "is_authenticated", False):
        return {"finish_rate": None, "blocked": [], "minimums": list(reputation.MINIMUMS)}
    profile = Profile.objects.filter(user_id=user.pk).first()
    return {"finish_rate": reputation.shown(profile),
            "blocked": blocks.blocked_names(user.pk),
            "minimums": list(reputation.MINIMUMS)}


@register.simple_tag
def social_strings() -> dict[str, str]:
    """The words of ``social/table.js`` in the page's language (a rate is
    passed with its ``%`` sign, so no message holds a bare one)."""
    return {
        "finish": _("Finish %(rate)s"),
        "newcomer": _("New player"),
        "min_none": _("No minimum finish rate"),
        "min_is": _("This table needs a finish rate of at least %(rate)s."),
        "too_low": _("Your finish rate (%(mine)s) is below this table's minimum: "
                     "you cannot sit here."),
        "any": _("any"),
        "block": _("Block"),
        "unblock": _("Unblock"),
        "block_confirm": _("Block %(name)s? You will no longer see their chat, and quick "
                           "start keeps you apart."),
        "sit_blocked": _("You block %(names)s, seated at this table. Sit down anyway?"),
        "blocked_here": _("You block this player"),
    }


@register.simple_tag
def lobby_strings() -> dict[str, str]:
    """The words of the lobby rows' finish-rate badges (``static/js/lobby.js``)."""
    return {"newcomer": _("New player"), "finish_badge": _("Finish %(rate)s"),
            "finish_min_badge": _("Needs ≥ %(rate)s")}
