"""A game's seats as rows, and its announcement: what the writers of a game
(``games.play``, ``games.clock``) and the shop's plugin share, kept out of the
read module ``games.seatview`` so a move's path does not bounce through it.
"""

from __future__ import annotations

from games import events
from games.models import Game, GameSeat, Player


def seat_rows(game: Game) -> list[GameSeat]:
    """The game's four ``GameSeat`` rows in seat order (loaded once per instance)."""
    rows: list[GameSeat] | None = getattr(game, "_seat_rows", None)
    if rows is None:
        rows = game._seat_rows = list(GameSeat.objects.filter(game=game).order_by("index"))
    return rows


def players_of(game: Game) -> list[Player]:
    """Each seat's player as views show them (:meth:`GameSeat.as_player`)."""
    return [r.as_player() for r in seat_rows(game)]


def publish_game(game: Game) -> None:
    """Announce ``game`` as it is now (``events.GameChanged``): after commit
    every client gets its view and the next due action is scheduled."""
    events.publish(events.GameChanged(game.pk, game.table_id, game.state, players_of(game),
                                      game.due_at))
