"""Template context for every page (``TEMPLATES`` in the settings)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from accounts.live import figures
from accounts.models import Profile
from games.ui import personal_strings


def me(request: HttpRequest) -> dict[str, Any]:
    """For a logged-in user: ``me_header``, their own
    :func:`accounts.live.figures` for the header of every page (base.html; kept
    live by static/js/me.js), and ``me_strings``, its words (one query).
    Nothing for anonymous visitors."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    profile = Profile.objects.filter(user=user).first()
    if profile is None:
        return {}
    return {"me_header": figures(profile), "me_strings": personal_strings()}
