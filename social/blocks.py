"""Blocks (屏蔽, RULES.md §12): one-sided and silent — the blocked
person is never told, and their friend requests to the blocker stay pending
and are never shown (:mod:`social.friends`). A new block ends a friendship and
every pending request between the two.

At tables (RULES.md §12): the blocked person cannot sit at a table the
blocker owns (:func:`seat_policy`, ``blocked``, worded without saying who
blocked whom), and a new block stands them up from the blocker's *waiting*
tables, never from a running game.

In chat: the blocker's table sockets are not sent the blocked person's lines
and quick phrases, live or in the history (a moderator's always are): each
socket holds its user's :func:`blocked_ids` (a shared-cache copy, so a connect
asks no query once it is warm), asked again when a block or an unblock
publishes ``events.ChatHiddenChanged``. Quick start leaves out the tables
where someone you block, or who blocks you, sits (:func:`apart`); the table
page warns before you sit beside someone you block.

A new block also ends the pending table invites between the two
(:func:`social.invites.end_between`).
"""

from __future__ import annotations

from django.contrib.auth.models import User
from django.core.cache import cache
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from games import events, tables
from games.models import Seat, Table
from social import invites, relations
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
        invites.end_between(user.pk, other.pk)
        _hidden_changed(user.pk)
    # after the profile locks are released: tables come before profiles in the lock order
    _stand_up_at_tables_of(user.pk, other.pk)
    return True


def _not_here() -> Refused:
    return Refused("blocked", lambda: _("You cannot sit at this table."))


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
                tables.stand_up(table, [blocked_id], e.reason, e.words)


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
        if Block.objects.filter(blocker=user, blocked=other).delete()[0]:
            _hidden_changed(user.pk)
    return False


def forget(user: User) -> int:
    """``user``'s account is being deleted (RULES.md §12, inside that
    transaction): the blocks they made and the blocks of them end; returns
    how many."""
    deleted, _ = Block.objects.filter(Q(blocker=user) | Q(blocked=user)).delete()
    return deleted
# --- chat and quick start ---------------------------------------------------------------

#: the shared cache's copy of whom a user blocks, dropped after every block and
#: unblock commits and filled at log-in (:func:`warm`), so a table connect
#: asks no query for it; the expiry bounds what a read racing a write can leave
BLOCKED_CACHE_SECONDS = 24 * 3600


def _blocked_key(user_id: int) -> str:
    return f"social:blocked:{user_id}"


def _hidden_changed(user_id: int) -> None:
    """After the current transaction commits: drop the cached copy, then tell
    the user's open sockets (``events.ChatHiddenChanged``)."""
    transaction.on_commit(lambda: cache.delete(_blocked_key(user_id)))
    events.publish(events.ChatHiddenChanged(user_id))


def blocked_ids(user_id: int) -> frozenset[int]:
    """The ids of everyone ``user_id`` blocks: their chat lines and quick
    phrases are not sent to ``user_id``'s table sockets (RULES.md §12). From
    the shared cache; one query when it lacks them."""
    key = _blocked_key(user_id)
    cached: list[int] | None = cache.get(key)
    if cached is None:
        cached = list(Block.objects.filter(blocker_id=user_id)
                      .values_list("blocked_id", flat=True))
        cache.set(key, cached, BLOCKED_CACHE_SECONDS)
    return frozenset(cached)


def warm(sender: object, user: User, **_: object) -> None:
    """``user_logged_in``: fill the cached copy of whom ``user`` blocks, so
    their table connects find it (``SocialConfig.ready``)."""
    cache.delete(_blocked_key(user.pk))
    blocked_ids(user.pk)


def related_ids(user_id: int) -> set[int]:
    """Everyone ``user_id`` blocks or is blocked by (one query)."""
    pairs = Block.objects.filter(Q(blocker_id=user_id) | Q(blocked_id=user_id)).values_list(
        "blocker_id", "blocked_id")
    return {a if b == user_id else b for a, b in pairs}


def apart(user_id: int, candidates: list[Table]) -> list[Table]:
    """Quick start's candidates without the tables where someone ``user_id``
    blocks, or who blocks them, sits (RULES.md §12: never seated together
    where it can be avoided — quick start then opens a table of their own).
    At most two queries."""
    others = related_ids(user_id)
    if not others or not candidates:
        return candidates
    shunned = set(Seat.objects.filter(table_id__in=[t.pk for t in candidates],
                                      user_id__in=others).values_list("table_id", flat=True))
    return [t for t in candidates if t.pk not in shunned]


def blocked_names(user_id: int) -> list[str]:
    """The names of everyone ``user_id`` blocks (at most 500; their own list)."""
    return list(Block.objects.filter(blocker_id=user_id).order_by("blocked__username")
                .values_list("blocked__username", flat=True))
