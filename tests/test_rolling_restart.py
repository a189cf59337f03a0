"""A rolling restart under load loses no action (docs/deploy.md "Rolling
restarts"; games/adapters/drain.py; bench/load.py ``--rolling-restart``).

Two real Daphnes behind nginx running ``deploy/nginx.conf`` (rendered by
``deploy/nginx_conf.py``), PostgreSQL, Redis; three tables of four logged-in
websocket clients (bench/load.py's clients: they play their first hint after
a short think and reconnect as the page does, after a random 0.5–5 s on
1012). While they play, each Daphne in turn gets SIGTERM, drains, exits, is
started again on its port and answers ``/readyz``. Then:

* **no action lost**: every move a client sent was applied exactly once (a
  ``by="player"`` game event at its seq, same cards), or the client was told
  it was not (an ``error`` echoing its ``ref``, or a close before its answer
  and a fresh snapshot still at its seq, after which it decided again);
  ``bench.load.check_ledger`` has the exact rule;
* **none applied twice**: no decision applied more than once, no player event
  that no client sent;
* **every client reconnected** (each one the drains closed is back);
* **the record matches what clients saw**: every view a client got is the
  engine's view of the recorded game at that seq (``tests.ws_checks``).

No timing is asserted. nginx runs deploy/nginx.conf as documented: its
websocket upstream never marks a Daphne failed (with ``max_fails=1`` a
websocket nginx tried on a Daphne it had marked cleared the mark only when
that websocket ended, so after the second restart nginx had no live upstream
for minutes and answered 502: this test failed so, and the file changed).
Skipped without ``DATABASE_URL``, ``REDIS_URL`` or
nginx (with ``CI=true`` a skip fails the run).
"""

from __future__ import annotations

import asyncio
import os
import shutil
from pathlib import Path

import pytest
from django.conf import settings

from bench import load
from games.models import Game
from tests.servers import free_port, test_database_url
from tests.ws_checks import check_frames, states_by_seq

pytestmark = [
    pytest.mark.skipif(
        not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")
             and shutil.which("nginx")),
        reason="needs DATABASE_URL (PostgreSQL), REDIS_URL (Redis) and nginx"),
    pytest.mark.django_db(transaction=True),
]

def _daphnes(logdir: Path) -> tuple[list[load.Child], list[int]]:
    """Two Daphnes as docs/deploy.md runs them behind nginx, on the test database."""
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "yuanzi_site.settings",
        "DATABASE_URL": test_database_url(),
        "SECRET_KEY": settings.SECRET_KEY,  # the session cookies are signed with it
        "GAMES_SCHEDULER": "none",  # no bots, no clock runs out (600 s turns)
        "GAMES_TURN_SECONDS": "600",
        "GAMES_ACTION_RATE": "100000",
        "GAMES_DRAIN_SECONDS": "5",
        "SITE_ORIGINS": load.ORIGIN,
        "TRUSTED_PROXIES": "127.0.0.1",
        "PYTHONUNBUFFERED": "1",
    }
    ports = [free_port(), free_port()]
    daphnes = [load.Child(f"daphne{i}", load.daphne_args("yuanzi_site.asgi:application",
                                                          port, proxied=True), env, logdir)
               for i, port in enumerate(ports)]
    return daphnes, ports


def test_a_rolling_restart_under_load_loses_no_action(tmp_path):
    daphnes, ports = _daphnes(tmp_path)
    children = list(daphnes)
    try:
        for d, port in zip(daphnes, ports, strict=True):
            load.wait_ready(port, d)
        nginx, nginx_port = load.start_nginx(tmp_path, ports)
        children.append(nginx)
        tables = load.make_tables(3, f"rr{os.getpid()}")
        args = load.build_parser().parse_args(
            ["--tables", "3", "--duration", "2", "--warmup", "1", "--think", "0.3",
             "--sync", "0", "--reconnect", "--reconnect-wait", "30"])
        args.keep_frames = True
        roll = load.roller(daphnes, ports, settle=2.0)
        stats, _connect_s, clients = asyncio.run(load.run_load(
            tables, [f"wss://localhost:{nginx_port}"], args, False, None, roll))
        ids = [t["id"] for t in tables]

        # the roll happened: both Daphnes drained (exit 0) and closed sockets with 1012
        figures = load.restart_figures(stats, clients)
        assert [s["exit_status"] for s in figures["steps"]] == [0, 0], figures
        assert all(s["clients_closed_1012"] for s in figures["steps"]), figures
        # every client it closed came back, and every player is connected at the end
        for step in figures["steps"]:
            assert step["clients_back"] == step["clients_closed_1012"], figures
        assert figures["players_connected_at_end"] == figures["players"] == 12, figures

        actions = load.check_ledger(stats.sends, ids)
        assert actions["applied"] > 0, actions
        assert actions["lost"] == 0, actions
        assert actions["duplicates"] == 0, actions
        assert actions["acknowledged_not_recorded"] == 0, actions
        assert actions["refused_yet_applied"] == 0, actions

        # what each client saw is the record: every view, at its seq, of its game
        games = {g.pk: g for g in Game.objects.filter(table_id__in=ids)}
        states = {pk: states_by_seq(g) for pk, g in games.items()}
        checked = 0
        for c in clients:
            views = [f for f in c.frames if f["type"] == "game" and f["view"]]
            check_frames([f for f in c.frames if f["type"] != "game"], {}, c.seat)
            for pk in {f["view"]["game_id"] for f in views}:
                checked += check_frames([f for f in views if f["view"]["game_id"] == pk],
                                        states[pk], c.seat)
        assert checked >= actions["applied"]
    except BaseException:
        for c in children:
            c.log.flush()
            print(f"--- {c.name}:\n" + Path(c.log.name).read_text(errors="replace")[-3000:])
        error_log = tmp_path / "nginx" / "error.log"
        if error_log.exists():
            print("--- nginx error.log:\n" + error_log.read_text(errors="replace")[-3000:])
        raise
    finally:
        for c in children:
            c.stop()
