"""A person's social rows for their own data download (``GamePlugin.personal_data``,
``accounts.personal``): friends, the people they block, their pending friend
requests both ways. Read only; names only (never another person's figures)."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from social.models import Block, FriendRequest, Friendship


def social_data(user: User) -> dict[str, Any]:
    """``{"friends": [username], "blocks": [username], "friend_requests":
    {"sent": [username], "received": [username]}}`` (pending requests;
    a silent request to them, from someone they block, is left out as the
    friends page leaves it out). Four queries."""
    return {
        "friends": list(Friendship.objects.filter(user=user).order_by("friend__username")
                        .values_list("friend__username", flat=True)),
        "blocks": list(Block.objects.filter(blocker=user).order_by("blocked__username")
                       .values_list("blocked__username", flat=True)),
        "friend_requests": {
            "sent": list(FriendRequest.objects.filter(
                from_user=user, status=FriendRequest.PENDING).order_by("created_at", "pk")
                .values_list("to_user__username", flat=True)),
            "received": list(FriendRequest.objects.filter(
                to_user=user, status=FriendRequest.PENDING, silent=False)
                .order_by("created_at", "pk").values_list("from_user__username", flat=True)),
        },
    }
