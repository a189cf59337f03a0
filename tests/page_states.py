"""Finished games put in place for the browser tests of the result's sentences
(tests/test_browser_page.py), run in the site's own process through
``manage.py shell -c``: the engine plays a known seed to its end with the
heuristic bot on every seat, and that state replaces the table's current game.

Seeds (found by playing them out): ``s0`` a double clamp by going out (§6 A),
``s1`` a double clamp under 60, ``s3`` a two-half game (§6).
"""

from __future__ import annotations

import random

from games import engine

SEEDS = {"clamp_out": "s0", "clamp_under": "s1", "two_halves": "s3"}


def played(seed: str, moves: int | None = None) -> dict:
    """The game of ``seed`` after ``moves`` heuristic moves (``None``: to the end)."""
    state = engine.new_game(seed, levels=[0, 0, 0, 0])
    rng = random.Random(seed)
    n = 0
    while state["status"] == engine.PLAYING and (moves is None or n < moves):
        seat = state["turn"]
        state, _ = engine.apply(state, seat, engine.heuristic_policy(engine.view(state, seat), rng))
        n += 1
    return state


def install(table_id: int, kind: str) -> None:
    """Replace table ``table_id``'s current game by a finished one of ``kind``
    (a key of :data:`SEEDS`, or ``"escape"``: seat 1 left after 12 moves), and
    tell the table's clients."""
    from games import lifecycle
    from games.models import Game, Table

    if kind == "escape":
        state = engine.abandon(played("s3", 12), "escape", 1)[0]
    else:
        state = played(SEEDS[kind])
    table = Table.objects.get(pk=table_id)
    Game.objects.filter(pk=table.current_game_id).update(
        state=state, seq=state["seq"], status=Game.OVER, due_at=None, settled=True)
    Table.objects.filter(pk=table_id).update(status=Table.WAITING)
    assert state["result"]["double_clamp"] == kind.startswith("clamp")
    lifecycle.publish("table_changed", table_id=table_id)
