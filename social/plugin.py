"""What the social hall does to a game (``settings.GAME_PLUGINS``; RULES.md
§12 "Friends and blocks"), top to bottom:

- at a seat: someone a table's owner blocks may not sit there (``blocked``;
  asked after moderation's sanctions, before the wager's coins);
- at a private table's door: an accepted, unexpired invite opens it to that
  one person (``grants_entry``, :mod:`social.invites`);
- at a game's start: the table's open invites expire;
- on the table page: the 邀请好友 box and the add-friend menu of a seat
  (``social/table.js``); in the lobby: the friends panel; on a profile: the
  friend button (add / requested / friends);
- when someone comes online: their friends who asked are told (:mod:`social.online`);
- a person's friends, blocks and requests go into their data download, and end
  when their account is deleted.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib.auth.models import User

from games.models import Game, Table
from games.plugins import GamePlugin, Moment, Slot
from social import blocks, friends, invites, online, personal


class SocialPlugin(GamePlugin):
    """Blocks at seats, invites, the friends panel, online notices; a
    person's social rows in their data and at deletion."""

    def check_seat(self, table: Table, user: Any, moment: Moment) -> None:
        """The owner's blocks, on sitting."""
        blocks.seat_policy(table, user, moment)

    def grants_entry(self, table: Table, user: Any) -> bool:
        """An accepted invite, until it expires."""
        return invites.grants(table, user)

    def on_game_start(self, game: Game) -> None:
        """The table's open invites expire (one update)."""
        invites.expire_at_start(game.table_id)

    def on_online(self, user: Any) -> None:
        """Tell the friends who asked (once a session)."""
        online.came_online(user)

    def panels(self, slot: Slot) -> Sequence[str]:
        """The lobby's friends panel; the table page's invite box; a
        profile's friend button."""
        if slot == "lobby":
            return ("social/_lobby_friends.html",)
        if slot == "table":
            return ("social/_table_invite.html",)
        if slot == "profile":
            return ("social/_profile_friend.html",)
        if slot == "result_row":
            return ("social/_result_friend.html",)
        return ()

    def page_modules(self) -> Sequence[str]:
        """``social/table.js``: invite a friend, add a seated player as a friend."""
        return ("social/table.js",)

    def personal_data(self, user: User) -> dict[str, Any]:
        """``friends``, ``blocks`` and ``friend_requests``."""
        return personal.social_data(user)

    def on_account_deleted(self, user: User) -> None:
        """Friendships, friend requests, blocks and pending invites both ways end."""
        friends.forget(user)
        blocks.forget(user)
        invites.forget(user)
