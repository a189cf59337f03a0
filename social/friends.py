"""Friends (好友, RULES.md §12): request, accept, decline, cancel,
remove. Friendship is mutual: a request accepted, or two people requesting
each other.

A request delivered to its receiver, and a request accepted, are kept in
the other person's notification centre (``accounts.inbox``, kinds
``friend_request`` and ``friend_accepted``, in the same transaction); a
silent request (to someone who blocks the sender) never is. Accepting or
declining a request (asking back included) marks its ``friend_request``
notice read, in the same transaction.

Every function takes the acting user and the other user (``User`` objects),
runs in one transaction that locks both ``Profile`` rows in ascending user id
(DESIGN.md lock order), and returns the state between them afterwards as the
actor sees it (:mod:`social.relations`: ``"friends"``, ``"outgoing"``,
``"incoming"``, ``"none"``).

:raises yuanzi_site.refusals.Refused: ``friend_self``, ``friend_limit``,
    ``already_friends``, ``no_request``, ``not_friends``, ``blocking``,
    ``rate_limited``; nothing has changed when it is raised.
"""

from __future__ import annotations

from datetime import timedelta

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts import inbox
from accounts.models import Profile
from social import relations
from social.models import FriendRequest, Friendship
from yuanzi_site.refusals import Refused

#: most friends a person may have
FRIEND_LIMIT = 200
#: most friend requests a person may send in any 24 hours
REQUESTS_PER_DAY = 20
#: where a notification about a friend request leads
FRIENDS_PAGE = "/friends/"


def lock_pair(a_id: int, b_id: int) -> None:
    """Lock both users' ``Profile`` rows, ascending user id (DESIGN.md lock
    order): every change between two people, or towards one person's limit,
    then runs one at a time."""
    list(Profile.objects.select_for_update().filter(user_id__in=(a_id, b_id))
         .order_by("user_id").values_list("pk", flat=True))


def _not_self(user: User, other: User) -> None:
    if user.pk == other.pk:
        raise Refused("friend_self", _("That is you."))


def _room_for_friends(*user_ids: int) -> None:
    for uid in user_ids:
        if relations.friend_count(uid) >= FRIEND_LIMIT:
            raise Refused("friend_limit", _("A player may have at most %(limit)s friends.")
                          % {"limit": FRIEND_LIMIT}, {"limit": FRIEND_LIMIT})


def _told(user_id: int, kind: str, other: User) -> None:
    """Keep ``kind`` (naming ``other``) in ``user_id``'s notification centre."""
    inbox.post(user_id, kind, {"name": other.username}, FRIENDS_PAGE)


def _answered(user_id: int, other: User) -> None:
    """``user_id`` answered ``other``'s request: its notice no longer counts
    as unread (other friend notices at the same link still do)."""
    inbox.mark_read_about(user_id, "friend_request", FRIENDS_PAGE, name=other.username)


def _befriend(a_id: int, b_id: int) -> None:
    Friendship.objects.bulk_create([Friendship(user_id=a_id, friend_id=b_id),
                                    Friendship(user_id=b_id, friend_id=a_id)])
    FriendRequest.objects.filter(
        status=FriendRequest.PENDING, from_user_id__in=(a_id, b_id), to_user_id__in=(a_id, b_id),
    ).update(status=FriendRequest.ACCEPTED, answered_at=timezone.now())


def request(user: User, other: User) -> str:
    """``user`` asks ``other`` to be friends.

    Already asked: nothing changes (``"outgoing"``). ``other`` already asked
    ``user``: they become friends (``"friends"``). ``other`` blocks ``user``:
    the request is made, stays pending and is never shown to ``other``
    (answered like any other, RULES.md §12).

    :returns: ``"outgoing"`` or ``"friends"``.
    :raises Refused: ``friend_self``; ``already_friends``; ``blocking`` (user
        blocks other); ``friend_limit`` (user at 200, or either one when it
        would make them friends); ``rate_limited`` (20 sent in 24 h).
    """
    _not_self(user, other)
    with transaction.atomic():
        lock_pair(user.pk, other.pk)
        if relations.are_friends(user.pk, other.pk):
            raise Refused("already_friends", _("You are already friends."))
        if relations.blocks(user.pk, other.pk):
            raise Refused("blocking", _("You block this player: unblock them first."))
        if relations.pending(user.pk, other.pk) is not None:
            return relations.OUTGOING
        if relations.pending(other.pk, user.pk) is not None:
            _room_for_friends(user.pk, other.pk)
            _befriend(user.pk, other.pk)
            _told(other.pk, "friend_accepted", user)  # their request, answered by asking back
            _answered(user.pk, other)
            return relations.FRIENDS
        since = timezone.now() - timedelta(days=1)
        if FriendRequest.objects.filter(from_user=user, created_at__gte=since).count() \
                >= REQUESTS_PER_DAY:
            raise Refused("rate_limited", _("At most %(limit)s friend requests a day.")
                          % {"limit": REQUESTS_PER_DAY}, {"limit": REQUESTS_PER_DAY})
        _room_for_friends(user.pk)
        silent = relations.blocks(other.pk, user.pk)
        FriendRequest.objects.create(from_user=user, to_user=other, silent=silent)
        if not silent:  # a blocker is never told (RULES.md §12)
            _told(other.pk, "friend_request", user)
    return relations.OUTGOING


