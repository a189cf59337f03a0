"""A busy evening on one machine: N tables × 4 logged-in clients over real
websockets, all connecting at once, each making its move after a random think
time and pinging at the page's rate, for a fixed time: a busy evening's load.

Run from the repository root with the venv's python::

    python bench/load.py --tables 125                  # embedded: runsite, SQLite
    python bench/load.py --tables 125 --floor          # …and the framework floor
    python bench/load.py --stack production --tables 125 --floor   # needs DATABASE_URL, REDIS_URL
    python bench/load.py --stack production --ports 8001,8002 --tables 50  # running processes
    python bench/load.py --tables 1 --spectators 400   # one crowded table
    python bench/load.py --tables 20 --ping-flood 20   # moves elsewhere during a ping flood

``embedded`` starts ``manage.py runsite`` (one Daphne, SQLite, in-memory layer,
in-process ticker) on a fresh SQLite file. ``production`` starts ``--processes``
Daphne processes, a Celery worker and beat on ``DATABASE_URL`` / ``REDIS_URL``
(use a scratch database), or, with ``--ports``, spreads the clients over running
processes (their pids are found from their listening sockets). Users, sessions,
tables and seats are made through the ORM (the site's own sign-up and table
limits would rightly stop a load generator); every client then connects at
once, sends ``ready``, and plays: on its turn it waits a think time drawn
uniformly from [0, 2 × ``--think``] and plays its first hint (or passes), so a
table makes about one move per ``--think`` seconds. Each client pings every
``--ping`` s and sends ``sync`` every ``--sync`` s.

Printed (``--json``: one JSON object): moves/s; move round trip (send → the
mover's own new view) p50/p95/p99/max; ``sync`` round trip (send → next view)
p50/p99; a move's arrival at spectators p50/p99 and frames spectators missed;
connection failures and errors by reason; moves whose view never came; server
CPU ms per move (Daphne + Celery processes over the window ÷ moves);
PostgreSQL (backends of this database) and Redis CPU separately; the
generator's own CPU; the load average. ``--floor`` then runs the same load
against ``bench/floor.py`` (a bare Channels app doing only a move's fan-out,
same layer, same number of processes) and prints the ratios.

The generator pins itself to the last CPU and its server children to the
others (``sched_setaffinity``) where the OS allows (``--no-pin`` to leave them).
``--ping-flood N`` (a flood once slowed the moves at other tables): once the
window opens, N more sockets at the first table send ``--flood-pings`` pings
each as fast as they can; the move figures are then of the *other* tables only
(the first table's moves are not counted), and the flood's own figures (pings
sent, pongs back, seconds) are printed beside them.

Bounded: at most 300 tables, 1,000 spectators per table, 600 s, 100 flooding
sockets × 10,000 pings; 127.0.0.1 only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
HOST = "127.0.0.1"
ORIGIN = "http://localhost"
TICK = os.sysconf("SC_CLK_TCK")


# --- processes and their CPU ---------------------------------------------------------


def cpu_ms(pid: int) -> float:
    """User + system CPU of a process (all its threads), in ms; 0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) * 1000 / TICK


def descendants(pid: int) -> list[int]:
    """``pid`` and every process below it."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            kids = []
        todo.extend(int(k) for k in kids)
    return out


def pids_matching(predicate) -> list[int]:
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if predicate(cmd):
                out.append(int(d.name))
    return out


def listening_pids(ports: list[int]) -> list[int]:
    """The processes listening on these TCP ports (from /proc/net/tcp and fds)."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            parts = line.split()
            if parts[3] == "0A" and int(parts[1].rsplit(":", 1)[1], 16) in ports:
                inodes.add(f"socket:[{parts[9]}]")
    found = set()
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            for fd in (d / "fd").iterdir():
                if os.readlink(fd) in inodes:
                    found.add(int(d.name))
                    break
        except OSError:
            continue
    return sorted(found)


