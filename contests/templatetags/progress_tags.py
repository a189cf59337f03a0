"""Template tags of the contests' panels: today's tasks (the lobby), a
player's achievements and weekly badges (the profile)."""

from __future__ import annotations

from typing import Any

from django import template

from contests import achievements, quests, weekly
from contests.models import WeeklyBadge

register = template.Library()


@register.simple_tag(takes_context=True)
def daily_tasks(context: dict[str, Any]) -> dict[str, Any] | None:
    """:func:`contests.quests.status` of the page's logged-in user, or ``None``."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return None
    return quests.status(user.pk)


@register.simple_tag
def player_achievements(user: Any) -> list[dict[str, Any]]:
    """:func:`contests.achievements.profile_list` of ``user``."""
    return achievements.profile_list(user.pk)


@register.simple_tag
def weekly_badges(user: Any) -> list[WeeklyBadge]:
    """``user``'s weekly badges, newest first."""
    return weekly.badges_of(user.pk)
