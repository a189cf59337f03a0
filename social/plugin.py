"""What the social hall does to a game (``settings.GAME_PLUGINS``; RULES.md
§12 "Friends and blocks", "Finish rate"), read top to bottom:

- at a seat: someone a table's owner blocks may not sit there (``blocked``),
  nor someone whose finish rate is below the table's minimum
  (``reputation_too_low``; asked after moderation's sanctions, before the
  wager's coins);
- at a private table's door: an accepted, unexpired invite opens it to that
  one person (``grants_entry``, :mod:`social.invites`);
- at a game's start: the table's open invites expire;
- at a game's end, each player's finish rate moves (``social.reputation``);
- table snapshots carry each seat's finish rate and the table's minimum, lobby
  rows the owner's rate and the minimum; the table socket takes
  ``set_min_finish_rate``; the lobby's create form its minimum;
- a blocker's table sockets are not sent the chat lines and quick phrases of
  those they block (``chat_hidden``), a moderator's lines excepted;
- quick start leaves out the tables where someone you block, or who blocks
  you, sits (``quick_start_tables``);
- the table page: the seat menu's block, the warnings before sitting
  (``social/reputation.js``), the 邀请好友 box and the add-friend menu of a
  seat (``social/table.js``); the lobby: the friends panel; a profile: the
  friend button, the finish rate and escapes;
- when someone comes online: their friends who asked are told (:mod:`social.online`);
- a person's friends, blocks and requests go into their data download, and end
  when their account is deleted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import User

from games.models import Game, Table
from games.plugins import GameEnd, GamePlugin, Moment, Slot, SocketMessage
from social import blocks, friends, invites, online, personal, reputation


class SocialPlugin(GamePlugin):
    """Blocks and finish rates at seats, chat and quick start; invites, the
    friends panel, online notices; a person's social rows in their data and
    at deletion."""

    lobby_keys = ("min_finish_rate", "owner_finish_rate")

    def check_seat(self, table: Table, user: Any, moment: Moment) -> None:
        """The owner's blocks, then the table's minimum finish rate, on sitting."""
        blocks.seat_policy(table, user, moment)
        reputation.seat_policy(table, user, moment)

    def grants_entry(self, table: Table, user: Any) -> bool:
        """An accepted invite, until it expires."""
        return invites.grants(table, user)

    def on_game_start(self, game: Game) -> None:
        """The table's open invites expire (one update)."""
        invites.expire_at_start(game.table_id)

    def on_game_end(self, end: GameEnd) -> None:
        """Each player's finish record and rate."""
        reputation.record(end)

    def snapshot_keys(self, tables: list[Table], *, lobby: bool) -> dict[int, dict[str, Any]]:
        """``min_finish_rate``, ``finish_rates`` (table page) and
        ``owner_finish_rate`` (lobby rows)."""
        return reputation.table_keys(tables, lobby=lobby)

    def socket_messages(self) -> Mapping[str, SocketMessage]:
        """``set_min_finish_rate``."""
        return reputation.MESSAGES

    def on_table_opened(self, table: Table, user: Any, params: Mapping[str, Any]) -> None:
        """The create form's ``min_finish_rate``."""
        reputation.open_with_minimum(table.pk, user, params.get("min_finish_rate"))

    def chat_hidden(self, user_id: int) -> frozenset[int]:
        """Whom ``user_id`` blocks."""
        return blocks.blocked_ids(user_id)

    def quick_start_tables(self, user: Any, tables: list[Table]) -> list[Table]:
        """The tables without anyone ``user`` blocks or who blocks them."""
        return blocks.apart(user.pk, tables)

    def on_online(self, user: Any) -> None:
        """Tell the friends who asked (once a session)."""
        online.came_online(user)

    def panels(self, slot: Slot) -> Sequence[str]:
        """The table page's social panel and invite box, the create form's
        minimum, the lobby's friends panel and a row's finish rates (and their
        words for lobby.js), a profile's friend button, finish rate and
        escapes, a result row's add-friend button."""
        return {"table": ("social/_table_panel.html", "social/_table_invite.html"),
                "create_table": ("social/_create_minimum.html",),
                "profile": ("social/_profile_friend.html", "social/_profile_rate.html"),
                "lobby": ("social/_lobby_strings.html", "social/_lobby_friends.html"),
                "lobby_row": ("social/_lobby_row_rate.html",),
                "result_row": ("social/_result_friend.html",)}.get(slot, ())

    def page_modules(self) -> Sequence[str]:
        """``social/reputation.js`` (the seat menu's block, the warnings before
        sitting, the minimum) and ``social/table.js`` (invite a friend, add a
        seated player as a friend)."""
        return ("social/reputation.js", "social/table.js")

    def personal_data(self, user: User) -> dict[str, Any]:
        """``friends``, ``blocks`` and ``friend_requests``."""
        return personal.social_data(user)

    def on_account_deleted(self, user: User) -> None:
        """Friendships, friend requests, blocks and pending invites both ways end."""
        friends.forget(user)
        blocks.forget(user)
        invites.forget(user)