class CpuMeter:
    """CPU ms of groups of processes between :meth:`start` and :meth:`stop`."""

    def __init__(self, groups: dict[str, callable]) -> None:
        self.groups = groups  # name → () -> list of pids (re-read: backends come and go)
        self.before: dict[str, dict[int, float]] = {}
        self.result: dict[str, float] = {}

    def _read(self) -> dict[str, dict[int, float]]:
        return {name: {p: cpu_ms(p) for p in pids()} for name, pids in self.groups.items()}

    def start(self) -> None:
        self.before = self._read()
        self.t0, self.self0 = time.monotonic(), sum(os.times()[:2])
        self.load0 = os.getloadavg()

    def stop(self) -> None:
        after = self._read()
        for name, now in after.items():
            base = self.before.get(name, {})
            self.result[name] = sum(v - base.get(p, 0.0) for p, v in now.items())
        self.result["generator"] = (sum(os.times()[:2]) - self.self0) * 1000
        self.seconds = time.monotonic() - self.t0
        self.load1 = os.getloadavg()


def pin(pid: int, cpus: set[int]) -> None:
    for p in descendants(pid):
        try:
            os.sched_setaffinity(p, cpus)
            for t in Path(f"/proc/{p}/task").iterdir():
                os.sched_setaffinity(int(t.name), cpus)
        except OSError:
            pass


class Child:
    """A server child process, its output in a log file."""

    def __init__(self, name: str, args: list[str], env: dict[str, str], logdir: Path) -> None:
        self.name = name
        self.log = open(logdir / f"{name}.log", "wb")  # noqa: SIM115 -- closed in stop()
        self.proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait(10)
        self.log.close()


