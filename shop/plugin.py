"""What the shop does to a game (``settings.GAME_PLUGINS``; RULES.md §8–§9,
§12), read top to bottom:

- at the start of a rated wager game, each player's stake is held
  (``shop.holds``), then a player whose 定时器 cannot fire under that hold
  is warned (``shop.ingame``);
- at a seat, a wager table needs ``100 × wager`` coins and takes no bots
  (``shop.wagers.seat_policy``); a Ready counts only for the wager its page
  showed (``shop.wagers.ready_check``);
- when a turn times out, an armed 定时器 extends it (``shop.ingame``);
- at the end, in this order: the wager settles (it reads the rating changes
  that ``accounts`` settled first, and draws on the holds), the holds are
  released, then drops and gems are rolled;
- the views carry the armed timer, the 算牌器's counts, the held coins and
  a finished wager game's coin changes; the table snapshots carry the 桌布,
  the 招牌 and the wager (the lobby too, which filters by wager);
- a 招牌 protects a table's name from renames but a moderator's;
- the table socket takes ``use_item``, ``reset_theme`` and ``set_wager``;
- a person's data download carries their ledger entries, inventory and
  replays (``shop.personal``);
- the pages get the wager box and the items panel (``shop/_table_panel.html``)
  and the wager box's module, the lobby its wager badges and 招牌 marks, results
  and profiles each player's coin change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import User

from games.models import Game, Table
from games.plugins import (
    GameEnd,
    GamePlugin,
    HistoryFilter,
    LobbyFilter,
    Moment,
    Slot,
    SocketMessage,
)
from shop import handlers, holds, ingame, items, personal, replays, wagers


class ShopPlugin(GamePlugin):
    """Items, wagers and the held stake."""

    lobby_keys = ("sign", "wager")

    def on_game_start(self, game: Game) -> None:
        """Hold the stakes, then warn whose 定时器 the hold leaves unable to fire."""
        holds.hold_stakes(game)
        ingame.timer_under_hold(game)

    def on_game_end(self, end: GameEnd) -> None:
        """Wagers, then holds, then drops (the order each reads the last's)."""
        wagers.settle(end)
        holds.release(end)
        ingame.drops(end)

    def personal_data(self, user: User) -> dict[str, Any]:
        """``ledger``, ``inventory`` and ``replays`` (``shop.personal``)."""
        return personal.shop_data(user)

    def on_turn_timeout(self, game: Game, seat: int) -> timedelta | None:
        """The 定时器's extension, if armed and payable."""
        return ingame.timer_timeout(game, seat)

    def check_seat(self, table: Table, user: Any, moment: Moment) -> None:
        """A wager table's solvency and no-bots rule."""
        wagers.seat_policy(table, user, moment)

    def check_ready(self, table: Table, user: User, shown: Mapping[str, Any]) -> None:
        """A Ready counts only for the wager its page showed."""
        wagers.ready_check(table, shown)

    def quick_start_tables(self, user: User, tables: list[Table]) -> list[Table]:
        """Not a wager table: coins are bet only where one chose to sit (a
        tester's quick start put a new account at a 10-coin table)."""
        return wagers.without_wager(tables)

    def view_keys(self, game_id: int, state: dict[str, Any], seat: int | None,
                  user_id: int | None) -> dict[str, Any]:
        """``coins_held``, ``armed_timer``, ``card_counter``, ``drops``, and a
        finished wager game's ``wager``, ``coin_changes`` and ``coins``."""
        return {**holds.view_keys(game_id, state, seat, user_id),
                **ingame.view_keys(game_id, state, seat, user_id),
                **wagers.view_keys(game_id, state, seat, user_id)}

    def snapshot_keys(self, tables: list[Table], *, lobby: bool) -> dict[int, dict[str, Any]]:
        """``theme`` and ``sign`` (the decor), ``wager`` and, on the table page,
        ``wager_afford`` and ``wager_stakes``."""
        out = ingame.table_keys(tables, lobby=lobby)
        for table_id, keys in wagers.table_keys(tables, lobby=lobby).items():
            out.setdefault(table_id, {}).update(keys)
        return out

    def lobby_filters(self) -> Sequence[LobbyFilter]:
        """``?wager=N``."""
        return (wagers.LOBBY_FILTER,)

    def recent_game_keys(self, user_id: int,
                         seats: dict[int, int]) -> dict[int, dict[str, Any]]:
        """``coin_change`` of a player's recent wager games; ``replay_token``
        of those already in their replays (the profile shows 已保存, not the
        录像机 button)."""
        keys = wagers.recent_game_keys(user_id, seats)
        for game_id, token in replays.saved_tokens(user_id, list(seats)).items():
            keys.setdefault(game_id, {})["replay_token"] = token
        return keys

    def history_filters(self) -> Sequence[HistoryFilter]:
        """``?wager=1`` on a player's history: settled wager games."""
        return (wagers.HISTORY_FILTER,)

    def socket_messages(self) -> Mapping[str, SocketMessage]:
        """``use_item``, ``reset_theme``, ``set_wager``."""
        return {**handlers.MESSAGES, **wagers.MESSAGES}

    def check_rename(self, table: Table, user: Any, name: str, override: bool) -> None:
        """A 招牌 protects the name (a moderator's rename clears it)."""
        items.rename_policy(table, user, name, override)

    def panels(self, slot: Slot) -> Sequence[str]:
        """The table's wager box and items panel, the lobby's wager strings and
        招牌 badges, a lobby row's wager badge, a result's or a recent game's
        coin change."""
        return {"table": ("shop/_table_panel.html",), "lobby": ("shop/_lobby_panel.html",),
                "lobby_row": ("shop/_lobby_row_wager.html",),
                "result_row": ("shop/_result_coins.html",),
                "recent_game_row": ("shop/_recent_game_coins.html",)}.get(slot, ())

    def page_modules(self) -> Sequence[str]:
        """The wager box's module."""
        return ("shop/wager.js",)
