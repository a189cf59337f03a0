"""A friend came online (好友上线, RULES.md §12): a small ``notice`` to
each online friend who turned it on (``SocialSettings.online_notices``, off by
default).

A session is a run of connects less than :data:`SESSION_GAP_SECONDS` apart:
every connect of the person (a page load, a reconnect) refreshes one key in
Django's cache (``social:online:<user id>``), and only a connect that found no
key — the first after a quiet spell — tells anyone, so reconnects and page
changes never spam. Runs off the connect's counted statements
(``GamePlugin.on_online``).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.cache import cache
from django.utils.translation import gettext as _

from games import events, presence
from social.models import Friendship

#: seconds without a connect after which the next one is a new session
SESSION_GAP_SECONDS = 15 * 60
#: the notice code (docs/protocol.md "Notice codes")
CODE = "friend_online"


def _key(user_id: int) -> str:
    return f"social:online:{user_id}"


def came_online(user: User) -> list[int]:
    """``user`` connected: at the first connect of a session, notify their
    online friends who want it.

    :returns: the user ids notified (``[]`` for a reconnect)."""
    key = _key(user.pk)
    fresh = cache.get(key) is None
    cache.set(key, 1, SESSION_GAP_SECONDS)
    if not fresh:
        return []
    wanting = list(Friendship.objects.filter(
        friend_id=user.pk, user__social_settings__online_notices=True)
        .values_list("user_id", flat=True))
    told = sorted(presence.online(wanting))
    for uid in told:
        events.notify(uid, CODE, _("Your friend %(name)s is online.") % {"name": user.username},
                      {"name": user.username})
    return told
