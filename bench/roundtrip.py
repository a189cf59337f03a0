"""A move's round trip through the real site: websocket → Daphne → games.play →
database → channel layer → every client, measured over whole games.

Run from the repository root (the venv's python)::

    python bench/roundtrip.py [--games 2] [--port 8765]

Embedded default (SQLite file, in-memory channel layer) unless DATABASE_URL and
REDIS_URL are set, in which case PostgreSQL and channels_redis are measured
(the database is the one DATABASE_URL names: use a scratch database). Starts
``manage.py runsite --no-ticker`` as a child, logs four users in with real
session cookies, seats them, and plays heuristic moves chosen from each
client's own views. For each move it records the time from sending the action
to the mover receiving the view that shows it (``seq`` advanced), and prints
the median and 99th percentile in milliseconds beside the floors of
shared/NOTES.md (Channels echo ≈ 0.5 ms, in-memory layer ≈ 0.8 ms, Redis
layer ≈ 1.9 ms on this machine).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def setup_django(sqlite_path: str | None) -> None:
    if sqlite_path:
        os.environ["SQLITE_PATH"] = sqlite_path
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yuanzi_site.settings")
    import django

    django.setup()


def make_players(n_games: int) -> list[tuple[str, str]]:
    """Four users with sessions, and a table they sit at: [(session key, username)]."""
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    suffix = f"{os.getpid()}{int(time.time())}"
    out = []
    for i in range(4):
        user = get_user_model().objects.create_user(f"bench{i}_{suffix}", password=None)
        client = Client()
        client.force_login(user)
        out.append((client.cookies[settings.SESSION_COOKIE_NAME].value, user.username))
    return out


async def play(port: int, sessions: list[tuple[str, str]], table_id: int, games: int):
    import websockets

    from games import engine

    url = f"ws://127.0.0.1:{port}/ws/table/{table_id}/"
    conns = []
    for key, _ in sessions:
        ws = await websockets.connect(
            url, origin="http://127.0.0.1", additional_headers={"Cookie": f"sessionid={key}"}
        )
        conns.append(ws)
    views: list[dict | None] = [None] * 4
    changed = asyncio.Condition()

    async def reader(i: int) -> None:
        async for raw in conns[i]:
            msg = json.loads(raw)
            if msg["type"] == "game":
                async with changed:
                    views[i] = msg["view"]
                    changed.notify_all()
            elif msg["type"] == "error":
                print("error:", msg, file=sys.stderr)

    async def until(predicate) -> None:
        async with changed:
            await changed.wait_for(predicate)

    tasks = [asyncio.create_task(reader(i)) for i in range(4)]
    for i, ws in enumerate(conns):
        await ws.send(json.dumps({"type": "sit", "seat": i}))
    await asyncio.sleep(0.3)
    rtts: list[float] = []
    syncs: list[float] = []
    rng = random.Random(1)
    for _ in range(games):
        for ws in conns:
            await ws.send(json.dumps({"type": "ready"}))
        await until(lambda: all(v and v["status"] == "playing" and v["seq"] == 0 for v in views))
        while views[0]["status"] == "playing":
            seat = views[0]["turn"]
            v = views[seat]
            action = engine.heuristic_policy(v, rng)
            seq = v["seq"]
            t0 = time.perf_counter()
            await conns[seat].send(json.dumps({**action, "seq": seq}))
            await until(lambda seat=seat, seq=seq: views[seat]["seq"] > seq)
            rtts.append((time.perf_counter() - t0) * 1000)
            await until(lambda seq=seq: all(x["seq"] > seq for x in views))  # all have it
    for _ in range(200):  # reference: a read through the consumer (sync → own view)
        before = views[0]
        t0 = time.perf_counter()
        await conns[0].send(json.dumps({"type": "sync"}))
        await until(lambda before=before: views[0] is not before)
        syncs.append((time.perf_counter() - t0) * 1000)
    for t in tasks:
        t.cancel()
    for ws in conns:
        await ws.close()
    return rtts, syncs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    production = bool(os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL"))
    tmp = tempfile.mkdtemp(prefix="yuanzi-bench-")
    sqlite_path = None if production else os.path.join(tmp, "bench.sqlite3")
    # no scheduler (no clocks or bots here) and no action rate limit (bots play fast)
    env = dict(os.environ, GAMES_SCHEDULER="none", GAMES_ACTION_RATE="1000000",
               PYTHONUNBUFFERED="1")
    if sqlite_path:
        env["SQLITE_PATH"] = sqlite_path
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                   check=True)
    setup_django(sqlite_path)
    from games import tables

    sessions = make_players(args.games)
    from django.contrib.auth import get_user_model

    users = [get_user_model().objects.get(username=name) for _, name in sessions]
    table = tables.create_table(users[0], "bench")
    log = open(os.path.join(tmp, "daphne.log"), "w")  # noqa: SIM115 -- the child writes it
    child = subprocess.Popen(
        [sys.executable, "manage.py", "runsite", "--no-ticker", "--port", str(args.port)],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        import socket

        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", args.port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        rtts, syncs = asyncio.run(play(args.port, sessions, table.pk, args.games))
    finally:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()
    rtts.sort()
    stack = "PostgreSQL + channels_redis" if production else "SQLite + in-memory layer"
    p50 = statistics.median(rtts)
    p99 = rtts[min(len(rtts) - 1, int(len(rtts) * 0.99))]
    floor = 1.9 if production else 0.8
    print(f"stack: {stack}; games: {args.games}; moves: {len(rtts)}")
    print(f"move round trip (send → own new view), ms: p50 {p50:.2f}  p99 {p99:.2f}  "
          f"max {rtts[-1]:.2f}")
    print(f"reference, a read through the consumer (sync → own view), ms: p50 "
          f"{statistics.median(syncs):.2f}")
    print(f"channel-layer floor on this machine (NOTES.md): {floor} ms → p50 is "
          f"{p50 / floor:.1f}× the floor")


if __name__ == "__main__":
    main()
