"""What contests do to a game (``settings.GAME_PLUGINS``; RULES.md §12).

At a game's end, after the rating hook (levels and rated-game counts are the
game's): its facts count on each player's daily tasks and earn achievements
(``contests.gamefacts``), rated games that ended normally or by an escape only.
"""

from __future__ import annotations

from collections.abc import Sequence

from contests import gamefacts
from games.plugins import GameEnd, GamePlugin, Slot


class ContestsPlugin(GamePlugin):
    """The daily challenge's boards, arenas' games, tasks' and achievements'
    progress, all from game-end facts."""

    def on_game_end(self, end: GameEnd) -> None:
        """Tasks' progress and achievements from the game's facts."""
        gamefacts.settle(end)

    def panels(self, slot: Slot) -> Sequence[str]:
        """The lobby's daily tasks; the profile's achievements and weekly badges."""
        return {"lobby": ("contests/_lobby_tasks.html",),
                "profile": ("contests/_profile_achievements.html",)}.get(slot, ())
