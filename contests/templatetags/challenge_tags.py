"""``{% challenge_fairplay as fp %}``: the daily challenge's fair-play signals
(``contests.challenge_fairplay``) for the moderators' panel."""

from __future__ import annotations

from typing import Any

from django import template

from contests import challenge_fairplay

register = template.Library()


@register.simple_tag
def challenge_fairplay_signals() -> dict[str, Any]:
    """``{"shared": [SharedAddress …], "far_above": [FarAbove …]}``."""
    return {"shared": challenge_fairplay.shared_addresses(),
            "far_above": challenge_fairplay.far_above_usual()}
