"""yuanzi_site.env: typed environment helpers fail loudly on bad values."""

import doctest
import os
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from yuanzi_site import env

ROOT = Path(__file__).resolve().parent.parent


def test_env_bool(monkeypatch):
    monkeypatch.setenv("X_FLAG", "yes")
    assert env.env_bool("X_FLAG", False) is True
    monkeypatch.setenv("X_FLAG", "0")
    assert env.env_bool("X_FLAG", True) is False
    monkeypatch.setenv("X_FLAG", "  ")
    assert env.env_bool("X_FLAG", True) is True
    monkeypatch.setenv("X_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="X_FLAG"):
        env.env_bool("X_FLAG", False)


def test_env_int(monkeypatch):
    monkeypatch.delenv("X_NUM", raising=False)
    assert env.env_int("X_NUM", 7) == 7
    monkeypatch.setenv("X_NUM", "12")
    assert env.env_int("X_NUM", 7) == 12
    monkeypatch.setenv("X_NUM", "12s")
    with pytest.raises(ImproperlyConfigured, match="X_NUM"):
        env.env_int("X_NUM", 7)
    monkeypatch.setenv("X_NUM", "-1")
    with pytest.raises(ImproperlyConfigured):
        env.env_int("X_NUM", 7, minimum=0)


def test_env_list_and_required(monkeypatch):
    monkeypatch.setenv("X_LIST", "a.example, b.example,,")
    assert env.env_list("X_LIST", []) == ["a.example", "b.example"]
    monkeypatch.delenv("X_REQ", raising=False)
    with pytest.raises(ImproperlyConfigured, match="X_REQ"):
        env.env_required("X_REQ")


def test_email_url():
    smtp = env.email_settings_from_url("smtp://u%40x.cn:p%2Fw@mail.example?tls=1")
    assert smtp["EMAIL_HOST"] == "mail.example"
    assert (smtp["EMAIL_PORT"], smtp["EMAIL_USE_TLS"]) == (587, True)
    assert (smtp["EMAIL_HOST_USER"], smtp["EMAIL_HOST_PASSWORD"]) == ("u@x.cn", "p/w")
    assert env.email_settings_from_url("smtps://mail.example")["EMAIL_USE_SSL"] is True
    assert "console" in env.email_settings_from_url("console://")["EMAIL_BACKEND"]
    with pytest.raises(ImproperlyConfigured):
        env.email_settings_from_url("ftp://mail.example")
    assert doctest.testmod(env).failed == 0


def test_asgi_application_routes_http_and_websocket():
    from yuanzi_site.asgi import application

    assert set(application.application_mapping) == {"http", "websocket"}


def test_celery_app_is_loaded():
    from django.conf import settings

    from yuanzi_site import celery_app

    assert celery_app.main == "yuanzi_site"
    assert celery_app.conf.task_always_eager == settings.CELERY_TASK_ALWAYS_EAGER


def test_env_choice_refuses_an_unknown_value(monkeypatch):
    from yuanzi_site.env import env_choice

    monkeypatch.delenv("X_MODE", raising=False)
    assert env_choice("X_MODE", "ticker", ("celery", "ticker", "none")) == "ticker"
    monkeypatch.setenv("X_MODE", "celery")
    assert env_choice("X_MODE", "ticker", ("celery", "ticker", "none")) == "celery"
    monkeypatch.setenv("X_MODE", "celeri")  # a typo must not silently schedule nothing
    with pytest.raises(ImproperlyConfigured, match="X_MODE"):
        env_choice("X_MODE", "ticker", ("celery", "ticker", "none"))


def test_a_misspelt_scheduler_stops_the_site_at_start_up():
    import subprocess
    import sys

    env = {**os.environ, "GAMES_SCHEDULER": "celeri", "DJANGO_SETTINGS_MODULE":
           "yuanzi_site.settings"}
    env.pop("DATABASE_URL", None)
    env.pop("REDIS_URL", None)
    run = subprocess.run([sys.executable, "-c", "import django; django.setup()"], env=env,
                         capture_output=True, text=True, cwd=ROOT)
    assert run.returncode != 0
    assert "GAMES_SCHEDULER" in run.stderr


def test_beat_and_the_ticker_run_one_table_of_jobs(settings):
    from games.adapters.scheduler import Ticker
    from yuanzi_site.jobs import PERIODIC_JOBS

    assert {name: (job["task"], job["schedule"]) for name, job in
            settings.CELERY_BEAT_SCHEDULE.items()} == {
        name: (task, every) for name, task, every in PERIODIC_JOBS}
    ticker = Ticker()
    assert [name for name, _, _ in ticker.jobs] == [name for name, _, _ in PERIODIC_JOBS]
    assert [f"{t.__module__}.{t.__name__}" for _, t, _ in ticker.jobs] == [
        task for _, task, _ in PERIODIC_JOBS]


def test_a_failing_ticker_job_leaves_the_others_running_and_waits_its_period(caplog):
    """A tester's arena whose pool a moderator had emptied raised in its job
    five times a second, and the jobs after it (the daily challenge's close)
    never ran: now a job that raises is logged, the rest run, and it is tried
    again only after its own period."""
    from games.adapters.scheduler import Ticker

    ran: list[str] = []

    def broken() -> None:
        ran.append("broken")
        raise RuntimeError("pool short")

    ticker = Ticker()
    ticker.jobs = [("broken", broken, 60.0), ("after", lambda: ran.append("after"), 0.0)]
    ticker._next = {"broken": 0.0, "after": 0.0}
    with caplog.at_level("ERROR", logger="games.adapters.scheduler"):
        ticker.tick()
        ticker.tick()
    assert ran == ["broken", "after", "after"]
    assert [r.getMessage() for r in caplog.records] == ["ticker job broken failed"]
