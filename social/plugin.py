"""What the social hall does to a game (``settings.GAME_PLUGINS``; RULES.md
§12 "Friends and blocks"): someone a table's owner blocks may not sit there
(``blocked``; asked after moderation's sanctions, before the wager's coins)."""

from __future__ import annotations

from typing import Any

from games.models import Table
from games.plugins import GamePlugin, Moment
from social import blocks


class SocialPlugin(GamePlugin):
    """Blocks at seats."""

    def check_seat(self, table: Table, user: Any, moment: Moment) -> None:
        """The owner's blocks, on sitting."""
        blocks.seat_policy(table, user, moment)
