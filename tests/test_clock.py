"""The turn clock through games.play (RULES.md §8, DESIGN.md "Time, bots, departures").

No worker: ``play.run_due`` and ``play.sweep_due`` are called directly. Time is
frozen (time-machine) and moves only when a test shifts it, so a turn runs out
exactly when its seconds have passed, never by waiting. Runs on SQLite
(``make test``) and PostgreSQL (``.ci/run``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from games import engine, play, seatview, tables
from games.models import Game, GameEvent
from tests.helpers import fresh, last_event, make_players, seat_row, start_game, user_at

pytestmark = pytest.mark.django_db

START = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def frozen(time_machine, settings):
    """Time stands at ``START``; ``frozen.shift(seconds)`` moves it. A human's
    turn is one second long."""
    time_machine.move_to(START, tick=False)
    settings.GAMES_TURN_SECONDS = 1
    return time_machine


@pytest.fixture
def game():
    return start_game(make_players())


def test_a_new_human_turn_is_due_after_the_turn_seconds(game):
    assert game.due_at == START + timedelta(seconds=1)


def test_a_turn_is_not_acted_on_before_it_is_due(game, frozen):
    frozen.shift(0.999)
    assert play.run_due(game.pk, game.seq) is False
    assert play.sweep_due() == 0
    after = fresh(game)
    assert after.seq == 0
    assert after.state == game.state
    assert not GameEvent.objects.filter(game=game).exists()


def test_a_turn_is_acted_on_once_its_seconds_have_passed(game, frozen):
    frozen.shift(1)  # GAMES_TURN_SECONDS = 1: the clock runs out
    assert play.run_due(game.pk, game.seq) is True
    assert fresh(game).seq == 1
    assert last_event(game).by == "clock"


def test_a_humans_timeout_plays_for_them_once(game, frozen):
    frozen.shift(1)
    assert not play.run_due(game.pk, game.seq + 1)  # a seq not yet reached does nothing
    assert play.run_due(game.pk, game.seq)
    assert not play.run_due(game.pk, game.seq)  # once
    ev = GameEvent.objects.get(game=game)
    assert ev.by == "clock"
    assert ev.seat == game.state["turn"]
    assert len(ev.action["cards"]) == 1


def test_leader_timeout_plays_one_card_of_their_hand_as_a_single(game, frozen):
    seat = game.state["turn"]
    assert game.state["trick"]["last"] is None  # the first turn is a lead
    hand = list(game.state["hands"][seat])
    frozen.shift(1)

    assert play.run_due(game.pk, game.seq) is True

    event = last_event(game)
    assert (event.seq, event.seat, event.by) == (1, seat, "clock")
    assert event.action["type"] == "play"
    [card] = event.action["cards"]
    assert card in hand
    after = fresh(game)
    assert len(after.state["hands"][seat]) == len(hand) - 1
    assert engine.table_play(after.state).kind == engine.SINGLE
    assert seat_row(after, seat).timeouts == 1
    assert seat_row(after, seat).auto_play is False


def test_follower_timeout_passes(game, frozen):
    frozen.shift(1)
    assert play.run_due(game.pk, 0)
    follower_game = fresh(game)
    follower = follower_game.state["turn"]
    hand = list(follower_game.state["hands"][follower])
    assert follower_game.due_at == START + timedelta(seconds=2)  # a whole turn of its own
    frozen.shift(1)

    assert play.run_due(game.pk, 1) is True

    event = last_event(game)
    assert (event.seq, event.seat, event.by) == (2, follower, "clock")
    assert event.action == {"type": "pass"}
    assert fresh(game).state["hands"][follower] == hand


def test_run_due_for_a_stale_seq_does_nothing(game, frozen):
    frozen.shift(1)
    assert play.run_due(game.pk, 0) is True
    frozen.shift(1)
    # the countdown task of the turn that is gone arrives late: nothing happens
    assert play.run_due(game.pk, 0) is False
    assert fresh(game).seq == 1


def test_sweep_acts_on_every_due_game_once(frozen):
    g1 = start_game(make_players(prefix="a"))
    g2 = start_game(make_players(prefix="b"))
    frozen.shift(0.5)
    g3 = start_game(make_players(prefix="c"))  # due half a second after the others
    frozen.shift(0.5)
    assert play.sweep_due() == 2
    assert [fresh(g).seq for g in (g1, g2, g3)] == [1, 1, 0]
    assert play.sweep_due() == 0  # their next turns are not due yet


def test_sweep_waits_for_a_humans_clock(table, owner, settings):
    settings.GAMES_BOT_DELAY_SECONDS = 30
    tables.sit(table.pk, owner, 0)
    for i in (1, 2, 3):
        tables.add_bot(table.pk, owner, i)
    game = tables.set_ready(table.pk, owner)
    assert play.sweep_due() == 0
    assert not play.run_due(game.pk, game.seq)
    assert Game.objects.get(pk=game.pk).seq == 0


def test_timeout_choice_is_a_card_of_the_hand_every_time(frozen):
    """Uniform-ish: not the distribution, only that each choice is in the hand."""
    for i in range(5):
        game = start_game(make_players(prefix=f"u{i}-"))
        hand = game.state["hands"][game.state["turn"]]
        frozen.shift(1)
        assert play.run_due(game.pk, 0)
        [card] = last_event(game).action["cards"]
        assert card in hand


def test_view_carries_time_left_not_a_wall_clock_instant(game, frozen):
    frozen.shift(0.25)
    for seat in (None, 0, 1, 2, 3):
        view = seatview.view_for(game, seat)
        left = view["time_left_ms"]
        assert isinstance(left, int)
        assert not isinstance(left, bool)
        assert left == 750
        assert "due_at" not in view
        assert "deadline" not in view
        text = json.dumps(view)  # plain JSON, no datetime anywhere
        assert str(game.due_at.year) + "-" not in text


def test_view_time_left_is_zero_when_overdue_and_none_when_over(game, frozen):
    frozen.shift(5)
    assert timezone.now() > game.due_at
    assert seatview.view_for(fresh(game), 0)["time_left_ms"] == 0
    over = play.escape(game.pk, user_at(game, 0))
    assert seatview.view_for(over, 0)["time_left_ms"] is None
