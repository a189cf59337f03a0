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
    from games import events
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
    events.publish(events.TableChanged(table_id))


def saved_replay(prefix: str, played_as: str, renamed_to: str) -> str:
    """A rated game played to its end through the services at a table named
    ``played_as`` (four new users ``{prefix}0``–``{prefix}3``, the heuristic
    move on every turn), the table renamed to ``renamed_to`` afterwards, and
    the game saved in ``{prefix}2``'s replay library (South). Returns the
    replay's share token (tests/test_browser_replay.py)."""
    import secrets

    from games import tables
    from shop.models import Replay
    from tests import helpers

    users = helpers.make_players(4, prefix)
    table = tables.create_table(users[0], played_as)
    for i, u in enumerate(users):
        tables.sit(table.pk, u, i)
    for u in users:
        tables.set_ready(table.pk, u)
    game = table.games.get()
    while helpers.fresh(game).status != game.OVER:
        helpers.play_human_turn(game)
    tables.rename(table.pk, users[0], renamed_to)
    token = secrets.token_urlsafe(32)
    Replay.objects.create(user=users[2], game=game, token=token)
    return token


def finished_practice(username: str, policy: str = "normal") -> int:
    """A practice game of ``username`` (an account signed up in the browser) with
    three ``policy`` bots, played to its end through the services: the person
    plays the heuristic move, the bots move when due (the site's own ticker may
    beat this loop to a bot's move: acting is idempotent; a person's turn is
    long, so it never acts for them). Returns the game's id
    (tests/test_browser_review.py)."""
    from django.contrib.auth import get_user_model

    from games import play, tables
    from games.models import Game
    from tests import helpers

    user = get_user_model().objects.get(username=username)
    game = Game.objects.get(pk=tables.practice(user, policy).current_game_id)
    while helpers.fresh(game).status != Game.OVER:
        game = helpers.fresh(game)
        seat = game.state["turn"]
        if seat == 0:
            helpers.play_human_turn(game)  # the ticker never acts for a person here
        else:
            helpers.force_due(game)
            play.run_due(game.pk)
    return game.pk
