"""The per-seat game view, the read side (never writes): the one filter on every
path out of the server (DESIGN.md "server-authoritative").
"""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from games import clock, engine, plugins, queries
from games.engine import tricks
from games.models import Game
from games.roster import players_of, seat_rows


def seat_of(game: Game, user) -> int | None:
    """The seat ``user`` plays in ``game``, or ``None`` (spectator)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    for row in seat_rows(game):
        if row.user_id == user.pk:
            return row.index
    return None


def view_for(game: Game, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see of ``game`` (``None``: a spectator).

    The engine's :func:`~games.engine.view` (own hand only, counts of the others;
    everything once the game is over) plus the site's keys, so that the page
    computes no rule itself (docs/protocol.md):

    * ``game_id``; ``players`` (per seat ``user_id``, ``username``, ``level``,
      ``bot``, ``bot_policy``, ``auto_play``);
    * ``time_left_ms``: milliseconds until the turn is due (clients' clocks are
      wrong, so no wall-clock instant is sent), ``None`` when over;
      ``clock_paused``: the site is down (RULES.md §12), so ``time_left_ms``
      is what the turn had left then and does not run;
    * ``trick_kinds``: per play of ``trick.plays``, its :func:`play_kind`
      (``None`` for a pass);
    * ``previous_trick``: the half's last completed trick
      (:func:`games.engine.tricks.previous_trick` plus ``kinds``), ``None`` before
      the first ends or once the game is over (上一轮);
    * for a seat in the running game, ``escape_penalty``: rating points it
      loses by escaping now (RULES.md §7; 0 in a practice game);
    * for the seat to act, ``hints``: its legal plays (:func:`hint`, RULES.md
      §3), and ``can_pass``;

    then the keys other apps contribute (``GamePlugin.view_keys``).
    """
    return build_view(game.pk, game.state, players_of(game), game.due_at, seat)


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


def build_view(game_id: int, state: dict[str, Any], players: list[dict[str, Any]],
               due_at, seat: int | None) -> dict[str, Any]:
    """:func:`view_for` from a game's parts (after commit the row may have moved on).

    :param players: :func:`players_of`; ``due_at``: the turn's due time
        (datetime) or ``None``; ``seat``: 0–3 or ``None`` for a spectator.
    """
    v = engine.view(state, seat)
    playing = state["status"] == engine.PLAYING
    dao = state["dao"]
    v["game_id"] = game_id
    v["players"] = [dict(p) for p in players]
    left, paused = None, None
    if due_at is not None and playing:
        paused = clock.paused_since()  # the site is down: the clock stands still
        left = max(0, int((due_at - (paused or timezone.now())).total_seconds() * 1000))
    v["time_left_ms"] = left
    v["clock_paused"] = paused is not None
    v["trick_kinds"] = [play_kind(engine.classify(cards, dao)) if cards else None
                        for _, cards in state["trick"]["plays"]]
    prev = tricks.previous_trick(state) if playing else None
    if prev is not None:
        prev["kinds"] = [play_kind(engine.classify(c, dao)) if c else None
                         for _, c in prev["plays"]]
    v["previous_trick"] = prev
    if seat is not None and playing:
        v["escape_penalty"] = (0 if state["practice"]
                               else engine.escape_penalty(state["stake"], state["half"]))
    if seat is not None and state["turn"] == seat and playing:
        # the seat's own legal plays, for the hint button (derived from its own hand only)
        table = engine.table_play(state)
        v["hints"] = [hint(p) for p in engine.legal_plays(state["hands"][seat], table, dao)]
        v["can_pass"] = table is not None
    user_id = players[seat]["user_id"] if seat is not None else None
    return plugins.add_view_keys(v, game_id, state, seat, user_id)


def current_view(table_id: int, user) -> dict[str, Any] | None:
    """``user``'s view of the game running (or last played) at the table, or ``None``."""
    game_id = queries.current_game_id(table_id)
    game = Game.objects.filter(pk=game_id).first() if game_id else None
    if game is None:
        return None
    return view_for(game, seat_of(game, user))
