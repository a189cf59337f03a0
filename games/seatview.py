"""The per-seat game view, the read side (never writes): the one filter on every
path out of the server (DESIGN.md "server-authoritative").
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games import engine
from games.models import Game, Table


def seat_of(game: Game, user) -> int | None:
    """The seat ``user`` plays in ``game``, or ``None`` (spectator)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for i, p in enumerate(game.players):
        if p["user_id"] == user.pk:
            return i
    return None


def view_for(game: Game, seat: int | None) -> dict[str, Any]:
    """The one filter on every path out (DESIGN.md): what ``seat`` may see of ``game``.

    The engine's :func:`~games.engine.view` (own hand only, counts of the others;
    everything once the game is over) plus ``game_id``, ``players`` (names,
    levels, bots), ``time_left_ms``: milliseconds until the turn is due
    (clients' clocks are wrong, so no wall-clock instant is sent), and
    ``clock_paused``: the site is down (RULES.md §12), so ``time_left_ms`` is
    what the turn had left when it went down and does not run; for the seat
    to act, ``hints`` (its ``legal_plays`` as card lists) and ``can_pass``.
    """
    return build_view(game.pk, game.state, game.players, game.due_at, game.auto_play, seat)


def build_view(game_id, state, players, due_at, auto_play, seat) -> dict[str, Any]:
    """:func:`view_for` from a game's parts (after commit the row may have moved on).

    :param due_at: the turn's due time (datetime) or ``None``; ``auto_play``:
        four 托管 flags; ``seat``: 0–3 or ``None`` for a spectator.
    """
    v = engine.view(state, seat)
    v["game_id"] = game_id
    v["players"] = [
        {"user_id": p["user_id"], "username": p["username"], "level": p["level"], "bot": p["bot"],
         "auto_play": bool(auto_play and auto_play[i])}
        for i, p in enumerate(players)
    ]
    left, paused = None, None
    if due_at is not None and state["status"] == engine.PLAYING:
        from games import clock

        paused = clock.paused_since()  # the site is down: the clock stands still
        left = max(0, int((due_at - (paused or timezone.now())).total_seconds() * 1000))
    v["time_left_ms"] = left
    v["clock_paused"] = paused is not None
    if seat is not None and state["turn"] == seat and state["status"] == engine.PLAYING:
        # the seat's own legal plays, for the hint button (derived from its own hand only)
        table = engine.table_play(state)
        v["hints"] = [list(p.cards) for p in engine.legal_plays(state["hands"][seat], table,
                                                                  state["dao"])]
        v["can_pass"] = table is not None
    return v


def current_view(table_id: int, user) -> dict[str, Any] | None:
    """``user``'s view of the game running (or last played) at the table, or ``None``."""
    game_id = Table.objects.filter(pk=table_id).values_list("current_game", flat=True).first()
    game = Game.objects.filter(pk=game_id).first() if game_id else None
    if game is None:
        return None
    return view_for(game, seat_of(game, user))