def wait_port(port: int, child: Child | None, timeout: float = 90) -> None:
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if child is not None and child.proc.poll() is not None:
            raise SystemExit(f"{child.name} exited: see {child.log.name}")
        try:
            socket.create_connection((HOST, port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"nothing listens on {port}")


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


# --- the site's data, through the ORM ---------------------------------------------------


def make_tables(n_tables: int, run: str) -> list[dict]:
    """``n_tables`` tables, each with four new users seated (not ready), and a
    session cookie for each user: ``[{"id", "cookies": [4 × "sessionid=…"]}]``."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )
    from django.contrib.sessions.backends.db import SessionStore
    from django.db import transaction

    from games.models import Seat, Table

    User = get_user_model()
    backend = settings.AUTHENTICATION_BACKENDS[0]
    out = []
    with transaction.atomic():
        for t in range(n_tables):
            users = [User.objects.create_user(f"ld{run}t{t}s{s}") for s in range(4)]
            table = Table.objects.create(name=f"load {t}", owner=users[0])
            Seat.objects.bulk_create(Seat(table=table, index=i, user=u)
                                     for i, u in enumerate(users))
            cookies = []
            for u in users:
                session = SessionStore()
                session[SESSION_KEY] = str(u.pk)
                session[BACKEND_SESSION_KEY] = backend
                session[HASH_SESSION_KEY] = u.get_session_auth_hash()
                session.create()
                cookies.append(f"{settings.SESSION_COOKIE_NAME}={session.session_key}")
            out.append({"id": table.pk, "cookies": cookies})
    return out


def clear_load_tables() -> int:
    """Delete every table an earlier load run left (its games cascade): on a
    scratch production database a killed run's games keep "playing", and the
    beat sweep would time them out and move their 托管 bots during this run.
    Only this generator's rows: tables named ``load N`` owned by ``ld…`` users."""
    from games.models import Table

    deleted, _ = Table.objects.filter(name__startswith="load ",
                                      owner__username__startswith="ld").delete()
    return deleted


# --- clients ------------------------------------------------------------------------------


@dataclass
class Stats:
    moves: list[float] = field(default_factory=list)  # RTT ms of moves sent in the window
    syncs: list[float] = field(default_factory=list)
    spectate: list[float] = field(default_factory=list)  # send → a spectator has it, ms
    connect_failures: Counter = field(default_factory=Counter)
    failure_examples: dict = field(default_factory=dict)
    errors: Counter = field(default_factory=Counter)
    lost: int = 0
    spectator_missed: int = 0
    frames: int = 0
    pongs: int = 0
    measuring: bool = False
    flood_sent: int = 0
    flood_pongs: int = 0
    flood_s: float | None = None
    start_s: float = 0.0  # from the readies to every table playing


class Table:
    """The clients of one table, and when each seq was sent (for spectators)."""

    def __init__(self, tid: int, stats: Stats) -> None:
        self.id, self.stats = tid, stats
        self.sent: dict[int, float] = {}  # seq sent (the seq the mover saw) → perf time
        self.seqs_moved: set[int] = set()
        self.flooded = False  # its moves are not counted (--ping-flood)
        self.playing = False  # a playing view reached one of its players


class Client:
    def __init__(self, table: Table, url: str, cookie: str | None, seat: int | None,
                 args, floor: bool, rng: random.Random) -> None:
        self.table, self.url, self.cookie, self.seat = table, url, cookie, seat
        self.args, self.floor, self.rng = args, floor, rng
        self.ws = None
        self.pending: tuple[int, float] | None = None  # (seq sent, time)
        self.acted_seq = -1
        self.sync_sent: float | None = None
        self.seen: set[int] = set()
        self.tasks: list[asyncio.Task] = []

    async def connect(self) -> bool:
        from websockets.asyncio.client import connect

        headers = {"Cookie": self.cookie} if self.cookie else {}
        try:
            self.ws = await connect(self.url, origin=ORIGIN, additional_headers=headers,
                                    open_timeout=60, max_size=2**22, ping_interval=None)
            return True
        except Exception as e:  # counted by kind
            status = getattr(getattr(e, "response", None), "status_code", None)
            kind = f"{type(e).__name__}{status or ''}"
            self.table.stats.connect_failures[kind] += 1
            self.table.stats.failure_examples.setdefault(kind, f"{e!r} {e.__cause__!r}")
            return False

    async def send(self, msg: dict) -> None:
        with contextlib.suppress(Exception):  # a closed socket shows as lost moves
            await self.ws.send(json.dumps(msg))

    def start(self) -> None:
        self.tasks.append(asyncio.create_task(self.reader()))
        if self.args.ping:
            self.tasks.append(asyncio.create_task(self.every(self.args.ping, {"type": "ping"})))
        if self.args.sync and self.seat is not None:
            self.tasks.append(asyncio.create_task(self.syncer()))

    async def every(self, period: float, msg: dict) -> None:
        await asyncio.sleep(self.rng.uniform(0, period))
        while True:
            await self.send(msg)
            await asyncio.sleep(period)

    async def syncer(self) -> None:
        await asyncio.sleep(self.rng.uniform(0, self.args.sync))
        while True:
            self.sync_sent = time.perf_counter()
            await self.send({"type": "sync"})
            await asyncio.sleep(self.args.sync)

    async def reader(self) -> None:
        stats = self.table.stats
        try:
            async for raw in self.ws:
                now = time.perf_counter()
                stats.frames += 1
                msg = json.loads(raw)
                kind = msg["type"]
                if kind == "game" and msg["view"] is not None:
                    if self.sync_sent is not None:
                        if stats.measuring:
                            stats.syncs.append((now - self.sync_sent) * 1000)
                        self.sync_sent = None
                    self.on_view(msg["view"], now)
                elif kind == "error":
                    stats.errors[msg.get("reason")] += 1
                    if self.pending is not None:
                        self.pending = None
                elif kind == "pong":
                    stats.pongs += 1
                    if self.seat is None and self.table.flooded:
                        stats.flood_pongs += 1
        except Exception:  # the connection closed
            pass

    async def flood(self, pings: int) -> None:
        """Send ``pings`` pings as fast as the socket takes them."""
        frame = json.dumps({"type": "ping"})
        for _ in range(pings):
            try:
                await self.ws.send(frame)
            except Exception:  # closed
                return
            self.table.stats.flood_sent += 1

    def on_view(self, view: dict, now: float) -> None:
        stats, seq = self.table.stats, view["seq"]
        measuring = stats.measuring and not self.table.flooded
        if self.seat is None:  # a spectator: when did this seq's move reach me?
            if seq not in self.seen:
                self.seen.add(seq)
                sent = self.table.sent.get(seq - 1)
                if sent is not None and measuring:
                    stats.spectate.append((now - sent) * 1000)
            return
        if self.pending is not None and seq > self.pending[0]:
            if measuring:
                stats.moves.append((now - self.pending[1]) * 1000)
            self.pending = None
        if view["status"] == "playing":
            self.table.playing = True
        if view["status"] != "playing":
            if not self.floor:  # the game ended: ready for the next one
                asyncio.get_running_loop().call_later(
                    self.rng.uniform(0.2, 1.0),
                    lambda: asyncio.ensure_future(self.send({"type": "ready"})))
            return
        if view["turn"] == self.seat and seq > self.acted_seq:
            self.acted_seq = seq
            delay = self.rng.uniform(0, 2 * self.args.think)
            asyncio.get_running_loop().call_later(
                delay, lambda: asyncio.ensure_future(self.move(view)))

    async def move(self, view: dict) -> None:
        seq = view["seq"]
        if self.floor:
            msg = {"type": "play", "seq": seq}
        elif view.get("hints"):
            hint = view["hints"][0]
            cards = hint["cards"] if isinstance(hint, dict) else hint
            msg = {"type": "play", "seq": seq, "cards": cards}
            if view.get("can_pass") and self.rng.random() < 0.5:
                msg = {"type": "pass", "seq": seq}
        else:
            msg = {"type": "pass", "seq": seq}
        now = time.perf_counter()
        if (self.pending is not None and self.table.stats.measuring
                and not self.table.flooded):
            self.table.stats.lost += 1  # the previous move's view never came
        self.pending = (seq, now)
        self.table.sent[seq] = now
        await self.send(msg)

    async def close(self) -> None:
        for t in self.tasks:
            t.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)


