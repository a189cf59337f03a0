"""A friend came online (好友上线, RULES.md §12): a small ``notice`` to
each online friend who turned it on (``SocialSettings.online_notices``, off by
default).

A person comes online when a socket of theirs connects while they had no
other live one and none of theirs closed within the presence TTL
(``games.presence.arrived``): a reload, a page change or a second tab is no
arrival. (Counting from the last *connect* instead — a 15-minute key refreshed
by every page load — never announced someone who came back within the
quarter hour, and announced someone who had stayed on one page.) At most one
notice per person every :data:`SESSION_GAP_SECONDS` (a key in Django's cache,
``social:online:<user id>``, set when someone was told), so a flapping
connection never spams. Runs off the connect's counted statements
(``GamePlugin.on_online``).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.cache import cache
from django.utils.translation import gettext as _

from games import events, presence
from social.models import Friendship

#: at most one notice per person in this many seconds
SESSION_GAP_SECONDS = 5 * 60
#: the notice code (docs/protocol.md "Notice codes")
CODE = "friend_online"


def _key(user_id: int) -> str:
    return f"social:online:{user_id}"


def came_online(user: User) -> list[int]:
    """A socket of ``user``'s connected: if they just came online
    (``presence.arrived``) and were not announced in the last
    :data:`SESSION_GAP_SECONDS`, notify their online friends who want it.

    :returns: the user ids notified (``[]`` for a reload, a second tab, a
        reconnect)."""
    key = _key(user.pk)
    if not presence.arrived(user.pk) or cache.get(key) is not None:
        return []
    wanting = list(Friendship.objects.filter(
        friend_id=user.pk, user__social_settings__online_notices=True)
        .values_list("user_id", flat=True))
    told = sorted(presence.online(wanting))
    if told:
        cache.set(key, 1, SESSION_GAP_SECONDS)
    for uid in told:
        events.notify(uid, CODE, lambda: _("Your friend %(name)s is online.")
                      % {"name": user.username}, {"name": user.username})
    return told
