"""Blocks (屏蔽, RULES.md §12): one-sided and silent — the blocked
person is never told, and their friend requests to the blocker stay pending
and are never shown (:mod:`social.friends`). A new block ends a friendship and
every pending request between the two.

At tables (RULES.md §12): the blocked person cannot sit at a table the
blocker owns (:func:`seat_policy`, ``blocked``, worded without saying who
blocked whom), and a new block stands them up from the blocker's *waiting*
tables, never from a running game. (The per-recipient chat filter and quick
start's separation come with the rest of the table integration.)
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from games import tables
from games.models import Seat, Table
from social import relations
from social.friends import lock_pair, unfriend
from social.models import Block, FriendRequest
from yuanzi_site.refusals import Refused

#: most people one person may block
BLOCK_LIMIT = 500


def block(user: User, other: User) -> bool:
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
    # after the profile locks are released: tables come before profiles in the lock order
    _stand_up_at_tables_of(user.pk, other.pk)
    return True


def _not_here() -> Refused:
    return Refused("blocked", _("You cannot sit at this table."))


def _stand_up_at_tables_of(owner_id: int, blocked_id: int) -> None:
    """Stand ``blocked_id`` up from every waiting table ``owner_id`` owns,
    each table in its own transaction under its row lock; a table whose game
    has started meanwhile is left alone."""
    table_ids = Seat.objects.filter(user_id=blocked_id, table__owner_id=owner_id,
                                    table__status=Table.WAITING).values_list("table_id", flat=True)
    for table_id in list(table_ids):
        with transaction.atomic():
            table = Table.objects.select_for_update().filter(
                pk=table_id, status=Table.WAITING).first()
            if table is not None:
                e = _not_here()
                tables.stand_up(table, [blocked_id], e.reason, str(e))


def seat_policy(table: Table, user: User | None, moment: str) -> None:
    """A seat policy (``social.plugin``): someone the table's owner
    blocks may not sit there (moment ``sit``; RULES.md §12 "Friends and
    blocks").

    :raises Refused: ``blocked``.
    """
    if moment == "sit" and user is not None and relations.blocks(table.owner_id, user.pk):
        raise _not_here()


def unblock(user: User, other: User) -> bool:
    """``user`` stops blocking ``other`` (nothing changes if they did not).
    Requests made while blocked stay undelivered.

    :returns: ``False`` (not blocked now).
    """
    with transaction.atomic():
        lock_pair(user.pk, other.pk)
        Block.objects.filter(blocker=user, blocked=other).delete()
    return False


def forget(user: User) -> int:
    """``user``'s account is being deleted (RULES.md §12, inside that
    transaction): the blocks they made and the blocks of them end; returns
    how many."""
    deleted, _ = Block.objects.filter(Q(blocker=user) | Q(blocked=user)).delete()
    return deleted