def make_clients(tables: list[dict], ports: list[int], args, floor: bool,
                 stats: Stats) -> list[Client]:
    """Four players a table (cookies, or ``?seat=`` on the floor), its
    spectators, and the ping flooders of the first table; ports in turn."""
    rng = random.Random(args.seed)
    clients: list[Client] = []
    for n, t in enumerate(tables):
        table = Table(t["id"], stats)
        port = ports[n % len(ports)]
        base = f"ws://{HOST}:{port}/ws/table/{t['id']}/"
        for seat in range(4):
            url = base + (f"?seat={seat}" if floor else "")
            cookie = None if floor else t["cookies"][seat]
            clients.append(Client(table, url, cookie, seat, args, floor,
                                  random.Random(rng.random())))
        for k in range(args.spectators):
            sport = ports[(n + k) % len(ports)]
            clients.append(Client(table, f"ws://{HOST}:{sport}/ws/table/{t['id']}/",
                                  None, None, args, floor, random.Random(rng.random())))
        if n == 0 and args.ping_flood:
            table.flooded = True
            for k in range(args.ping_flood):
                fport = ports[k % len(ports)]
                clients.append(Client(table, f"ws://{HOST}:{fport}/ws/table/{t['id']}/",
                                      None, None, args, floor, random.Random(rng.random())))
    return clients


