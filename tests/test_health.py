"""Health endpoints (yuanzi_site.health; docs/deploy.md "Health"): ``/healthz``
answers with no dependency; ``/readyz`` names each part (database, Redis on
the production stack, the scheduler's heartbeat) and fails with 503 naming
the part that is down."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from games.models import SchedulerHeartbeat
from tests.servers import free_port

pytestmark = pytest.mark.django_db


def _beat(seconds_ago: float) -> None:
    SchedulerHeartbeat.objects.update_or_create(
        name="scheduler", defaults={"at": timezone.now() - timedelta(seconds=seconds_ago)})


def test_healthz_answers_without_dependencies(client):
    response = client.get("/healthz")
    assert (response.status_code, response.content) == (200, b"ok\n")
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]


def test_readyz_ready_when_every_part_answers(client, settings):
    settings.GAMES_SCHEDULER = "ticker"
    _beat(0)
    response = client.get("/readyz")
    assert response.status_code == 200
    body = response.json()
    assert body["ready"] is True
    assert body["checks"]["database"] == "ok"
    assert body["checks"]["scheduler"] == "ok"
    assert ("redis" in body["checks"]) == bool(settings.REDIS_URL)


def test_readyz_names_a_stale_scheduler(client, settings):
    settings.GAMES_SCHEDULER = "celery"
    settings.GAMES_OUTAGE_SECONDS = 4
    _beat(60)
    response = client.get("/readyz")
    assert response.status_code == 503
    body = response.json()
    assert body["ready"] is False
    assert body["checks"]["scheduler"] == "heartbeat 60 s old"
    assert body["checks"]["database"] == "ok"


def test_readyz_names_a_scheduler_that_never_ran(client, settings):
    settings.GAMES_SCHEDULER = "ticker"
    SchedulerHeartbeat.objects.all().delete()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["checks"]["scheduler"] == "no heartbeat yet"


def test_readyz_skips_the_scheduler_when_there_is_none(client, settings):
    settings.GAMES_SCHEDULER = "none"
    SchedulerHeartbeat.objects.all().delete()
    response = client.get("/readyz")
    assert response.status_code == 200
    assert "scheduler" not in response.json()["checks"]


def test_readyz_names_redis_when_it_is_down(client, settings):
    """A Redis nobody listens on (a free port): 503 naming ``redis``; the other
    parts still report."""
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"
    settings.GAMES_SCHEDULER = "ticker"
    _beat(0)
    response = client.get("/readyz")
    assert response.status_code == 503
    checks = response.json()["checks"]
    assert checks["redis"].startswith("ConnectionError")
    assert checks["database"] == "ok"


def test_readyz_refuses_other_methods(client):
    assert client.post("/readyz").status_code == 405