def _incoming(user: User, other: User) -> FriendRequest:
    req = relations.pending(other.pk, user.pk)
    if req is None or req.silent:
        raise Refused("no_request", _("There is no friend request from this player."))
    return req


def accept(user: User, other: User) -> str:
    """``user`` accepts ``other``'s request: they are friends.

    :returns: ``"friends"``.
    :raises Refused: ``friend_self``; ``already_friends``; ``no_request`` (no
        request from other that user can see); ``friend_limit``.
    """
    _not_self(user, other)
    with transaction.atomic():
        lock_pair(user.pk, other.pk)
        if relations.are_friends(user.pk, other.pk):
            raise Refused("already_friends", _("You are already friends."))
        _incoming(user, other)
        _room_for_friends(user.pk, other.pk)
        _befriend(user.pk, other.pk)
        _told(other.pk, "friend_accepted", user)
        _answered(user.pk, other)
    return relations.FRIENDS


def decline(user: User, other: User) -> str:
    """``user`` declines ``other``'s request.

    :returns: ``"none"``.
    :raises Refused: ``friend_self``; ``no_request``.
    """
    _not_self(user, other)
    with transaction.atomic():
        lock_pair(user.pk, other.pk)
        req = _incoming(user, other)
        FriendRequest.objects.filter(pk=req.pk).update(
            status=FriendRequest.DECLINED, answered_at=timezone.now())
        _answered(user.pk, other)
    return relations.NONE


def cancel(user: User, other: User) -> str:
    """``user`` withdraws their request to ``other``.

    :returns: ``"none"``.
    :raises Refused: ``friend_self``; ``no_request`` (none pending to other).
    """
    _not_self(user, other)
    with transaction.atomic():
        lock_pair(user.pk, other.pk)
        req = relations.pending(user.pk, other.pk)
        if req is None:
            raise Refused("no_request", _("You have no friend request to this player."))
        FriendRequest.objects.filter(pk=req.pk).update(
            status=FriendRequest.CANCELLED, answered_at=timezone.now())
        # a withdrawn request asks nothing of the other any more
        _answered(other.pk, user)
    return relations.NONE


def remove(user: User, other: User) -> str:
    """``user`` ends the friendship with ``other`` (both sides).

    :returns: ``"none"``.
    :raises Refused: ``friend_self``; ``not_friends``.
    """
    _not_self(user, other)
    with transaction.atomic():
        lock_pair(user.pk, other.pk)
        deleted, _rows = unfriend(user.pk, other.pk)
        if not deleted:
            raise Refused("not_friends", _("This player is not your friend."))
    return relations.NONE


def unfriend(a_id: int, b_id: int) -> tuple[int, dict[str, int]]:
    """Delete the friendship's two rows (inside the caller's transaction and
    locks); returns ``QuerySet.delete()``'s answer."""
    return Friendship.objects.filter(user_id__in=(a_id, b_id), friend_id__in=(a_id, b_id)).delete()


def forget(user: User) -> int:
    """``user``'s account is being deleted (RULES.md §12, inside that
    transaction): their friendships (both rows of each) and every friend
    request to or from them end; returns how many rows went. Nobody is
    notified (a friend simply disappears from the list)."""
    Profile.objects.select_for_update().filter(user=user).first()  # as lock_pair: theirs first
    friendships, _ = Friendship.objects.filter(
        Q(user=user) | Q(friend=user)).delete()
    requests, _ = FriendRequest.objects.filter(
        Q(from_user=user) | Q(to_user=user)).delete()
    return friendships + requests
