"""What the games app itself plugs into a game (``settings.GAME_PLUGINS``):
the table socket's own messages (sit, ready, play, chat … in
``games.adapters.handlers``) and the deal's fairness keys in every view (RULES.md §12
"Provably fair deals", docs/fairness.md); a person's finished games in their
data download, and their waiting seat and tables when their account is deleted."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from django.contrib.auth.models import User

from games import fairness, queries, tables
from games.adapters import handlers
from games.fairness import SiteState
from games.plugins import GamePlugin, SocketMessage


class GamesPlugin(GamePlugin):
    """The core's messages and fairness, plugged in like any other app's."""

    def socket_messages(self) -> Mapping[str, SocketMessage]:
        """The table socket's own message types (docs/protocol.md)."""
        return handlers.MESSAGES

    def view_keys(self, game_id: int, state: dict[str, Any], seat: int | None,
                  user_id: int | None) -> dict[str, Any]:
        """``fairness``: the commitment and the players' seeds; the server seed
        once the game is over (``games.fairness.public``)."""
        shown = fairness.public(cast(SiteState, state))  # the hook's plain dict
        return {"fairness": shown} if shown else {}

    def personal_data(self, user: User) -> dict[str, Any]:
        """``games``: every finished game they played, with its record."""
        return {"games": queries.personal_games(user)}

    def on_account_deleted(self, user: User) -> None:
        """Out of their waiting seat; their waiting tables closed."""
        tables.leave_all(user)
