"""yuanzi_site.env: typed environment helpers fail loudly on bad values."""

import doctest

import pytest
from django.core.exceptions import ImproperlyConfigured

from yuanzi_site import env


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
