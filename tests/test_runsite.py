"""``manage.py runsite`` (what ``make run`` calls): migrate, print the address,
start the turn ticker unless ``--no-ticker``, serve with Daphne. Daphne and the
ticker thread are replaced by fakes here: the ticker must never run under tests."""

from __future__ import annotations

import io
import threading

import pytest
from django.core.management import CommandError, call_command

from games.management.commands import runsite


class FakeTicker:
    made: list[FakeTicker] = []

    def __init__(self) -> None:
        self.interval = 0.2
        self.started = self.stopped = self.joined = False
        FakeTicker.made.append(self)

    def start(self) -> None:
        self.started = True

    def stop(self) -> None:
        self.stopped = True

    def join(self, timeout=None) -> None:
        self.joined = True


@pytest.fixture
def fakes(monkeypatch):
    calls: list[tuple] = []
    FakeTicker.made = []
    monkeypatch.setattr(runsite, "Ticker", FakeTicker)

    def serve(host, port, verbosity=1):
        # the ticker runs while Daphne serves
        calls.append((host, port, [t.started and not t.stopped for t in FakeTicker.made]))

    monkeypatch.setattr(runsite, "serve", serve)
    migrations: list[tuple] = []
    real = runsite.call_command
    monkeypatch.setattr(runsite, "call_command",
                        lambda name, **kw: (migrations.append((name, kw)), real(name, **kw)))
    return calls, migrations


@pytest.mark.django_db
def test_runsite_migrates_prints_ticks_and_serves(fakes):
    calls, migrations = fakes
    out = io.StringIO()
    call_command("runsite", "--port", "8123", stdout=out)
    assert [m[0] for m in migrations] == ["migrate"]
    assert "原子 online: http://127.0.0.1:8123/" in out.getvalue()
    assert calls == [("127.0.0.1", 8123, [True])]
    (ticker,) = FakeTicker.made
    assert ticker.stopped and ticker.joined  # stopped when Daphne returns


@pytest.mark.django_db
def test_runsite_no_ticker_and_host(fakes):
    calls, _ = fakes
    out = io.StringIO()
    call_command("runsite", "--host", "0.0.0.0", "--port", "9000", "--no-ticker", stdout=out)
    assert calls == [("0.0.0.0", 9000, [])] and FakeTicker.made == []
    assert "http://0.0.0.0:9000/" in out.getvalue()


def test_runsite_refuses_a_bad_port(fakes):
    with pytest.raises(CommandError):
        call_command("runsite", "--port", "70000")


def test_no_ticker_runs_under_tests():
    # importing the whole site (ASGI app, Celery app, scheduler) starts no thread
    import yuanzi_site.asgi  # noqa: F401
    import yuanzi_site.celery  # noqa: F401

    assert not [t for t in threading.enumerate() if t.name == "yuanzi-ticker"]
