"""Clocks pause during the site's own outage (RULES.md §12; games/clock.py).

In process: a stale scheduler heartbeat stops ``run_due`` from acting and
gives every running game back the time it had left (a turn begun during the
outage a full one), views show the clock paused meanwhile, and the players get
a ``clock_resumed`` notice. Then for real: the embedded server (``runsite``)
killed with 5 s left on a human's clock, down 10 s, restarted; and on the
production stack Celery beat and the worker killed the same way. Each time the
player still has about 5 s, and nothing acted for them, plus
``GAMES_RESUME_GRACE_SECONDS`` to reconnect (a person's turn only).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.utils import timezone

from games import clock, engine, events, play, roster, seatview
from games.models import Game, GameEvent, GameSeat, SchedulerHeartbeat
from tests.helpers import make_players, play_human_turn, start_game
from tests.servers import ROOT, Site

OUTAGE = 3  # seconds of stale heartbeat that mean "down", in these tests
GRACE = 6  # seconds a person's page gets to reconnect on resume (the default)


@pytest.fixture
def outage(settings):
    settings.GAMES_OUTAGE_SECONDS = OUTAGE
    settings.GAMES_RESUME_GRACE_SECONDS = GRACE
    settings.GAMES_SCHEDULER = "ticker"
    clock.forget()


def _heartbeat(seconds_ago: float) -> None:
    SchedulerHeartbeat.objects.update_or_create(
        name=clock.NAME, defaults={"at": timezone.now() - timedelta(seconds=seconds_ago)})
    clock.forget()


@pytest.mark.django_db
def test_a_stale_heartbeat_pauses_the_clock_and_resume_gives_the_time_back(
        outage, settings, django_capture_on_commit_callbacks):
    game = start_game(make_players(4, prefix="paused"))
    # the site went down 10 s ago with 5 s left on this turn; the turn is "due" now
    _heartbeat(10)
    Game.objects.filter(pk=game.pk).update(due_at=timezone.now() - timedelta(seconds=5),
                                           started_at=timezone.now() - timedelta(seconds=60))
    game.refresh_from_db()
    view = seatview.view_for(game, None)
    assert view["clock_paused"] is True
    assert 4_900 <= view["time_left_ms"] <= 5_100  # frozen at the outage, not 0
    sent = []

    def heard(event):
        user_id, notice = event.user_id, event.notice
        sent.append((user_id, notice))

    events.subscribe(events.Notice, heard)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            assert play.run_due(game.pk, game.seq) is False  # the resume comes first
    finally:
        events.unsubscribe(events.Notice, heard)
    game.refresh_from_db()
    resumed_at = SchedulerHeartbeat.objects.get(name=clock.NAME).at  # written by the resume
    left = (game.due_at - resumed_at).total_seconds()
    # the 5 s it had (plus what this test took to set it up), and the grace
    assert 5 + GRACE <= left <= 6 + GRACE
    assert not GameEvent.objects.filter(game=game, seq__gt=0).exists()
    assert seatview.view_for(game, None)["clock_paused"] is False
    codes = {(u, n["code"]) for u, n in sent}
    assert codes >= {(r.user_id, "clock_resumed") for r in roster.seat_rows(game)}
    # resumed once: the next due action acts normally
    assert play.run_due(game.pk, game.seq) is False  # not due yet
    Game.objects.filter(pk=game.pk).update(due_at=timezone.now() - timedelta(seconds=1))
    assert play.run_due(game.pk, game.seq) is True
    assert GameEvent.objects.get(game=game, seq=game.seq + 1).by == "clock"


@pytest.mark.django_db
def test_a_turn_that_began_during_the_outage_gets_a_full_turn(outage, settings):
    settings.GAMES_TURN_SECONDS = 30
    game = start_game(make_players(4, prefix="during"))
    game = play_human_turn(game)  # this turn began just now …
    _heartbeat(20)  # … after the last heartbeat: during the outage
    Game.objects.filter(pk=game.pk).update(due_at=timezone.now() - timedelta(seconds=1))
    assert play.sweep_due() == 0
    game.refresh_from_db()
    resumed_at = SchedulerHeartbeat.objects.get(name=clock.NAME).at
    assert (game.due_at - resumed_at).total_seconds() == 30 + GRACE
    assert game.seq == 1
    assert game.state["status"] == engine.PLAYING


@pytest.mark.django_db
def test_a_托管_turn_resumes_without_the_grace(outage, settings):
    """The grace is for a person's page to reconnect: a seat on 托管 (played by
    the server) gets back exactly what it had."""
    game = start_game(make_players(4, prefix="autogr"))
    GameSeat.objects.filter(game=game, index=game.state["turn"]).update(auto_play=True)
    _heartbeat(10)
    Game.objects.filter(pk=game.pk).update(due_at=timezone.now() - timedelta(seconds=8),
                                           started_at=timezone.now() - timedelta(seconds=60))
    assert play.sweep_due() == 0
    game.refresh_from_db()
    left = (game.due_at - SchedulerHeartbeat.objects.get(name=clock.NAME).at).total_seconds()
    assert 2 <= left <= 3, left  # the 2 s it had, no grace


@pytest.mark.django_db
def test_a_player_connected_through_the_outage_gets_no_grace(outage, settings):
    """Only the scheduler stalled (a loaded machine): the player's page stayed
    connected at the table, so it needs no time to reconnect."""
    from games import presence

    game = start_game(make_players(4, prefix="stayed"))
    row = roster.seat_rows(game)[game.state["turn"]]
    presence.touch_presence("chan-stayed", game.table_id, row.user)
    try:
        _heartbeat(10)
        Game.objects.filter(pk=game.pk).update(
            due_at=timezone.now() - timedelta(seconds=8),
            started_at=timezone.now() - timedelta(seconds=60))
        assert play.sweep_due() == 0
        game.refresh_from_db()
        left = (game.due_at - SchedulerHeartbeat.objects.get(name=clock.NAME).at)
        assert 2 <= left.total_seconds() <= 3, left  # the 2 s it had, no grace
    finally:
        presence.drop_presence("chan-stayed", game.table_id, row.user)


@pytest.mark.django_db
def test_no_heartbeat_at_all_is_no_outage(outage):
    game = start_game(make_players(4, prefix="fresh"))
    assert seatview.view_for(game, None)["clock_paused"] is False
    Game.objects.filter(pk=game.pk).update(due_at=timezone.now() - timedelta(seconds=1))
    assert play.run_due(game.pk, game.seq) is True


# --- the embedded server killed and restarted ---------------------------------------------


def _utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def _sql(path: Path, query: str, *args):
    with sqlite3.connect(path, timeout=20) as db:
        return db.execute(query, args).fetchall()


def _stamp(dt: datetime) -> str:
    return dt.astimezone(UTC).replace(tzinfo=None).isoformat(" ")


SETUP = """
import django; django.setup()
from tests.helpers import make_players, start_game
print(start_game(make_players(4, prefix="outage")).pk)
"""


def test_the_embedded_server_killed_with_5_s_left_still_has_them_after_10_s_down():
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "site.sqlite3"
        env = {"SQLITE_PATH": str(path), "GAMES_OUTAGE_SECONDS": str(OUTAGE)}
        site = Site(env=env, turn_seconds=600).wait_listening()
        try:
            child = {k: v for k, v in os.environ.items()
                     if k not in ("DATABASE_URL", "REDIS_URL")}
            child.update(SQLITE_PATH=str(path), DJANGO_SETTINGS_MODULE="yuanzi_site.settings",
                         GAMES_SCHEDULER="none")
            game_id = int(subprocess.run([sys.executable, "-c", SETUP], cwd=ROOT, env=child,
                                         check=True, capture_output=True, text=True)
                          .stdout.split()[-1])
            deadline = time.monotonic() + 20
            while not _sql(path, "SELECT at FROM games_schedulerheartbeat"):
                assert time.monotonic() < deadline, "the ticker never beat"
                time.sleep(0.2)
            time.sleep(1)
            _sql(path, "UPDATE games_game SET due_at = ? WHERE id = ?",
                 _stamp(datetime.now(UTC) + timedelta(seconds=5)), game_id)
            site.proc.kill()  # a crash: no goodbye, no last heartbeat
            site.proc.wait(10)
            killed = datetime.now(UTC)
        finally:
            site.stop(show_output=False)
        time.sleep(10)
        site = Site(env=env, turn_seconds=600).wait_listening()
        try:
            deadline = time.monotonic() + 30
            while _utc(_sql(path, "SELECT at FROM games_schedulerheartbeat")[0][0]) < killed:
                assert time.monotonic() < deadline, "the ticker did not beat after the restart"
                time.sleep(0.1)
            (due,), = _sql(path, "SELECT due_at FROM games_game WHERE id = ?", game_id)
            left = (_utc(due) - datetime.now(UTC)).total_seconds()
            events = _sql(path, "SELECT count(*) FROM games_gameevent WHERE game_id = ?",
                          game_id)[0][0]
        finally:
            site.stop()
    assert events == 0, "something acted during or after the outage"
    # about the 5 s it had (the heartbeat is ≤ 0.5 s old), and the grace
    assert 3.5 + GRACE <= left <= 6.2 + GRACE, left


# --- production: beat and worker killed --------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_celery_beat_and_worker_killed_with_5_s_left_leave_the_player_their_time(
        celery_worker, celery_beat, tmp_path):
    from tests.celery_fixtures import new_beat

    game = start_game(make_players(4, prefix="prodout"))
    deadline = time.monotonic() + 20
    while not SchedulerHeartbeat.objects.exists():
        assert time.monotonic() < deadline, "beat's sweep never beat"
        time.sleep(0.2)
    time.sleep(1)
    Game.objects.filter(pk=game.pk).update(due_at=timezone.now() + timedelta(seconds=5))
    celery_beat.kill()
    celery_worker.kill()
    killed = timezone.now()
    time.sleep(10)
    celery_worker.start()
    beat = new_beat(tmp_path)
    beat.start()
    try:
        deadline = time.monotonic() + 30
        while SchedulerHeartbeat.objects.get(name=clock.NAME).at < killed:
            assert time.monotonic() < deadline, "no heartbeat after the restart"
            time.sleep(0.1)
        game.refresh_from_db()
        left = (game.due_at - timezone.now()).total_seconds()
        assert not GameEvent.objects.filter(game=game).exists()
        assert 3.5 + GRACE <= left <= 6.2 + GRACE, left
    finally:
        beat.stop()
