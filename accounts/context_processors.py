"""Template context for every page (``TEMPLATES`` in the settings)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from django.db.models import Count, Exists, IntegerField, OuterRef, Subquery
from django.db.models.functions import Coalesce
from django.http import HttpRequest

from accounts.live import figures
from accounts.models import Notification, Profile
from games.access import MODERATORS_GROUP
from games.ui import personal_strings


def _unread() -> Subquery:
    """The unread count of the outer profile's user, as a subquery (the index
    ``accounts_notice_unread``)."""
    counted = (Notification.objects.filter(user_id=OuterRef("user_id"), read_at__isnull=True)
               .order_by().values("user_id").annotate(n=Count("id")).values("n"))
    return Subquery(counted, output_field=IntegerField())


def me(request: HttpRequest) -> dict[str, Any]:
    """For a logged-in user: ``me_header``, their own
    :func:`accounts.live.figures` for the header of every page (base.html; kept
    live by static/js/me.js), ``me_unread``, how many of their notifications
    (消息, ``accounts.inbox``) are unread (the header's badge),
    ``me_strings``, their words, and ``me_moderator`` (the header's link to
    the console: the moderators group, or a superuser, as
    :func:`games.access.is_moderator`) — one query for all of it. Nothing for
    anonymous visitors."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}

    moderator = Group.objects.filter(name=MODERATORS_GROUP, user=OuterRef("user_id"))
    profile = (Profile.objects.filter(user=user)
               .annotate(unread=Coalesce(_unread(), 0), moderator=Exists(moderator)).first())
    if profile is None:
        return {}
    return {"me_header": figures(profile), "me_unread": profile.unread,
            "me_strings": personal_strings(),
            "me_moderator": user.is_superuser or profile.moderator}