async def run_load(tables: list[dict], ports: list[int], args, floor: bool,
                   meter: CpuMeter) -> tuple[Stats, float]:
    stats = Stats()
    clients = make_clients(tables, ports, args, floor, stats)
    flooders = [c for c in clients if c.seat is None and c.table.flooded]
    t0 = time.monotonic()
    ok = await asyncio.gather(*(c.connect() for c in clients))  # all at once
    connect_s = time.monotonic() - t0
    live = [c for c, good in zip(clients, ok, strict=True) if good]
    for c in live:
        c.start()
    await asyncio.sleep(1.0)  # greetings
    for c in live:
        if c.seat is not None:
            if floor:
                if c.seat == 0:
                    c.on_view({"seq": 0, "turn": 0, "status": "playing"}, time.perf_counter())
            else:
                await c.send({"type": "ready"})
    # the window opens once every table plays (the site starts 250 games from
    # a thousand readies; the floor has none), at most --start-wait s later
    started = time.monotonic()
    tables_of = {id(c.table): c.table for c in live}.values()
    while (not all(t.playing for t in tables_of)
           and time.monotonic() - started < args.start_wait):
        await asyncio.sleep(0.2)
    stats.start_s = time.monotonic() - started
    await asyncio.sleep(args.warmup)
    stats.measuring = True
    meter.start()
    spy = None
    if args.profile and not floor:
        pid = meter.groups["server"]()[0]
        exe = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        spy = subprocess.Popen([exe, "record", "-p", str(pid),
                                "-d", str(int(args.duration)), "-r", "100", "-f", "raw",
                                "-o", args.profile, "--nonblocking"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    flood = None
    if flooders:
        async def run_flood() -> None:
            t = time.perf_counter()
            await asyncio.gather(*(c.flood(args.flood_pings) for c in flooders
                                   if c.ws is not None))
            stats.flood_s = time.perf_counter() - t
        flood = asyncio.create_task(run_flood())
    await asyncio.sleep(args.duration)
    stats.measuring = False
    if flood is not None:
        await flood
    meter.stop()
    if spy is not None:
        await asyncio.get_running_loop().run_in_executor(None, spy.wait)
    pending = [c for c in live if c.pending is not None]
    await asyncio.sleep(3)  # grace for views in flight
    stats.lost += sum(1 for c in pending if c.pending is not None and c.pending[1]
                      < time.perf_counter() - 3)
    if args.spectators:
        for c in live:
            if c.seat is None:
                moved = {s + 1 for s in c.table.sent}
                stats.spectator_missed += len({s for s in moved if s - 1 in c.table.sent}
                                              - c.seen - {max(moved, default=0)})
    await asyncio.gather(*(c.close() for c in live))
    return stats, connect_s


# --- the stacks ---------------------------------------------------------------------------


def site_env(extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "yuanzi_site.settings",
            "GAMES_TURN_SECONDS": "600", "GAMES_ACTION_RATE": "1000000",
            "GAMES_BOT_DELAY_SECONDS": "1", "PYTHONUNBUFFERED": "1",
            # a busy evening runs with DEBUG off (DEBUG keeps and formats every query)
            "DEBUG": "0", **extra}


def daphne_args(app: str, port: int) -> list[str]:
    return [sys.executable, "-m", "daphne", "-e",
            f"tcp:port={port}:interface={HOST}:backlog=1024",
            "--websocket_connect_timeout", "30", "-v", "0", app]


def start_stack(args, floor: bool, logdir: Path, env: dict[str, str]) -> tuple[list[Child],
                                                                            list[int], dict]:
    """Start the server children; returns them, their ports and the CPU groups."""
    children: list[Child] = []
    ports: list[int] = []
    n = 1 if args.stack == "embedded" else args.processes
    for i in range(n):
        port = free_port()
        if floor:
            fenv = dict(env)
            if args.stack == "production":
                fenv["FLOOR_REDIS_URL"] = os.environ["REDIS_URL"]
            if args.floor_tuned:
                fenv["FLOOR_TUNED"] = "1"
            cmd = daphne_args("bench.floor:application", port)
            children.append(Child(f"floor{i}", cmd, fenv, logdir))
        elif args.stack == "embedded":
            cmd = [sys.executable, "manage.py", "runsite", "--port", str(port), "-v", "0"]
            children.append(Child("runsite", cmd, env, logdir))
        else:
            children.append(Child(f"daphne{i}", daphne_args("yuanzi_site.asgi:application",
                                                            port), env, logdir))
        ports.append(port)
    server = list(children)
    if args.stack == "production" and not floor:
        celery = [sys.executable, "-m", "celery", "-A", "yuanzi_site"]
        children.append(Child("worker", [*celery, "worker", "-l", "warning", "-P", "threads",
                                         "-c", "4", "--without-gossip", "--without-mingle",
                                         "--without-heartbeat"], env, logdir))
        children.append(Child("beat", [*celery, "beat", "-l", "warning", "-s",
                                       str(logdir / "beat-schedule")], env, logdir))
        server = list(children)
    for c, port in zip(children, ports, strict=False):
        wait_port(port, c)
    time.sleep(1.0)
    if args.pin and (os.cpu_count() or 1) > 1:
        cpus = set(range(os.cpu_count()))
        last = max(cpus)
        os.sched_setaffinity(0, {last})
        for c in children:
            pin(c.proc.pid, cpus - {last})
    groups = {"server": lambda: [p for c in server for p in descendants(c.proc.pid)]}
    return children, ports, groups


def stack_groups(args) -> dict:
    groups = {}
    if args.stack == "production":
        from django.conf import settings

        db = settings.DATABASES["default"]["NAME"]
        groups["postgresql"] = lambda: pids_matching(
            lambda cmd: cmd.startswith("postgres: ") and f" {db} " in cmd)
        groups["redis"] = lambda: pids_matching(lambda cmd: cmd.startswith("redis-server"))
    return groups


def percentile(xs: list[float], q: float) -> float | None:
    if not xs:
        return None
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * q))]


