"""Blocks (屏蔽, RULES.md §12; issue 18): one-sided and silent — the blocked
person is never told, and their friend requests to the blocker stay pending
and are never shown (:mod:`social.friends`). A new block ends a friendship and
every pending request between the two.

(What a block does at tables — chat filter, seat refusals, quick start — comes
with the table integration, on the games plugin seam.)
"""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from games.errors import Refused
from social import relations
from social.friends import lock_pair, unfriend
from social.models import Block, FriendRequest

#: most people one person may block (issue 18)
BLOCK_LIMIT = 500


def block(user, other) -> bool:
    """``user`` blocks ``other``; blocking someone already blocked changes nothing.

    :returns: ``True``.
    :raises Refused: ``friend_self``; ``block_limit`` (already 500).
    """
    if user.pk == other.pk:
        raise Refused("friend_self", _("That is you."))
    with transaction.atomic():
        lock_pair(user.pk, other.pk)
        if relations.blocks(user.pk, other.pk):
            return True
        if relations.block_count(user.pk) >= BLOCK_LIMIT:
            raise Refused("block_limit", _("You may block at most %(limit)s players.")
                          % {"limit": BLOCK_LIMIT}, {"limit": BLOCK_LIMIT})
        Block.objects.create(blocker=user, blocked=other)
        unfriend(user.pk, other.pk)
        FriendRequest.objects.filter(
            status=FriendRequest.PENDING, from_user_id__in=(user.pk, other.pk),
            to_user_id__in=(user.pk, other.pk),
        ).update(status=FriendRequest.ENDED, answered_at=timezone.now())
    return True


def unblock(user, other) -> bool:
    """``user`` stops blocking ``other`` (nothing changes if they did not).
    Requests made while blocked stay undelivered.

    :returns: ``False`` (not blocked now).
    """
    with transaction.atomic():
        lock_pair(user.pk, other.pk)
        Block.objects.filter(blocker=user, blocked=other).delete()
    return False
