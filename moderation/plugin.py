"""What moderation does to a game (``settings.GAME_PLUGINS``; RULES.md §12),
read top to bottom. It is first in the list: a suspension or ban is refused at
a seat before anything else is asked.

- at a seat: a suspended account does not sit or play (``suspended``); a
  player kicked from a table does not sit there again until the ban ends
  (``table_banned``), and their view of the game the kick ended says so
  (``stood_reason``);
- table names with a blocked word are refused (``blocked_word``);
- chat: a muted player's line is refused (``muted``), the rest masked; lines
  as sent carry the moderator badge and are masked again (chat is stored raw);
- table snapshots carry the moderators seated at or watching the table;
- each table connect keeps a keyed hash of its address (in the cache) and a
  game's end stores its players' (fair play: same-address signals; its
  bookkeeping depends on no order);
- the table socket takes ``report``; the table page gets the report dialog
  and its module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from games.models import Table
from games.plugins import GameEnd, GamePlugin, Moment, Slot, SocketMessage
from moderation import fairplay, hooks, reports


class ModerationPlugin(GamePlugin):
    """Sanctions, blocked words, badges, fair-play signals and reports."""

    def check_seat(self, table: Table, user: Any, moment: Moment) -> None:
        """Suspensions everywhere, table bans on sitting."""
        hooks.seat_policy(table, user, moment)

    def view_keys(self, game_id: int, state: dict[str, Any], seat: int | None,
                  user_id: int | None) -> dict[str, Any]:
        """A kicked player's view of the game their kick ended: ``stood_reason``."""
        return hooks.kicked_view_keys(game_id, state, seat, user_id)

    def check_name(self, text: str) -> None:
        """No blocked word in a table name."""
        hooks.name_policy(text)

    def filter_chat(self, table_id: int, user: Any, text: str) -> str:
        """Mutes refuse; blocked words are masked."""
        return hooks.chat_policy(table_id, user, text)

    def chat_lines(self, table_id: int, lines: list[dict[str, Any]]) -> None:
        """The moderator badge, and the blocked words masked."""
        hooks.chat_lines(table_id, lines)

    def snapshot_keys(self, tables: list[Table], *, lobby: bool) -> dict[int, dict[str, Any]]:
        """``moderators`` at each table (not in lobby rows)."""
        return {} if lobby else hooks.moderators_at(tables)

    def on_connect(self, table_id: int, user: Any, address: str | None) -> None:
        """Keep the connect's address hash (cache only: a connect storm writes nothing)."""
        fairplay.remember_address(table_id, user, address)

    def on_game_end(self, end: GameEnd) -> None:
        """Store the players' address hashes of this table."""
        fairplay.keep_addresses(end.game.table_id, [r.user_id for r in end.seats if r.user_id])

    def socket_messages(self) -> Mapping[str, SocketMessage]:
        """``report`` (rate-limited as chat)."""
        return {"report": SocketMessage(reports.handle_report_message, rate="chat")}

    def panels(self, slot: Slot) -> Sequence[str]:
        """The table page's report dialog."""
        return ("moderation/_report_dialog.html",) if slot == "table" else ()

    def page_modules(self) -> Sequence[str]:
        """The report dialog's module."""
        return ("moderation/report.js",)
