"""What the social hall does to a game (``settings.GAME_PLUGINS``; RULES.md
§12 "Friends and blocks"): someone a table's owner blocks may not sit there
(``blocked``; asked after moderation's sanctions, before the wager's coins).
A person's friends, blocks and requests go into their data download, and end
when their account is deleted."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User

from games.models import Table
from games.plugins import GamePlugin, Moment
from social import blocks, friends, personal


class SocialPlugin(GamePlugin):
    """Blocks at seats; a person's social rows in their data and at deletion."""

    def check_seat(self, table: Table, user: Any, moment: Moment) -> None:
        """The owner's blocks, on sitting."""
        blocks.seat_policy(table, user, moment)

    def personal_data(self, user: User) -> dict[str, Any]:
        """``friends``, ``blocks`` and ``friend_requests``."""
        return personal.social_data(user)

    def on_account_deleted(self, user: User) -> None:
        """Friendships, friend requests and blocks both ways end."""
        friends.forget(user)
        blocks.forget(user)
