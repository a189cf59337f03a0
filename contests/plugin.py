"""What contests do to a game (``settings.GAME_PLUGINS``; RULES.md §12).

At a game's end, after the rating hook (levels and rated-game counts are the
game's): its facts count on each player's daily tasks and earn achievements
(``contests.gamefacts``), rated games that ended normally or by an escape only.

Arenas (``contests.arena_run``): at an arena table only the four it seated
may sit and nobody renames it; a game's start marks them playing; its end
scores arena points and re-queues them; then everyone leaves the table.
The lobby lists upcoming and running arenas; a profile's recent games say
which were arena games.

The daily challenge (``contests.challenge_play``): its boards are not tables;
one seat per person still holds, so nobody sits down while a board of theirs
is being played. A board is reviewed (复盘) once its day has closed, by the
games app's review (``contests.challenge_review``, the review kind
``"challenge"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from contests import arena, arena_read, arena_run, challenge_play, challenge_review, gamefacts
from games.plugins import GamePlugin, ReviewKind

if TYPE_CHECKING:
    from django.contrib.auth.models import User

    from games.models import Game, Table
    from games.plugins import GameEnd, Moment, Slot


class ContestsPlugin(GamePlugin):
    """The daily challenge's boards, arenas' games, tasks' and achievements'
    progress, all from game-end facts."""

    def on_game_start(self, game: Game) -> None:
        """An arena table's game began."""
        arena_run.game_started(game)

    def on_game_end(self, end: GameEnd) -> None:
        """Arena points and the re-queue; tasks' progress and achievements
        from the game's facts."""
        arena_run.game_ended(end)
        gamefacts.settle(end)

    def check_seat(self, table: Table, user: User | None, moment: Moment) -> None:
        """Arena tables: only their four sit; all leave at a game's end. One
        seat per person (RULES.md §12): no sitting down while a daily
        challenge board of the user's is being played."""
        arena_run.seat_check(table, user, moment)
        if moment == "sit" and user is not None:
            challenge_play.refuse_if_on_board(user)

    def view_keys(self, game_id: int, state: dict[str, Any], seat: int | None,
                  user_id: int | None) -> dict[str, Any]:
        """A player's view of a finished arena game: ``stood_reason``."""
        return arena_run.stood_view_keys(game_id, state, seat, user_id)

    def check_rename(self, table: Table, user: User, name: str, override: bool) -> None:
        """Arena tables keep their names (moderators excepted)."""
        arena_run.rename_check(table, override)

    def on_account_deleted(self, user: User) -> None:
        """Future arena entries end (an upcoming arena refunds its fee)."""
        arena.forget(user)

    def recent_game_keys(self, user_id: int,
                         seats: dict[int, int]) -> dict[int, dict[str, Any]]:
        """A profile's recent games: which arena each was played in."""
        return arena_read.arena_games(list(seats))

    def snapshot_keys(self, tables: list[Table], *, lobby: bool) -> dict[int, dict[str, Any]]:
        """An arena table's snapshot says so (``arena``: its id, name, page,
        the seated four's ids and when they must confirm by): the page hides
        the private room's code and invites and shows the confirm banner.
        Two queries, none when no table is private."""
        return arena_run.arena_snapshot_keys(tables)

    def review_kinds(self) -> Mapping[str, ReviewKind]:
        """复盘 of a daily challenge board, once its day has closed."""
        return {challenge_review.NAME: challenge_review.KIND}

    def page_modules(self) -> Sequence[str]:
        """The table page's arena module: a player seated at a new arena table goes there."""
        return ("contests/arena_table.js",)

    def panels(self, slot: Slot) -> Sequence[str]:
        """The table page's arena banner (confirm with ready); the lobby's
        daily challenge, tasks and arenas (countdowns); the
        profile's achievements and weekly badges; a recent game's arena badge;
        the challenge's signals on the moderators' fair-play page."""
        return {"table": ("contests/_arena_table.html",),
                "lobby": ("contests/challenge_lobby_panel.html", "contests/_lobby_tasks.html",
                          "contests/_arena_lobby.html"),
                "profile": ("contests/_profile_achievements.html",),
                "recent_game_row": ("contests/_arena_recent_game.html",),
                "mod_flags": ("contests/challenge_mod_panel.html",)}.get(slot, ())
