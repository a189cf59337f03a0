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
    everything once the game is over) plus the site's keys, so the page computes
    no rule itself (docs/protocol.md):

    * ``game_id``; ``players`` (user ids, names, levels, bots, 托管);
    * ``time_left_ms``: milliseconds until the turn is due (clients' clocks are
      wrong, so no wall-clock instant is sent), ``None`` when over;
    * ``trick_kinds``: per play of ``trick.plays``, its :func:`play_kind`
      (``None`` for a pass);
    * for a seat in the running game, ``escape_penalty``: rating points it
      loses by escaping now (RULES.md §7; 0 in a practice game);
    * for the seat to act, ``hints``: its legal plays (:func:`hint`, RULES.md
      §3), and ``can_pass``.
    """
    return build_view(game.pk, game.state, game.players, game.due_at, game.auto_play, seat)


def play_kind(play: engine.Play) -> dict[str, Any]:
    """How a play is named (RULES.md §3): ``{"kind": one of engine.KINDS,
    "rank": the rank it plays as ("3" for jokers alone and the joker atoms),
    "jokers": jokers in it}``; the page adds the atom's suit from its cards."""
    return {"kind": play.kind, "rank": play.rank, "jokers": play.jokers}


def hint(play: engine.Play) -> dict[str, Any]:
    """One legal play for the seat to act: ``play_kind`` plus ``cards`` (a
    list, weakest first) and ``exact``. ``exact`` is true for an atom or a
    hydrogen bomb, where these very cards are the play (suits decide, §3);
    otherwise any ``len(cards)`` cards of ``rank`` with as many jokers make the
    same play, so the page can tell whether a selection is this hint."""
    return {"cards": list(play.cards), **play_kind(play),
            "exact": play.kind in (engine.ATOM, engine.HYDROGEN)}


def build_view(game_id, state, players, due_at, auto_play, seat) -> dict[str, Any]:
    """:func:`view_for` from a game's parts (after commit the row may have moved on).

    :param due_at: the turn's due time (datetime) or ``None``; ``auto_play``:
        four 托管 flags; ``seat``: 0–3 or ``None`` for a spectator.
    """
    v = engine.view(state, seat)
    playing = state["status"] == engine.PLAYING
    dao = state["dao"]
    v["game_id"] = game_id
    v["players"] = [
        {"user_id": p["user_id"], "username": p["username"], "level": p["level"], "bot": p["bot"],
         "auto_play": bool(auto_play and auto_play[i])}
        for i, p in enumerate(players)
    ]
    left = None
    if due_at is not None and playing:
        left = max(0, int((due_at - timezone.now()).total_seconds() * 1000))
    v["time_left_ms"] = left
    v["trick_kinds"] = [play_kind(engine.classify(cards, dao)) if cards else None
                        for _, cards in state["trick"]["plays"]]
    if seat is not None and playing:
        v["escape_penalty"] = (0 if state["practice"]
                               else engine.escape_penalty(state["stake"], state["half"]))
    if seat is not None and state["turn"] == seat and playing:
        # the seat's own legal plays, for the hint button (derived from its own hand only)
        table = engine.table_play(state)
        v["hints"] = [hint(p) for p in engine.legal_plays(state["hands"][seat], table, dao)]
        v["can_pass"] = table is not None
    return v


def current_view(table_id: int, user) -> dict[str, Any] | None:
    """``user``'s view of the game running (or last played) at the table, or ``None``."""
    game_id = Table.objects.filter(pk=table_id).values_list("current_game", flat=True).first()
    game = Game.objects.filter(pk=game_id).first() if game_id else None
    if game is None:
        return None
    return view_for(game, seat_of(game, user))
