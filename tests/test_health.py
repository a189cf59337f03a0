"""Health and metrics endpoints (yuanzi_site.health; docs/deploy.md): ``/healthz``
answers with no dependency; ``/readyz`` names each part (database, Redis on
the production stack, the scheduler's heartbeat) and fails with 503 naming
the part that is down; ``/metrics`` serves Prometheus text to configured
addresses only, counting moves, ledger movements, games running and the
scheduler's lag."""

from __future__ import annotations

import random
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games import play
from games.models import Game, SchedulerHeartbeat
from games.seatview import view_for
from shop import ledger
from tests.helpers import make_players, start_game
from tests.servers import free_port
from tests.ws_checks import choose

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


# --- /metrics ---------------------------------------------------------------------------


def _sample(text: str, name: str, labels: str = "") -> float:
    """The value of one sample line ``name{labels} value`` (0 if absent)."""
    for line in text.splitlines():
        if line.startswith(f"{name}{{{labels}}} " if labels else f"{name} "):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def _metrics(client) -> str:
    response = client.get("/metrics", REMOTE_ADDR="127.0.0.1")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain")
    return response.content.decode()


def test_metrics_only_for_configured_addresses(client, settings):
    settings.METRICS_ADDRESSES = ["127.0.0.1"]
    assert client.get("/metrics", REMOTE_ADDR="203.0.113.5").status_code == 404
    assert client.get("/metrics", REMOTE_ADDR="127.0.0.1").status_code == 200


def test_metrics_count_moves_games_running_due_lag_and_ledger_movements(
        client, django_capture_on_commit_callbacks):
    before = _metrics(client)
    users = make_players(4, "metric")
    game = start_game(users)
    text = _metrics(client)
    assert _sample(text, "yuanzi_games_running") == 1
    assert _sample(text, "yuanzi_due_lag_seconds") == 0  # the turn is not due yet

    seat = game.state["turn"]
    view = view_for(game, seat)
    action = choose(view, random.Random(1))
    with django_capture_on_commit_callbacks(execute=True):
        play.act(game.pk, users[seat], action.pop("seq"), {"type": action.pop("type"), **action})
    Game.objects.filter(pk=game.pk).update(due_at=timezone.now() - timedelta(seconds=30))
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        ledger.credit(users[0], 5, ledger.Reason.CHECKIN)
    after = _metrics(client)
    moves = 'by="player"'
    assert _sample(after, "yuanzi_moves_total", moves) == _sample(before, "yuanzi_moves_total",
                                                                  moves) + 1
    assert _sample(after, "yuanzi_due_lag_seconds") >= 30
    checkin = 'kind="single",reason="checkin"'
    assert _sample(after, "yuanzi_ledger_movements_total", checkin) == _sample(
        before, "yuanzi_ledger_movements_total", checkin) + 1
    for name in ("yuanzi_move_seconds_bucket", "yuanzi_open_sockets",
                 "yuanzi_channel_layer_send_failures_total"):
        assert f"# TYPE {name.removesuffix('_bucket').removesuffix('_total')}" in after, name
