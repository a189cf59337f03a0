"""The guarded finish (``games.play.finish``): a game is finished once. Calling
the finisher again changes no rating and writes no ledger row, and a finished
game takes no move, escape or clock action."""

from __future__ import annotations

import random

import pytest

from accounts.models import Profile, RatingEntry
from games import engine, play, seatview, tables
from games.models import Game
from tests.helpers import refused

pytestmark = pytest.mark.django_db


def test_finish_runs_once(table, owner, players):
    for seat, user in enumerate(players):
        tables.sit(table.pk, user, seat)
    game = None
    for user in players:
        game = tables.set_ready(table.pk, user)
    rng = random.Random(5)
    while game.status == Game.PLAYING:
        seat = game.state["turn"]
        game = play.act(game.pk, players[seat], game.seq,
                        engine.heuristic_policy(seatview.view_for(game, seat), rng))
    game.refresh_from_db()
    assert game.settled
    before = {p.user_id: (p.rating_points, p.games_played) for p in Profile.objects.all()}
    entries = RatingEntry.objects.count()
    assert entries == 4
    assert play.finish(game) is False
    assert play.finish(Game.objects.get(pk=game.pk)) is False
    assert {p.user_id: (p.rating_points, p.games_played) for p in Profile.objects.all()} == before
    assert RatingEntry.objects.count() == entries
    assert not play.run_due(game.pk)
    refused("game_over", play.act, game.pk, owner, game.seq, {"type": "pass"})
    refused("game_over", play.escape, game.pk, owner)
