"""The game server's Prometheus metrics (docs/deploy.md "Metrics").

Counted where they happen, in whichever process that is (a Daphne, the Celery
worker): with ``PROMETHEUS_MULTIPROC_DIR`` set for every process on a host,
``/metrics`` on any of them sums all (prometheus_client's multiprocess mode);
without it, each process reports its own. Read from the database at scrape
(:class:`SiteCollector`): games running and how late the most overdue turn is
(the scheduler's lag). Recording costs a few microseconds; nothing here
queries on a move.
"""

from __future__ import annotations

from collections.abc import Iterator

from django.db.models import Count, Min, Q
from django.utils import timezone
from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from games.models import Game

#: game actions applied (RULES.md §4), by who acted: player, bot, auto (托管), clock (§8)
MOVES = Counter("yuanzi_moves", "Game actions applied", ["by"])
#: a player's move over its socket: from the handler's start to the commit and its broadcast
MOVE_SECONDS = Histogram(
    "yuanzi_move_seconds", "Time to handle a player's move message, in seconds",
    buckets=(0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))
#: websocket connections open now, by consumer (table, lobby …)
OPEN_SOCKETS = Gauge("yuanzi_open_sockets", "Open websocket connections", ["kind"],
                     multiprocess_mode="livesum")
#: channel-layer sends that raised (a frame that did not go out)
SEND_FAILURES = Counter("yuanzi_channel_layer_send_failures", "Channel layer sends that failed")


class SiteCollector(Collector):
    """Gauges read from the database at each scrape: ``yuanzi_games_running``
    and ``yuanzi_due_lag_seconds`` (how long past its due time the most
    overdue running game's turn is: 0 when the scheduler keeps up; RULES.md
    §8, DESIGN.md "Time, bots, departures")."""

    def collect(self) -> Iterator[Metric]:
        now = timezone.now()
        row = Game.objects.filter(status=Game.PLAYING).aggregate(
            running=Count("pk"), oldest_due=Min("due_at", filter=Q(due_at__lt=now)))
        yield GaugeMetricFamily("yuanzi_games_running", "Games being played now",
                                value=row["running"])
        lag = (now - row["oldest_due"]).total_seconds() if row["oldest_due"] else 0.0
        yield GaugeMetricFamily("yuanzi_due_lag_seconds",
                                "Seconds the most overdue turn is past its due time", value=lag)
