"""What contests do to a game (``settings.GAME_PLUGINS``; RULES.md §12)."""

from __future__ import annotations

from games.plugins import GamePlugin


class ContestsPlugin(GamePlugin):
    """The daily challenge's boards, arenas' games, tasks' and achievements'
    progress, all from game-end facts."""
