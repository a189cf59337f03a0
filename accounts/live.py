"""A person's own figures, live: the coins, held coins, rating
points and level shown in the header of every page.

:func:`figures` is the one shape, rendered into the header by
:func:`accounts.context_processors.me` and sent as the ``me`` frame of the
per-user channel (docs/protocol.md "The per-user channel") by
:func:`send_figures`, the after-commit subscriber of ``me_changed`` events
(``games.events.me_changed``: the coins ledger publishes one for every
movement, rating settlement for every game's players). The frame is read after
the commit, so it shows what is committed, whichever transaction was last.
"""

from __future__ import annotations

from typing import Any

from accounts.models import Profile
from games import events


def figures(profile: Profile) -> dict[str, Any]:
    """``{"coins", "coins_held", "rating_points", "level", "title", "title_en"}``
    of ``profile``; ``coins_held`` (coins held by running wager games, RULES.md
    §12) is 0 where the profile has no such field."""
    return {
        "coins": profile.coins,
        "coins_held": getattr(profile, "coins_held", 0) or 0,
        "rating_points": profile.rating_points,
        "level": profile.level,
        "title": profile.title,
        "title_en": profile.title_en,
    }


def send_figures(event: events.MeChanged) -> None:
    """Send each person in ``event.user_ids`` a ``me`` frame with their
    :func:`figures` (one query for all of them)."""
    for profile in Profile.objects.filter(user_id__in=list(event.user_ids)):
        events.send_user(profile.user_id, {"type": "me", **figures(profile)})