def summary(stats: Stats, meter: CpuMeter, connect_s: float, sockets: int) -> dict:
    moves = len(stats.moves)
    r = meter.result
    out = {
        "sockets": sockets,
        "connect_s": round(connect_s, 2),
        "start_s": round(stats.start_s, 2),
        "moves": moves,
        "moves_per_s": round(moves / meter.seconds, 1),
        "move_ms": {k: (round(v, 1) if v is not None else None) for k, v in (
            ("p50", percentile(stats.moves, 0.5)), ("p95", percentile(stats.moves, 0.95)),
            ("p99", percentile(stats.moves, 0.99)), ("max", percentile(stats.moves, 1.0)))},
        "sync_ms": {"p50": _r(percentile(stats.syncs, 0.5)),
                    "p99": _r(percentile(stats.syncs, 0.99))},
        "connection_failures": dict(stats.connect_failures),
        "connection_failure_examples": stats.failure_examples,
        "errors": dict(stats.errors),
        "lost_moves": stats.lost,
        "server_cpu_ms_per_move": round(r.get("server", 0) / moves, 2) if moves else None,
        "server_cpu_pct": round(r.get("server", 0) / meter.seconds / 10, 1),
        "generator_cpu_pct": round(r["generator"] / meter.seconds / 10, 1),
        "load_average": [round(x, 2) for x in meter.load1],
        "load_average_before": [round(x, 2) for x in meter.load0],
    }
    for name in ("postgresql", "redis"):
        if name in r:
            out[f"{name}_cpu_pct"] = round(r[name] / meter.seconds / 10, 1)
            out[f"{name}_cpu_ms_per_move"] = round(r[name] / moves, 2) if moves else None
    if stats.flood_sent:
        out["flood"] = {"pings_sent": stats.flood_sent, "pongs": stats.flood_pongs,
                        "seconds": _r(stats.flood_s)}
    if stats.spectate:
        out["spectator_ms"] = {"p50": _r(percentile(stats.spectate, 0.5)),
                               "p99": _r(percentile(stats.spectate, 0.99)),
                               "max": _r(percentile(stats.spectate, 1.0))}
        out["spectator_frames_missed"] = stats.spectator_missed
    return out


def _r(x):
    return round(x, 1) if x is not None else None


