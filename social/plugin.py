"""What the social hall does to a game (``settings.GAME_PLUGINS``; RULES.md
§12 "Friends and blocks", "Finish rate"), read top to bottom:

- at a seat: someone a table's owner blocks may not sit there (``blocked``),
  nor someone whose finish rate is below the table's minimum
  (``reputation_too_low``; asked after moderation's sanctions, before the
  wager's coins);
- at a game's end, each player's finish rate moves (``social.reputation``);
- table snapshots carry each seat's finish rate and the table's minimum, lobby
  rows the owner's rate and the minimum; the table socket takes
  ``set_min_finish_rate``; the lobby's create form its minimum;
- a blocker's table sockets are not sent the chat lines and quick phrases of
  those they block (``chat_hidden``), a moderator's lines excepted;
- quick start leaves out the tables where someone you block, or who blocks
  you, sits (``quick_start_tables``);
- the table page gets the seat menu's block and the warnings before sitting
  (``social/_table_panel.html``, ``social/table.js``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.models import Table
from games.plugins import GameEnd, GamePlugin, Moment, Slot, SocketMessage
from social import blocks, reputation


class SocialPlugin(GamePlugin):
    """Blocks and finish rates at seats, chat and quick start."""

    lobby_keys = ("min_finish_rate", "owner_finish_rate")

    def check_seat(self, table: Table, user: Any, moment: Moment) -> None:
        """The owner's blocks, then the table's minimum finish rate, on sitting."""
        blocks.seat_policy(table, user, moment)
        reputation.seat_policy(table, user, moment)

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

    def panels(self, slot: Slot) -> Sequence[str]:
        """The table page's social panel, the create form's minimum, a lobby
        row's finish rates (and their words for lobby.js), a profile's
        finish rate and escapes."""
        return {"table": ("social/_table_panel.html",),
                "create_table": ("social/_create_minimum.html",),
                "profile": ("social/_profile_rate.html",),
                "lobby": ("social/_lobby_strings.html",),
                "lobby_row": ("social/_lobby_row_rate.html",)}.get(slot, ())

    def page_modules(self) -> Sequence[str]:
        """The seat menu's block and the warnings before sitting."""
        return ("social/table.js",)
