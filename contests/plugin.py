"""What contests do to a game (``settings.GAME_PLUGINS``; RULES.md §12)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from games.plugins import GamePlugin, Moment, Slot

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.models import Table


class ContestsPlugin(GamePlugin):
    """The daily challenge's boards, arenas' games, tasks' and achievements'
    progress, all from game-end facts."""

    def check_seat(self, table: Table, user: User | None, moment: Moment) -> None:
        """One seat per person (RULES.md §12): no sitting down while a daily
        challenge board of the user's is connected (``contests.challenge_play``)."""
        if moment == "sit" and user is not None:
            from contests.challenge_play import refuse_if_on_board

            refuse_if_on_board(user)

    def panels(self, slot: Slot) -> Sequence[str]:
        """The lobby's way in to the daily challenge; its fair-play signals on
        the moderators' fair-play page."""
        return {"lobby": ("contests/challenge_lobby_panel.html",),
                "mod_flags": ("contests/challenge_mod_panel.html",)}.get(slot, ())
