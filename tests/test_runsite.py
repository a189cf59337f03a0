"""``manage.py runsite`` (what ``make run`` calls): migrate, print the address,
start the turn ticker unless ``--no-ticker``, serve with Daphne. Daphne and the
ticker thread are replaced by fakes here: the ticker must never run under tests."""

from __future__ import annotations

import contextlib
import io
import threading
from typing import ClassVar

import pytest
from django.core.management import CommandError, call_command

from games.management.commands import runsite


class FakeTicker:
    made: ClassVar[list[FakeTicker]] = []

    def __init__(self) -> None:
        self.interval = 0.2
        self.stopped = False
        FakeTicker.made.append(self)

    def stop(self) -> None:
        self.stopped = True


class FakeWorker:
    """runsite's review worker child, not started (the real one: test_review_site)."""

    made: ClassVar[list[FakeWorker]] = []

    def __init__(self) -> None:
        self.started = self.stopped = False
        FakeWorker.made.append(self)

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True


@pytest.fixture
def fakes(monkeypatch):
    calls: list[tuple] = []
    FakeTicker.made = []
    FakeWorker.made = []
    monkeypatch.setattr(runsite, "Ticker", FakeTicker)
    monkeypatch.setattr(runsite, "ReviewWorker", FakeWorker)

    def serve(host, port, verbosity=1, ticker=None):
        # the ticker is handed to Daphne, to start on its loop, and not yet stopped
        calls.append((host, port, ticker is not None and not ticker.stopped))

    monkeypatch.setattr(runsite, "serve", serve)
    migrations: list[tuple] = []
    real = runsite.call_command
    monkeypatch.setattr(runsite, "call_command",
                        lambda name, **kw: (migrations.append((name, kw)), real(name, **kw)))
    return calls, migrations


@pytest.mark.django_db
def test_runsite_migrates_prints_ticks_and_serves(fakes, settings):
    settings.GAMES_REVIEW_RUNNER = "process"
    calls, migrations = fakes
    out = io.StringIO()
    call_command("runsite", "--port", "8123", stdout=out)
    assert [m[0] for m in migrations] == ["migrate"]
    assert "原子 online: http://127.0.0.1:8123/" in out.getvalue()
    assert calls == [("127.0.0.1", 8123, True)]
    (ticker,) = FakeTicker.made
    assert ticker.stopped  # stopped when Daphne returns
    # the embedded default: the review worker is a child process, stopped with the site
    (worker,) = FakeWorker.made
    assert worker.started
    assert worker.stopped
    assert "review worker" in out.getvalue()


@pytest.mark.django_db
def test_runsite_no_ticker_and_host(fakes):
    calls, _ = fakes
    out = io.StringIO()
    call_command("runsite", "--host", "0.0.0.0", "--port", "9000", "--no-ticker", stdout=out)
    assert calls == [("0.0.0.0", 9000, False)]
    assert FakeTicker.made == []
    assert "http://0.0.0.0:9000/" in out.getvalue()


def test_runsite_refuses_a_bad_port(fakes):
    with pytest.raises(CommandError):
        call_command("runsite", "--port", "70000")


def test_no_ticker_runs_under_tests():
    # importing the whole site (ASGI app, Celery app, scheduler) starts no thread or task
    import yuanzi_site.asgi
    import yuanzi_site.celery  # noqa: F401

    assert threading.active_count() == len(threading.enumerate())
    assert not [t for t in threading.enumerate() if "ticker" in t.name]


@pytest.mark.django_db(transaction=True)
async def test_the_ticker_moves_bots_and_its_broadcasts_reach_consumers_on_its_loop(settings):
    """The ticker runs on the serving loop, so what it broadcasts after commit
    wakes the in-memory layer's consumers at once (a ticker thread on a foreign
    loop could leave a page without updates: the QA's frozen page)."""
    import asyncio

    from asgiref.sync import sync_to_async
    from channels.layers import get_channel_layer

    from games.adapters import broadcast
    from games.adapters.scheduler import Ticker
    from tests.helpers import fresh, make_players, start_game

    settings.GAMES_SCHEDULER = "none"
    settings.GAMES_BOT_DELAY_SECONDS = 0
    settings.CHANNEL_LAYERS = {"default": {"BACKEND": "channels.layers.InMemoryChannelLayer"}}
    (human,) = await sync_to_async(make_players)(1, prefix="ticked")
    game = await sync_to_async(start_game)([human], bots=(0, 1, 2))
    if game.state["turn"] == 3:  # the human leads: let them play so a bot is due
        from tests.helpers import play_human_turn

        game = await sync_to_async(play_human_turn)(game)
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add(broadcast.watch_group(game.table_id), channel)
    ticker = Ticker(interval=0.05)
    ticker.start(asyncio.get_running_loop())
    try:
        message = await asyncio.wait_for(layer.receive(channel), timeout=15)
        # the deal's own view can arrive late (its send was queued on this loop
        # before the group was joined): wait for a move's
        while message["type"] != "game.spectate" or message["view"]["seq"] <= game.seq:
            message = await asyncio.wait_for(layer.receive(channel), timeout=15)
    finally:
        ticker.stop()
        with contextlib.suppress(asyncio.CancelledError):
            await ticker.task  # its last job done before the test's flush
    moved = await sync_to_async(fresh)(game)
    assert moved.seq > game.seq
    assert message["view"]["seq"] > game.seq
    by = await sync_to_async(lambda: list(moved.events.values_list("by", flat=True)))()
    assert "bot" in by

