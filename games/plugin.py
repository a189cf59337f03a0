"""What the games app itself plugs into a game (``settings.GAME_PLUGINS``):
the table socket's own messages (sit, ready, play, chat … in
``games.adapters.handlers``) and the deal's fairness keys in every view (RULES.md §12
"Provably fair deals", docs/fairness.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from games import fairness
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