def show(label: str, s: dict) -> None:
    m = s["move_ms"]
    print(f"== {label}: {s['sockets']} sockets connected in {s['connect_s']} s")
    print(f"  moves/s {s['moves_per_s']}  ({s['moves']} moves)")
    print(f"  move RTT ms  p50 {m['p50']}  p95 {m['p95']}  p99 {m['p99']}  max {m['max']}")
    print(f"  sync RTT ms  p50 {s['sync_ms']['p50']}  p99 {s['sync_ms']['p99']}")
    if "flood" in s:
        f = s["flood"]
        print(f"  ping flood at the first table (its moves not counted): {f['pings_sent']}"
              f" pings sent in {f['seconds']} s, {f['pongs']} pongs back")
    if "spectator_ms" in s:
        sp = s["spectator_ms"]
        print(f"  spectators: move reaches them p50 {sp['p50']} p99 {sp['p99']} max {sp['max']}"
              f" ms; frames missed {s['spectator_frames_missed']}")
    print(f"  connection failures {s['connection_failures'] or 0}  errors {s['errors'] or 0}"
          f"  lost moves {s['lost_moves']}")
    for kind, example in s["connection_failure_examples"].items():
        print(f"    e.g. {kind}: {example[:200]}")
    print(f"  server CPU {s['server_cpu_ms_per_move']} ms/move ({s['server_cpu_pct']}% of a core)"
          + "".join(f"; {n} {s[f'{n}_cpu_ms_per_move']} ms/move ({s[f'{n}_cpu_pct']}%)"
                    for n in ("postgresql", "redis") if f"{n}_cpu_pct" in s))
    print(f"  generator CPU {s['generator_cpu_pct']}% of a core; load average "
          f"{s['load_average']} (before {s['load_average_before']})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stack", choices=("embedded", "production"), default="embedded")
    parser.add_argument("--tables", type=int, default=50)
    parser.add_argument("--spectators", type=int, default=0, help="anonymous per table")
    parser.add_argument("--duration", type=float, default=30.0, help="measured seconds")
    parser.add_argument("--warmup", type=float, default=3.0,
                        help="s after every table plays, before the window")
    parser.add_argument("--start-wait", type=float, default=60.0,
                        help="longest wait for every table's first playing view, s")
    parser.add_argument("--think", type=float, default=1.0, help="mean think time, s")
    parser.add_argument("--ping", type=float, default=5.0, help="ping period, s (0: none)")
    parser.add_argument("--sync", type=float, default=10.0, help="sync period, s (0: none)")
    parser.add_argument("--ping-flood", type=int, default=0, metavar="SOCKETS",
                        help="sockets flooding the first table with pings in the window")
    parser.add_argument("--flood-pings", type=int, default=2000, help="pings per flooder")
    parser.add_argument("--processes", type=int, default=2, help="production Daphnes")
    parser.add_argument("--ports", help="running production processes, e.g. 8001,8002")
    parser.add_argument("--floor", action="store_true", help="also run the framework floor")
    parser.add_argument("--no-site", action="store_true", help="only the floor")
    parser.add_argument("--floor-tuned", action="store_true",
                        help="the floor with the site's layer and dispatch (bench/floor.py)")
    parser.add_argument("--no-pin", dest="pin", action="store_false")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--keep-logs", action="store_true", help="keep the servers' logs")
    parser.add_argument("--profile", metavar="FILE",
                        help="py-spy the (first) server process over the window (raw stacks)")
    args = parser.parse_args()
    if not (1 <= args.tables <= 300 and 0 <= args.spectators <= 1000
            and 0 < args.duration <= 600 and 0 <= args.ping_flood <= 100
            and 0 <= args.flood_pings <= 10_000):
        parser.error("bounded: 1–300 tables, 0–1000 spectators, duration ≤ 600 s, "
                     "≤ 100 flooding sockets × 10,000 pings")
    logdir = Path(tempfile.mkdtemp(prefix="yuanzi-load-"))
    env = {"SITE_ORIGINS": ORIGIN}
    if args.stack == "production":
        if not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
            parser.error("--stack production needs DATABASE_URL and REDIS_URL")
        env["GAMES_SCHEDULER"] = "celery"
        # its own key prefix: presence left in Redis by another database's
        # processes (a test run) must not stand this run's players up
        env["REDIS_PREFIX"] = os.environ["REDIS_PREFIX"] = (
            os.environ.get("REDIS_PREFIX", "yuanzi") + "-load")
    else:
        for k in ("DATABASE_URL", "REDIS_URL"):
            os.environ.pop(k, None)
        os.environ["SQLITE_PATH"] = str(logdir / "load.sqlite3")
        env["SQLITE_PATH"] = os.environ["SQLITE_PATH"]
    env = site_env(env)
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env,
                   check=True)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "yuanzi_site.settings")
    import django

    django.setup()
    run = f"{os.getpid()}x{int(time.time()) % 100000}"
    results = {}
    sockets = args.tables * (4 + args.spectators) + args.ping_flood
    try:
        for floor in ([] if args.no_site else [False]) + ([True] if args.floor or args.no_site
                                                            else []):
            label = "floor" if floor else f"site ({args.stack})"
            if not floor:
                clear_load_tables()
            tables = ([{"id": i + 1} for i in range(args.tables)] if floor
                      else make_tables(args.tables, run))
            children: list[Child] = []
            if args.ports and not floor:
                ports = [int(p) for p in args.ports.split(",")]
                pids = listening_pids(ports)
                groups = {"server": lambda pids=pids: [q for p in pids for q in descendants(p)]}
            else:
                children, ports, groups = start_stack(args, floor, logdir, env)
            meter = CpuMeter({**groups, **({} if floor else stack_groups(args))})
            try:
                stats, connect_s = asyncio.run(run_load(tables, ports, args, floor, meter))
            finally:
                for c in children:
                    c.stop()
                if not floor:
                    clear_load_tables()
            results[label] = summary(stats, meter, connect_s, sockets)
            if not args.json:
                show(label, results[label])
    finally:
        if args.keep_logs:
            print(f"logs in {logdir}", file=sys.stderr)
        else:
            shutil.rmtree(logdir, ignore_errors=True)
    site, base = results.get(f"site ({args.stack})"), results.get("floor")
    if site and base:
        ratios = {
            "moves_per_s": _ratio(site["moves_per_s"], base["moves_per_s"]),
            "move_p99": _ratio(site["move_ms"]["p99"], base["move_ms"]["p99"]),
            "server_cpu_ms_per_move": _ratio(site["server_cpu_ms_per_move"],
                                             base["server_cpu_ms_per_move"]),
        }
        results["site_over_floor"] = ratios
        if not args.json:
            print(f"== site ÷ floor: moves/s {ratios['moves_per_s']}×, move p99 "
                  f"{ratios['move_p99']}×, server CPU per move {ratios['server_cpu_ms_per_move']}×")
    if args.json:
        print(json.dumps({"args": vars(args), **results}, indent=1))


def _ratio(a, b):
    return round(a / b, 2) if a is not None and b else None


if __name__ == "__main__":
    main()
