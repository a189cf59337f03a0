"""Health and metrics endpoints for an operator and a load balancer
(docs/deploy.md "Health" and "Metrics").

- ``/healthz``: the process answers; checks nothing else (a liveness probe).
- ``/readyz``: the process can serve players: the database answers, Redis
  answers (production stack only: ``REDIS_URL`` or ``REDIS_SENTINELS`` set) and the scheduler's
  heartbeat is fresh (Celery beat's sweep, or the embedded ticker; skipped when
  ``GAMES_SCHEDULER`` is ``none``). 200 ``{"ready": true, "checks": {...}}``,
  or 503 with each failing part named in ``checks`` (a readiness probe: a
  proxy stops sending new players here).
- ``/metrics``: Prometheus text format, for configured addresses only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

from django.conf import settings
from django.db import connection
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    REGISTRY,
    CollectorRegistry,
    generate_latest,
    multiprocess,
)
from prometheus_client.core import Metric
from prometheus_client.registry import Collector

from games import clock
from games.adapters import drain
from games.metrics import SiteCollector
from yuanzi_site import redis_config

OK = "ok"


@never_cache
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """200 ``ok`` whenever the process can answer a request."""
    return HttpResponse("ok\n", content_type="text/plain")


def _database() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()
    return OK


def _redis() -> str:
    target = redis_config.configured_target()
    if not target:  # readiness() checks Redis only when it is configured
        raise RuntimeError("neither REDIS_URL nor REDIS_SENTINELS is set")
    # through Sentinel: the sentinels answer who the master is, and it answers PING
    client = redis_config.client(target, socket_timeout=1, socket_connect_timeout=1)
    try:
        client.ping()
    finally:
        client.close()
    return OK


def _scheduler() -> str:
    age = clock.age()
    if age is None:
        return "no heartbeat yet"
    if age > settings.GAMES_OUTAGE_SECONDS:
        return f"heartbeat {age:.0f} s old"
    return OK


def readiness() -> dict[str, str]:
    """Each part's state: ``"ok"`` or a short reason (an exception's class and
    message). ``process`` is ``"draining"`` while a SIGTERM drains this
    process (absent otherwise). Parts: ``database`` always, ``redis`` with
    ``REDIS_URL`` or Sentinel, ``scheduler`` unless ``GAMES_SCHEDULER == "none"``."""
    checks = {"database": _database}
    if redis_config.configured_target():
        checks["redis"] = _redis
    if settings.GAMES_SCHEDULER != "none":
        checks["scheduler"] = _scheduler
    result: dict[str, str] = {}
    if drain.draining():  # SIGTERM: this process is stopping (games.adapters.drain)
        result["process"] = "draining"
    for name, check in checks.items():
        try:
            result[name] = check()
        except Exception as e:  # a probe reports every failure; it never raises
            result[name] = f"{type(e).__name__}: {e}"[:200]
    return result


@never_cache
@require_GET
def readyz(request: HttpRequest) -> JsonResponse:
    """200 when every part of :func:`readiness` is ``ok``, else 503."""
    checks = readiness()
    ready = all(v == OK for v in checks.values())
    return JsonResponse({"ready": ready, "checks": checks}, status=200 if ready else 503)


class _ThisProcess(Collector):
    """The metrics this process recorded (prometheus_client's default registry)."""

    def collect(self) -> Iterator[Metric]:
        yield from REGISTRY.collect()


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """``/metrics`` in the Prometheus text format, for the addresses in
    ``METRICS_ADDRESSES`` only (the client address as Daphne judged it, the
    same trusted-proxy logic as the sign-up limit: ``yuanzi_site.proxy``);
    anyone else gets a plain 404. With ``PROMETHEUS_MULTIPROC_DIR`` set, the
    sum of every process on this host; else this process's own; plus
    :class:`games.metrics.SiteCollector`'s gauges read from the database."""
    if request.META.get("REMOTE_ADDR") not in settings.METRICS_ADDRESSES:
        raise Http404
    registry = CollectorRegistry()
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # prometheus_client leaves this constructor unannotated
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    else:
        registry.register(_ThisProcess())
    registry.register(SiteCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
