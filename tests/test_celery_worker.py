"""The turn clock and the bots run by a REAL Celery worker and beat (DESIGN.md
"Time, bots, departures").

The worker and beat are subprocesses (``tests/celery_fixtures.py``) on the
PostgreSQL test database and the Redis broker; they skip without
``DATABASE_URL``/``REDIS_URL`` (``.ci/run`` sets both, and CI fails on skips).
The worker's turn clock is ``WORKER_TURN_SECONDS`` (2 s). Deadlines are polled
with generous bounds (deadline + 5 s): these are not speed tests.
"""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connections
from django.utils import timezone

from games import play, tasks
from games.models import Game, GameEvent
from tests.celery_fixtures import WORKER_TURN_SECONDS, forget_queued_tasks, new_beat, new_worker
from tests.helpers import (
    force_due,
    fresh,
    make_players,
    play_human_turn,
    start_game,
    user_at,
    wait_for,
)
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db(transaction=True)

SLACK = 5  # seconds past a deadline within which the turn must have been acted on


def seq_of(game: Game) -> int:
    return Game.objects.values_list("seq", flat=True).get(pk=game.pk)


def events(game: Game) -> list[GameEvent]:
    return list(GameEvent.objects.filter(game_id=game.pk).order_by("seq"))


def wait_seq(game: Game, seq: int, timeout: float) -> Game:
    wait_for(lambda: seq_of(game) >= seq, timeout, message=f"game {game.pk} to reach seq {seq}")
    return fresh(game)


def test_countdown_task_alone_acts_when_the_turn_is_due(celery_worker):
    """Worker without beat: only the countdown task published when the turn
    started can act. A leader's timeout plays a single from their hand; the
    follower's that comes next is a pass."""
    game = start_game(make_players())  # on commit: run_due published with eta = due_at
    leader = game.state["turn"]
    hand = list(game.state["hands"][leader])
    assert game.due_at is not None

    # not before it is due
    time.sleep(max(0.0, (game.due_at - timezone.now()).total_seconds() - 0.5))
    assert seq_of(game) == 0

    wait_seq(game, 1, WORKER_TURN_SECONDS + SLACK)
    lead = events(game)[0]
    assert (lead.seq, lead.seat, lead.by) == (1, leader, "clock")
    assert lead.action["type"] == "play"
    [card] = lead.action["cards"]
    assert card in hand

    # the worker scheduled the next turn's countdown: the follower passes
    game = wait_seq(game, 2, WORKER_TURN_SECONDS + SLACK)
    follow = events(game)[1]
    assert follow.by == "clock"
    assert follow.action == {"type": "pass"}
    assert follow.seat != leader


def test_beat_sweep_alone_acts_when_the_turn_is_due(celery_worker, settings, tmp_path):
    """No countdown task is published for the game (this process schedules
    nothing and the queue is purged): only beat's every-second sweep can act."""
    settings.GAMES_SCHEDULER = "ticker"  # this process publishes no countdown
    game = start_game(make_players())
    from yuanzi_site.celery import app

    app.control.purge()
    beat = new_beat(tmp_path)
    try:
        beat.start()
        wait_seq(game, 1, WORKER_TURN_SECONDS + SLACK)
        event = events(game)[0]
        assert event.by == "clock"
        assert event.action["type"] == "play"
        assert "games.tasks.sweep_due" in beat.log()
    finally:
        beat.stop()


def test_tasks_and_sweeps_racing_on_one_turn_act_once(celery_worker, settings):
    """Many run_due tasks for the same (game, seq) and sweeps, on a 4-thread worker."""
    settings.GAMES_SCHEDULER = "ticker"  # no countdown of our own: only the racers
    game = start_game(make_players())
    force_due(game)
    for _ in range(6):
        tasks.run_due.delay(game.pk, 0)
    for _ in range(3):
        tasks.sweep_due.delay()

    wait_seq(game, 1, SLACK)
    time.sleep(0.8)  # the other racers finish; the next turn is due only in 2 s
    game = fresh(game)
    assert game.seq == 1
    assert [e.seq for e in events(game)] == [1]
    assert "IntegrityError" not in celery_worker.log()


