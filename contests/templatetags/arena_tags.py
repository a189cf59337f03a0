"""Template tags of arenas: ``{% arena_lists as lists %}`` for the lobby's panel."""

from __future__ import annotations

from typing import Any

from django import template

from contests import arena_read

register = template.Library()


@register.simple_tag
def arena_lists() -> dict[str, list[dict[str, Any]]]:
    """Upcoming, running and recent arenas (:func:`contests.arena_read.arena_lists`)."""
    return arena_read.arena_lists()
