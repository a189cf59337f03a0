"""``{% friend_state other as state %}``: the friendship between the page's
viewer and ``other`` (a user, or a username) (``social.relations.state``: ``friends``, ``outgoing``,
``incoming``, ``none``; ``""`` for a visitor or oneself), for a profile's
friend button."""

from __future__ import annotations

from typing import Any

from django import template
from django.contrib.auth import get_user_model

from social import relations

register = template.Library()


@register.simple_tag(takes_context=True)
def friend_state(context: dict[str, Any], other: Any) -> str:
    """The viewer's friend state with ``other`` (three queries at most)."""
    request = context.get("request")
    viewer = getattr(request, "user", None)
    if isinstance(other, str):
        other = get_user_model().objects.filter(username=other, is_active=True).first()
    if viewer is None or not viewer.is_authenticated or other is None or viewer.pk == other.pk:
        return ""
    return relations.state(viewer.pk, other.pk)
