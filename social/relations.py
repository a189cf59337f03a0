"""The read side of friends and blocks: who is whose friend, who blocks whom,
the state between two people. Never writes."""

from __future__ import annotations

from social.models import Block, FriendRequest, Friendship

FRIENDS, OUTGOING, INCOMING, NONE = "friends", "outgoing", "incoming", "none"


def are_friends(a_id: int, b_id: int) -> bool:
    """Are users ``a_id`` and ``b_id`` friends?"""
    return Friendship.objects.filter(user_id=a_id, friend_id=b_id).exists()


def blocks(blocker_id: int, blocked_id: int) -> bool:
    """Does ``blocker_id`` block ``blocked_id``?"""
    return Block.objects.filter(blocker_id=blocker_id, blocked_id=blocked_id).exists()


def friend_count(user_id: int) -> int:
    """How many friends ``user_id`` has."""
    return Friendship.objects.filter(user_id=user_id).count()


def block_count(user_id: int) -> int:
    """How many people ``user_id`` blocks."""
    return Block.objects.filter(blocker_id=user_id).count()


def pending(from_id: int, to_id: int) -> FriendRequest | None:
    """The pending request ``from_id`` → ``to_id``, if any (silent ones included)."""
    return FriendRequest.objects.filter(
        from_user_id=from_id, to_user_id=to_id, status=FriendRequest.PENDING).first()


def state(me_id: int, other_id: int) -> str:
    """The friendship between ``me_id`` and ``other_id`` as ``me_id`` sees it:
    ``"friends"``, ``"outgoing"`` (my request waits), ``"incoming"`` (theirs
    waits; never a silent one) or ``"none"``."""
    if are_friends(me_id, other_id):
        return FRIENDS
    waiting = set(FriendRequest.objects.filter(status=FriendRequest.PENDING).filter(
        from_user_id__in=(me_id, other_id), to_user_id__in=(me_id, other_id)).exclude(
        from_user_id=other_id, silent=True).values_list("from_user_id", flat=True))
    if me_id in waiting:
        return OUTGOING
    return INCOMING if other_id in waiting else NONE