@pytest.mark.parametrize("threads", [8])
def test_run_due_from_concurrent_connections_acts_once(celery_worker, settings, threads):
    """play.run_due from several threads, each its own PostgreSQL connection:
    the row lock and the seq check let exactly one act."""
    settings.GAMES_SCHEDULER = "ticker"
    game = start_game(make_players())
    force_due(game)
    barrier = threading.Barrier(threads)
    results: list[object] = []

    def racer() -> None:
        try:
            barrier.wait()
            results.append(play.run_due(game.pk, 0))
        except Exception as e:  # reported below
            results.append(e)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=racer) for _ in range(threads)]
    for t in workers:
        t.start()
    for t in workers:
        t.join(30)
    assert sorted(results, key=repr) == [False] * (threads - 1) + [True]
    game = fresh(game)
    assert game.seq == 1
    assert [e.seq for e in events(game)] == [1]


def holds_countdown(game_id: int, seq: int) -> bool:
    """Whether a worker holds ``run_due(game_id, seq)`` waiting for its eta."""
    from yuanzi_site.celery import app

    scheduled = app.control.inspect(timeout=1.0).scheduled() or {}
    return any(
        entry["request"]["name"] == "games.tasks.run_due"
        and list(entry["request"]["args"]) == [game_id, seq]
        for entries in scheduled.values() for entry in entries
    )


def test_overdue_turn_survives_a_worker_restart(celery_worker, settings, tmp_path):
    """The worker holding the countdown task dies (SIGKILL) before the deadline;
    a new worker and beat act on the overdue turn."""
    settings.GAMES_TURN_SECONDS = 3
    game = start_game(make_players())
    # the worker receives the eta task and holds it until the deadline
    wait_for(lambda: holds_countdown(game.pk, 0), 10,
             message="the worker to hold the game's countdown task")
    assert timezone.now() < game.due_at
    celery_worker.kill()

    time.sleep(max(0.0, (game.due_at - timezone.now()).total_seconds()) + 1)
    assert seq_of(game) == 0  # nobody acted: the task died with the worker

    restarted = new_worker()
    beat = new_beat(tmp_path)
    try:
        restarted.start()
        beat.start()
        game = wait_seq(game, 1, SLACK + 10)  # includes the new processes' start
        assert events(game)[0].by == "clock"
    finally:
        beat.stop()
        restarted.stop()
        forget_queued_tasks()  # the dead worker's reserved task must not outlive the test
    # celery_worker is restarted by its fixture for the next test


def test_a_turn_beyond_the_horizon_gets_no_countdown_and_the_sweep_acts(celery_worker, settings,
                                                                         tmp_path):
    """A turn due further away than GAMES_COUNTDOWN_HORIZON_SECONDS
    publishes no countdown task (one per move, held for the whole turn, was most
    of the production stack's CPU under load); a short turn still does; beat's
    sweep acts on the long one once it is due."""
    settings.GAMES_COUNTDOWN_HORIZON_SECONDS = 5
    settings.GAMES_TURN_SECONDS = 3
    short = start_game(make_players(prefix="short"))
    settings.GAMES_TURN_SECONDS = 60
    long = start_game(make_players(prefix="long"))
    # the worker holds the short turn's countdown: it is receiving this process's tasks
    wait_for(lambda: holds_countdown(short.pk, 0), 10,
             message="the worker to hold the short turn's countdown task")
    assert not holds_countdown(long.pk, 0)
    force_due(long)
    beat = new_beat(tmp_path)
    try:
        beat.start()
        long = wait_seq(long, 1, SLACK)
        assert events(long)[0].by == "clock"
    finally:
        beat.stop()


def test_bot_moves_run_in_the_worker(celery_worker):
    """Three bots and one human: the human plays through games.play, the bots'
    moves appear without this test calling run_due."""
    [human] = make_players(1)
    game = start_game([human], bots=(1, 2, 3))
    assert game.practice
    human_moves = 0
    deadline = time.monotonic() + 30
    while human_moves < 2 and time.monotonic() < deadline:
        game = fresh(game)
        if game.status != Game.PLAYING:
            break
        if game.state["turn"] == 0:
            try:
                play_human_turn(game)
                human_moves += 1
            except Refused as e:  # the clock beat us to it: look again
                if e.reason != "stale":
                    raise
        time.sleep(0.05)
    game = fresh(game)
    bot_events = GameEvent.objects.filter(game=game, by="bot")
    assert bot_events.count() >= 3, [(e.seat, e.by) for e in events(game)]
    assert set(bot_events.values_list("seat", flat=True)) <= {1, 2, 3}
    assert GameEvent.objects.filter(game=game, by="player", seat=0).count() == human_moves >= 1
    assert user_at(game, 0) == human
