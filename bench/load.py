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
    python bench/load.py --tables 50 --bot-share 0.5   # half the tables: one human, three bots
    python bench/load.py --stack production --storm 1000        # a connect storm, two Daphnes
    python bench/load.py --tables 250 --reconnect --late-wave 500 --reconnect-wave 1  # overload
    python bench/load.py --stack production --rolling-restart --tables 50  # nginx, roll both

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
``--ping`` s and sends ``sync`` every ``--sync`` s. Every move carries a
``ref`` (echoed by a refusal) and goes into the client's ledger (:class:`Send`).

Printed (``--json``: one JSON object): moves/s (the human moves whose round
trip was measured) and, from the server's record (``GameEvent.by`` in the
window), moves/s by who moved: ``human`` and ``bot``; move round trip (send →
the mover's own new view) p50/p95/p99/max; ``sync`` round trip (send → next
view) p50/p99; a move's arrival at spectators p50/p99 and frames spectators
missed; connection failures and errors by reason; moves whose view never came;
connections closed during the run by close code, and 4503 refusals by who was
refused (a running game's player, a waiting table's player, a spectator, a
lobby socket); the actions ledger (sent, acknowledged, applied, refused,
unread at a close, **lost**, **duplicates**: :func:`check_ledger`); error
lines, tracebacks and 5xx answers in the servers' logs; server CPU ms per move
(Daphne + Celery processes over the window ÷ moves); PostgreSQL (backends of
this database) and Redis CPU separately; the generator's own CPU; the load
average. ``--floor`` then runs the same load against ``bench/floor.py`` (a
bare Channels app doing only a move's fan-out, same layer, same number of
processes) and prints the ratios.

The generator pins itself to the last CPU and its server children to the
others (``sched_setaffinity``) where the OS allows (``--no-pin`` to leave them).
``--ping-flood N`` (a flood once slowed the moves at other tables): once the
window opens, N more sockets at the first table send ``--flood-pings`` pings
each as fast as they can; the move figures are then of the *other* tables only
(the first table's moves are not counted), and the flood's own figures (pings
sent, pongs back, seconds) are printed beside them.

Modes:

* ``--bot-share F`` (quiet evenings are mostly bot tables): a share F of the
  tables, spread evenly, seat one human client at seat 0 and three of the
  site's bots (``--bot-policy``, default ``expert``; seated as ``add_bot``
  seats them, always ready) that move through the site's scheduler (the
  ticker embedded, Celery in production) after the production pause,
  ``GAMES_BOT_DELAY_SECONDS=1`` (0.5–1.5 s); the other tables four humans.
* ``--storm N``: only a connect storm. N seated players' sockets (N / 4
  tables, made as above, no game started) open at once, spread over the
  Daphnes in turn; each waits for its first snapshot (the ``table`` frame),
  all stay open ``--storm-hold`` s. Printed: accepted, first snapshots, still
  open after the hold, failures by reason (handshake errors by kind and status,
  a close before the snapshot by code), the time of the last accept and the
  first snapshots' p50/p99/max (from the storm's start), server errors in the
  logs.
* Overload (games/adapters/overload.py): ``--reconnect`` makes clients
  reconnect as the page does (static/js/socket.js: 1012 → a random 0.5–5 s;
  4503 → 2 s + up to backoff + 3 s, the backoff doubling to 15 s; anything else
  the backoff; never after 4403 / 4404); a move left unanswered by a close is
  decided again from the fresh snapshot. At ``--wave-at`` of the window
  ``--late-wave N`` newcomers (alternately an anonymous spectator of a table
  and an anonymous lobby socket) connect at once; once each is in or refused,
  ``--reconnect-wave F`` drops the sockets of a share F of the players of
  running games, who all come back at once (they must all be let in).
  Printed: the wave's outcomes (accepted, 4503, other closes), the players'
  (dropped, let in, refused), the moves/s and p99 of the tables playing
  meanwhile, and the 4503 refusals by who. ``GAMES_MAX_SOCKETS=…`` in the
  environment reaches the servers (saturation by count at a small size).
* ``--rolling-restart`` (production; its own stack): nginx runs
  ``deploy/nginx.conf`` as written (deploy/nginx_conf.py; TLS, self-signed) in
  front of the Daphnes (``--proxy-headers``, ``TRUSTED_PROXIES=127.0.0.1``),
  every client connects through it and reconnects as the page does. After
  ``--settle`` s of the window, for each Daphne in turn: SIGTERM (it drains,
  games/adapters/drain.py: in-flight actions finish, sockets close with
  1012), wait for its exit, start it again on its port, wait for ``/readyz``
  200, then ``--restart-gap`` s (0: docs/deploy.md's procedure) before the
  next; ``--settle`` s more of load after the last. The window lasts the whole
  roll. Printed per restart: drain-and-exit seconds and exit status, seconds
  until ready again, clients closed with 1012, how many came back and when
  the last one was greeted again, counted from the SIGTERM (**the benchmark
  figure**; ``None`` when not all came back), the slowest single reconnect;
  then the players connected at the end and the ledger. ``--nginx-max-fails N``
  replaces ``max_fails`` on nginx's upstream lines to compare.

**No action lost** (:func:`check_ledger`, the rolling restart's and every run's
ledger): each move a client sent is either *applied exactly once* — its game
has a ``by="player"`` event at the sent ``seq`` + 1 for its seat with the same
type and cards, and no other decision's send matches it — or the client *was
told it was not*: an ``error`` frame echoing its ``ref`` (a refusal), or its
connection closed before the answer came and the fresh snapshot after
reconnecting showed the game still at the sent ``seq`` (the page then clears
its pending move and the player decides again; the bench re-sends from that
snapshot under the same intent). Anything else is **lost**: unanswered on an
open socket, or acknowledged by a view yet absent from the record. A
**duplicate** is a decision (intent) applied more than once, or a player
event in the record that no client sent.

Bounded: at most 300 tables, 1,000 spectators per table, 600 s, 100 flooding
sockets × 10,000 pings, storms and waves of 2,000 sockets; 127.0.0.1 only.
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
        self.name, self.args, self.env = name, args, env
        self.log = open(logdir / f"{name}.log", "wb")  # noqa: SIM115 -- closed in stop()
        self.spawn()

    def spawn(self) -> None:
        self.proc = subprocess.Popen(self.args, cwd=ROOT, env=self.env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)

    def terminate(self, timeout: float = 60) -> int | None:
        """SIGTERM (a Daphne drains, games/adapters/drain.py) and wait for the
        exit; returns the exit status (``None``: still running, then killed)."""
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)
            return None

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


def bot_table(t: int, share: float) -> bool:
    """Is table ``t`` one of the ``share`` with three bots? Spread evenly
    (0.5: every second table, 0.25: every fourth …)."""
    return int((t + 1) * share) > int(t * share)


def make_tables(n_tables: int, run: str, bot_share: float = 0.0,
                bot_policy: str = "expert") -> list[dict]:
    """``n_tables`` tables with their seats taken (not ready) and a session
    cookie for each seated user: ``[{"id", "cookies": [4 × "sessionid=…" or
    None for a bot seat], "bots": bool}]``. A share ``bot_share`` of the
    tables (:func:`bot_table`) seat one new user at seat 0 and three of the
    site's bots (``bot_policy``, always ready, as ``add_bot`` seats them);
    the others four new users."""
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
            bots = bot_table(t, bot_share)
            users = [User.objects.create_user(f"ld{run}t{t}s{s}") if s == 0 or not bots
                     else None for s in range(4)]
            table = Table.objects.create(name=f"load {t}", owner=users[0])
            Seat.objects.bulk_create(
                Seat(table=table, index=i, user=u) if u is not None
                else Seat(table=table, index=i, is_bot=True, ready=True, bot_policy=bot_policy)
                for i, u in enumerate(users))
            cookies: list[str | None] = []
            for u in users:
                if u is None:
                    cookies.append(None)
                    continue
                session = SessionStore()
                session[SESSION_KEY] = str(u.pk)
                session[BACKEND_SESSION_KEY] = backend
                session[HASH_SESSION_KEY] = u.get_session_auth_hash()
                session.create()
                cookies.append(f"{settings.SESSION_COOKIE_NAME}={session.session_key}")
            out.append({"id": table.pk, "cookies": cookies, "bots": bots})
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

#: close codes after which the page does not reconnect (docs/protocol.md)
FINAL_CODES = (4403, 4404)
RESTART_CODE, BUSY_CODE = 1012, 4503


@dataclass
class Send:
    """One move a client sent, for the no-action-lost check (:func:`check_ledger`).

    ``intent`` is the decision it carries out: a re-send after a close left
    the move unanswered keeps it, so an intent applied twice is a duplicate.
    ``outcome`` as the client saw it: ``sent`` (no answer yet), ``acknowledged``
    (its own view moved past ``seq`` on the same connection), ``refused`` (an
    ``error`` echoing ``ref``), ``closed`` (the connection closed first),
    then, from the fresh snapshot after reconnecting, ``unread`` (the game
    still at ``seq``: it was not applied, the client decides again) or
    ``moved_on`` (the game had moved past ``seq``)."""

    intent: int
    ref: str
    game: int | None
    seat: int
    seq: int
    action: dict
    gen: int  # which of the client's connections carried it
    outcome: str = "sent"
    reason: str | None = None


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
    # connections that ended while the run went on, by close code (1006: no close frame)
    closes: Counter = field(default_factory=Counter)
    busy: Counter = field(default_factory=Counter)  # 4503 refusals by who was refused
    reconnect_failures: Counter = field(default_factory=Counter)  # handshakes that failed
    # (closed, greeted again) perf times and the close code, one per reconnect
    reconnects: list[tuple[float, float, int | None]] = field(default_factory=list)
    sends: list[Send] = field(default_factory=list)
    late_wave: Counter = field(default_factory=Counter)  # --late-wave outcomes
    player_wave: Counter = field(default_factory=Counter)  # --reconnect-wave outcomes
    window: tuple = ()  # (start, end) of the measured window, aware datetimes
    restarts: list[dict] = field(default_factory=list)  # --rolling-restart's steps
    # (perf time, client id, "closed" / "greeted", close code): every connection's end and start
    timeline: list[tuple[float, int, str, int | None]] = field(default_factory=list)


class Table:
    """The clients of one table, and when each seq was sent (for spectators)."""

    def __init__(self, tid: int, stats: Stats, bots: bool = False) -> None:
        self.id, self.stats, self.bots = tid, stats, bots
        self.sent: dict[int, float] = {}  # seq sent (the seq the mover saw) → perf time
        self.seqs_moved: set[int] = set()
        self.flooded = False  # its moves are not counted (--ping-flood)
        self.playing = False  # a playing view reached one of its players


def client_ssl(url: str):
    """No certificate check for ``wss://`` (the tests' and bench's nginx is self-signed)."""
    if not url.startswith("wss:"):
        return None
    import ssl

    ctx = ssl.create_default_context()
    ctx.check_hostname, ctx.verify_mode = False, ssl.CERT_NONE
    return ctx


class Client:
    """One websocket client: a seated player (``seat``), a spectator
    (``seat=None``) or a lobby socket (``lobby=True``).

    With ``args.reconnect`` it reconnects as the page does (static/js/socket.js):
    after 1012 a random 0.5–5 s, after 4503 2 s + up to (backoff + 3 s) with
    the backoff doubling, after anything else the backoff (1, 2, 4 … 15 s) plus
    up to 0.5 s; never after 4403 / 4404. A move left unanswered by a close is
    decided again from the fresh snapshot (the page clears its pending move)."""

    def __init__(self, table: Table, url: str, cookie: str | None, seat: int | None,
                 args, floor: bool, rng: random.Random, cid: int = 0,
                 lobby: bool = False) -> None:
        self.table, self.url, self.cookie, self.seat = table, url, cookie, seat
        self.args, self.floor, self.rng, self.cid, self.lobby = args, floor, rng, cid, lobby
        self.ws = None
        self.pending: tuple[int, float] | None = None  # (seq sent, time)
        self.acted: tuple[int | None, int] = (None, -1)  # (game, seq) last acted on
        self.last_code: int | None = None
        self.sync_sent: float | None = None
        self.seen: set[int] = set()
        self.tasks: list[asyncio.Task] = []
        self.gen = 0  # connections opened so far
        self.greeted = False  # the current connection's greeting came
        self.status: str | None = None  # the table's game as last seen: "playing" or not
        self.closed_at: float | None = None  # when the last connection closed
        self.stopping = False  # the run is over: no reconnect
        self.no_moves = False  # the window is over: no new moves
        self.backoff = 1.0
        self.intent = 0
        self.last_send: Send | None = None
        self.refs: dict[str, Send] = {}
        self.retry_intent: int | None = None  # a move to decide again (same intent)
        self.wave: str | None = None  # "late" / "player": counted in that wave
        self.dropping = False  # closing its own socket for the players' wave
        self.kind_at_connect = "player"
        self.keep_frames = False
        self.frames: list[dict] = []  # every frame (keep_frames), for the record checks
        self.view: dict | None = None

    def kind(self) -> str:
        """Who this client is, for the 4503 counts."""
        if self.lobby:
            return "lobby"
        if self.seat is None:
            return "spectator"
        return "player, game running" if self.status == "playing" else "player, table waiting"

    async def connect(self) -> bool:
        from websockets.asyncio.client import connect

        headers = {"Cookie": self.cookie} if self.cookie else {}
        kw = {"ssl": client_ssl(self.url)} if self.url.startswith("wss:") else {}
        self.kind_at_connect = self.kind()
        try:
            self.ws = await connect(self.url, origin=ORIGIN, additional_headers=headers,
                                    open_timeout=60, max_size=2**22, ping_interval=None,
                                    **kw)
        except Exception as e:  # counted by kind
            status = getattr(getattr(e, "response", None), "status_code", None)
            kind = f"{type(e).__name__}{status or ''}"
            stats = self.table.stats
            (stats.connect_failures if self.gen == 0 else stats.reconnect_failures)[kind] += 1
            stats.failure_examples.setdefault(kind, f"{e!r} {e.__cause__!r}")
            if self.wave == "late":
                stats.late_wave[f"failed: {kind}"] += 1
                self.wave = None
            return False
        self.gen += 1
        self.greeted = False
        return True

    async def send(self, msg: dict) -> None:
        with contextlib.suppress(Exception):  # a closed socket shows as lost moves
            await self.ws.send(json.dumps(msg))

    def start(self) -> None:
        self.tasks.append(asyncio.create_task(self.reader()))
        self.start_timers()

    def start_timers(self) -> None:
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

    def greeting(self, now: float) -> None:
        """The first frame of a connection (``table`` or the lobby's ``tables``)."""
        self.greeted = True
        self.backoff = 1.0
        stats = self.table.stats
        if self.gen > 1 and self.closed_at is not None:
            stats.reconnects.append((self.closed_at, now, self.last_code))
        stats.timeline.append((now, self.cid, "greeted", None))
        if self.wave == "late":
            stats.late_wave["accepted"] += 1
        elif self.wave == "player":
            stats.player_wave["let in"] += 1
        self.wave = None

    async def reader(self) -> None:
        stats = self.table.stats
        ws = self.ws
        try:
            async for raw in ws:
                now = time.perf_counter()
                stats.frames += 1
                msg = json.loads(raw)
                if self.keep_frames:
                    self.frames.append(msg)
                kind = msg["type"]
                if not self.greeted and kind in ("table", "tables"):
                    self.greeting(now)
                if kind == "table":
                    self.status = msg["table"].get("status")
                    if (self.gen > 1 and self.seat is not None and self.status == "waiting"
                            and not self.floor and not self.no_moves):
                        await self.send({"type": "ready"})  # back at a waiting table
                elif kind == "game" and msg["view"] is not None:
                    if self.sync_sent is not None:
                        if stats.measuring:
                            stats.syncs.append((now - self.sync_sent) * 1000)
                        self.sync_sent = None
                    self.on_view(msg["view"], now)
                elif kind == "error":
                    stats.errors[msg.get("reason")] += 1
                    sent = self.refs.get(msg.get("ref"))
                    if sent is not None:  # the server's own answer to that message
                        sent.outcome, sent.reason = "refused", msg.get("reason")
                    if self.pending is not None:
                        self.pending = None
                elif kind == "pong":
                    stats.pongs += 1
                    if self.seat is None and self.table.flooded:
                        stats.flood_pongs += 1
        except Exception:  # the connection closed
            pass
        self.on_closed(ws)

    def on_closed(self, ws) -> None:
        """The connection ended: count it, and reconnect as the page does."""
        if self.stopping or ws is not self.ws:
            return
        stats = self.table.stats
        code = ws.close_code
        self.last_code = code
        self.closed_at = time.perf_counter()
        self.greeted = False
        stats.closes[code] += 1
        stats.timeline.append((self.closed_at, self.cid, "closed", code))
        if code == BUSY_CODE:
            stats.busy[self.kind_at_connect] += 1
        if self.wave == "late":
            stats.late_wave[f"closed {code}" if code != BUSY_CODE else "4503"] += 1
            self.wave = None
            return  # a newcomer of the wave is counted once
        if self.dropping:
            self.dropping = False  # our own close (--reconnect-wave): back at once
        elif self.wave == "player":
            stats.player_wave[f"refused {code}"] += 1  # closed again before the greeting
            self.wave = None
        if self.last_send is not None and self.last_send.outcome == "sent":
            self.last_send.outcome = "closed"
        self.pending = None
        if self.args.reconnect and code not in FINAL_CODES:
            self.tasks.append(asyncio.create_task(self.reconnect(code)))

    def wait_after(self, code: int | None) -> float:
        """Seconds before reconnecting after a close with ``code`` (the page's rule)."""
        if self.wave == "player":
            return 0.0  # --reconnect-wave: back at once, all together
        if code == RESTART_CODE:
            self.backoff = 1.0
            return self.rng.uniform(0.5, 5.0)
        if code == BUSY_CODE:
            wait = 2.0 + self.rng.uniform(0, self.backoff + 3.0)
        else:
            wait = self.backoff + self.rng.uniform(0, 0.5)
        self.backoff = min(self.backoff * 2, 15.0)
        return wait

    async def reconnect(self, code: int | None) -> None:
        while not self.stopping:
            await asyncio.sleep(self.wait_after(code))
            if self.stopping:
                return
            if await self.connect():
                self.acted = (None, -1)  # decide again from the fresh snapshot
                self.tasks.append(asyncio.create_task(self.reader()))
                return
            code = None

    async def drop(self) -> None:
        """Close this connection from the client's side, to come back at once
        (--reconnect-wave: the players' reconnect storm)."""
        self.wave, self.dropping = "player", True
        with contextlib.suppress(Exception):
            await self.ws.close()

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
        self.view = view
        self.status = view["status"]
        measuring = stats.measuring and not self.table.flooded
        if self.seat is None:  # a spectator: when did this seq's move reach me?
            if seq not in self.seen:
                self.seen.add(seq)
                sent = self.table.sent.get(seq - 1)
                if sent is not None and measuring:
                    stats.spectate.append((now - sent) * 1000)
            return
        last = self.last_send
        if last is not None and (view.get("game_id") != last.game or seq > last.seq):
            if last.outcome == "sent" and last.gen == self.gen:
                last.outcome = "acknowledged"
            elif last.outcome == "closed":
                last.outcome = "moved_on"  # the fresh snapshot is past it
        elif last is not None and last.outcome == "closed" and seq == last.seq:
            last.outcome = "unread"  # not applied: decide again, same intent
            self.retry_intent = last.intent
        if self.pending is not None and seq > self.pending[0]:
            if measuring:
                stats.moves.append((now - self.pending[1]) * 1000)
            self.pending = None
        if view["status"] == "playing":
            self.table.playing = True
        game = view.get("game_id")
        new = game != self.acted[0] or seq > self.acted[1]
        if view["status"] != "playing":
            if not self.floor and not self.no_moves and new:
                self.acted = (game, seq)  # the game ended: ready for the next one (once)
                asyncio.get_running_loop().call_later(
                    self.rng.uniform(0.2, 1.0),
                    lambda: asyncio.ensure_future(self.send({"type": "ready"})))
            return
        if view["turn"] == self.seat and new and not self.no_moves:
            self.acted = (game, seq)
            delay = self.rng.uniform(0, 2 * self.args.think)
            gen = self.gen
            asyncio.get_running_loop().call_later(
                delay, lambda: asyncio.ensure_future(self.move(view, gen)))

    async def move(self, view: dict, gen: int = 0) -> None:
        if self.no_moves or (gen and gen != self.gen) or self.ws is None \
                or self.ws.close_code is not None:
            return  # the window closed, or the connection it was decided on did
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
        if not self.floor:
            if self.retry_intent is None:
                self.intent += 1
            intent, self.retry_intent = self.retry_intent or self.intent, None
            ref = f"{self.cid}:{len(self.refs)}"
            action = {k: v for k, v in msg.items() if k != "seq"}
            sent = Send(intent, ref, view.get("game_id"), self.seat, seq, action, self.gen)
            self.refs[ref] = self.last_send = sent
            self.table.stats.sends.append(sent)
            msg["ref"] = ref
            try:
                await self.ws.send(json.dumps(msg))
            except Exception:  # closed meanwhile: the page's act() sends nothing then
                sent.outcome = "closed"
            return
        await self.send(msg)

    async def close(self) -> None:
        self.stopping = True
        for t in self.tasks:
            t.cancel()
        if self.ws is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.ws.close(), 5)


def make_clients(tables: list[dict], bases: list[str], args, floor: bool,
                 stats: Stats) -> list[Client]:
    """Four players a table (cookies, or ``?seat=`` on the floor; one at a bot
    table), its spectators, and the ping flooders of the first table; the
    servers' ``bases`` (``ws://127.0.0.1:PORT`` or nginx's ``wss://…``) in turn."""
    rng = random.Random(args.seed)
    clients: list[Client] = []

    def add(*a, **kw) -> None:
        clients.append(Client(*a, random.Random(rng.random()), cid=len(clients), **kw))

    for n, t in enumerate(tables):
        table = Table(t["id"], stats, t.get("bots", False))
        base = f"{bases[n % len(bases)]}/ws/table/{t['id']}/"
        for seat in range(4):
            if not floor and t["cookies"][seat] is None:
                continue  # a bot's seat
            url = base + (f"?seat={seat}" if floor else "")
            cookie = None if floor else t["cookies"][seat]
            add(table, url, cookie, seat, args, floor)
        for k in range(args.spectators):
            add(table, f"{bases[(n + k) % len(bases)]}/ws/table/{t['id']}/", None, None,
                args, floor)
        if n == 0 and args.ping_flood:
            table.flooded = True
            for k in range(args.ping_flood):
                add(table, f"{bases[k % len(bases)]}/ws/table/{t['id']}/", None, None,
                    args, floor)
    return clients


def late_wave_clients(tables: list[dict], bases: list[str], args, stats: Stats,
                      n: int) -> list[Client]:
    """``--late-wave``: ``n`` newcomers, alternately an anonymous spectator of
    a table and an anonymous lobby socket, spread over the servers."""
    rng = random.Random(args.seed + 1)
    out = []
    for k in range(n):
        t = tables[k % len(tables)]
        base = bases[k % len(bases)]
        lobby = k % 2 == 1
        url = f"{base}/ws/lobby/" if lobby else f"{base}/ws/table/{t['id']}/"
        c = Client(Table(t["id"], stats), url, None, None, args, False,
                   random.Random(rng.random()), cid=100_000 + k, lobby=lobby)
        c.wave = "late"
        out.append(c)
    return out


async def connect_all(clients: list[Client], args, floor: bool) -> tuple[list[Client], float]:
    """Connect every client at once, start them, ready the players (on the
    floor: start seat 0's turn). Returns the connected ones and the seconds
    the connects took. With ``args.reconnect`` a failed first connect retries."""
    t0 = time.monotonic()
    ok = await asyncio.gather(*(c.connect() for c in clients))  # all at once
    connect_s = time.monotonic() - t0
    live = [c for c, good in zip(clients, ok, strict=True) if good]
    for c in live:
        c.start()
    if args.reconnect:  # as the page: a failed first connect retries too
        for c in clients:
            if not c.gen:
                c.tasks.append(asyncio.create_task(c.reconnect(None)))
                c.start_timers()
    await asyncio.sleep(1.0)  # greetings
    for c in clients:
        if c.seat is not None:
            if floor:
                if c.seat == 0 and c.ws is not None:
                    c.on_view({"seq": 0, "turn": 0, "status": "playing"}, time.perf_counter())
            else:
                await c.send({"type": "ready"})
    return live, connect_s


def start_profile(args, meter: CpuMeter) -> subprocess.Popen | None:
    """``--profile``: py-spy the first server process over the window."""
    if not getattr(args, "profile", None):
        return None
    pid = meter.groups["server"]()[0]
    exe = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    return subprocess.Popen([exe, "record", "-p", str(pid), "-d", str(int(args.duration)),
                             "-r", "100", "-f", "raw", "-o", args.profile, "--nonblocking"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


async def wind_down(stats: Stats, clients: list[Client], live: list[Client], args) -> None:
    """After the window: no new moves; a grace for answers in flight (a move
    still unanswered after it counts as lost, the old figure); with
    ``args.reconnect`` wait (at most ``args.reconnect_wait`` s) until every
    player is connected again and every move has its answer; count the
    frames spectators missed."""
    for c in clients:
        c.no_moves = True
    pending = [c for c in live if c.pending is not None]
    await asyncio.sleep(3)  # grace for views in flight
    stats.lost += sum(1 for c in pending if c.pending is not None and c.pending[1]
                      < time.perf_counter() - 3)
    if args.reconnect:  # the last reconnects (the page's backoff reaches 15 s)
        deadline = time.monotonic() + args.reconnect_wait
        while time.monotonic() < deadline and any(
                not c.greeted or (c.last_send is not None and c.last_send.outcome == "sent")
                for c in clients if c.seat is not None):
            await asyncio.sleep(0.2)
    if args.spectators:
        for c in live:
            if c.seat is None:
                moved = {s + 1 for s in c.table.sent}
                stats.spectator_missed += len({s for s in moved if s - 1 in c.table.sent}
                                              - c.seen - {max(moved, default=0)})


async def run_load(tables: list[dict], bases: list[str], args, floor: bool,
                   meter: CpuMeter | None, during=None) -> tuple[Stats, float, list[Client]]:
    """Connect every client at once, ready the players, measure ``args.duration``
    seconds (``during(stats, clients)``, a coroutine function, runs beside the
    window and the window lasts until it ends: the rolling restart; the
    ``--late-wave`` / ``--reconnect-wave`` come at ``args.wave_at`` of it),
    then :func:`wind_down` and close. Returns the stats, the seconds the
    connects took and the clients (``args.keep_frames``: each keeps its frames)."""
    from django.utils import timezone

    stats = Stats()
    clients = make_clients(tables, bases, args, floor, stats)
    for c in clients:
        c.keep_frames = getattr(args, "keep_frames", False)
    flooders = [c for c in clients if c.seat is None and c.table.flooded]
    live, connect_s = await connect_all(clients, args, floor)
    # the window opens once every table plays (the site starts 250 games from
    # a thousand readies; the floor has none), at most --start-wait s later
    started = time.monotonic()
    tables_of = {id(c.table): c.table for c in live}.values()
    while (not all(t.playing for t in tables_of)
           and time.monotonic() - started < getattr(args, "start_wait", 60.0)):
        await asyncio.sleep(0.2)
    stats.start_s = time.monotonic() - started
    await asyncio.sleep(args.warmup)
    stats.measuring = True
    stats.window = (timezone.now(),)
    spy = None
    if meter is not None:
        meter.start()
        spy = None if floor else start_profile(args, meter)
    flood = None
    if flooders:
        async def run_flood() -> None:
            t = time.perf_counter()
            await asyncio.gather(*(c.flood(args.flood_pings) for c in flooders
                                   if c.ws is not None))
            stats.flood_s = time.perf_counter() - t
        flood = asyncio.create_task(run_flood())
    extra = asyncio.create_task(during(stats, clients)) if during is not None else None
    newcomers: list[Client] = []
    if args.late_wave or args.reconnect_wave:
        await asyncio.sleep(args.duration * args.wave_at)
        newcomers = await waves(tables, bases, args, stats, clients)
        await asyncio.sleep(args.duration * (1 - args.wave_at))
    else:
        await asyncio.sleep(args.duration)
    if extra is not None:
        await extra  # the rolling restart runs to its end
    stats.measuring = False
    stats.window = (stats.window[0], timezone.now())
    if flood is not None:
        await flood
    if meter is not None:
        meter.stop()
    if spy is not None:
        await asyncio.get_running_loop().run_in_executor(None, spy.wait)
    await wind_down(stats, clients, live, args)
    await asyncio.gather(*(c.close() for c in clients + newcomers))
    return stats, connect_s, clients


async def waves(tables: list[dict], bases: list[str], args, stats: Stats,
                clients: list[Client]) -> list[Client]:
    """``--late-wave`` newcomers, then ``--reconnect-wave``: the newcomers
    connect at once; when each is in or refused (those in stay), a share of
    the players of running games drop their sockets and all come back at once."""
    newcomers = late_wave_clients(tables, bases, args, stats, args.late_wave)
    running = [c for c in clients if c.seat is not None and c.status == "playing"
               and c.greeted]
    k = round(len(running) * args.reconnect_wave)
    droppers = random.Random(args.seed + 2).sample(running, k)
    stats.player_wave["dropped"] = k

    async def newcomer(c: Client) -> None:
        if await c.connect():
            c.tasks.append(asyncio.create_task(c.reader()))

    await asyncio.gather(*(newcomer(c) for c in newcomers))
    deadline = time.monotonic() + 30
    while any(c.wave for c in newcomers) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)  # every newcomer greeted or refused (they stay open)
    await asyncio.gather(*(c.drop() for c in droppers))
    return newcomers


# --- the stacks ---------------------------------------------------------------------------


def site_env(extra: dict[str, str]) -> dict[str, str]:
    return {**os.environ, "DJANGO_SETTINGS_MODULE": "yuanzi_site.settings",
            "GAMES_TURN_SECONDS": "600", "GAMES_ACTION_RATE": "1000000",
            "GAMES_BOT_DELAY_SECONDS": "1", "PYTHONUNBUFFERED": "1",
            # a busy evening runs with DEBUG off (DEBUG keeps and formats every query)
            "DEBUG": "0", **extra}


def daphne_args(app: str, port: int, proxied: bool = False) -> list[str]:
    return [sys.executable, "-m", "daphne", "-e",
            f"tcp:port={port}:interface={HOST}:backlog=1024",
            "--websocket_connect_timeout", "30", "-v", "0",
            *(["--proxy-headers"] if proxied else []), app]


def start_stack(args, floor: bool, logdir: Path, env: dict[str, str]) -> tuple[list[Child],
                                                                            list[int], dict]:
    """Start the server children; returns them, their ports and the CPU groups.
    With ``args.rolling_restart`` the Daphnes run behind nginx as documented
    (``--proxy-headers``); nginx is started by :func:`start_nginx`."""
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
            children.append(Child(f"daphne{i}", daphne_args(
                "yuanzi_site.asgi:application", port, args.rolling_restart), env, logdir))
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
    for c in server:  # each server process alone too: where the CPU went
        groups[f"proc:{c.name}"] = lambda c=c: descendants(c.proc.pid)
    return children, ports, groups


def start_nginx(logdir: Path, daphne_ports: list[int],
                max_fails: int | None = None) -> tuple[Child, int]:
    """nginx with ``deploy/nginx.conf`` as written (deploy/nginx_conf.py) in
    front of these Daphnes, or with ``max_fails=N`` on its upstream lines
    instead of the documented value (``--nginx-max-fails``, to compare);
    returns it and its TLS port."""
    sys.path.insert(0, str(ROOT / "deploy"))
    import nginx_conf  # deploy/ is scripts, not a package

    port = free_port()
    folder = logdir / "nginx"
    conf = nginx_conf.render(folder, port, free_port(), daphne_ports)
    if max_fails is not None:
        import re

        conf.write_text(re.sub(r"max_fails=\d+", f"max_fails={max_fails}", conf.read_text()))
    child = Child("nginx", ["nginx", "-c", str(conf), "-p", str(folder)], dict(os.environ),
                  logdir)
    wait_port(port, child)
    return child, port


def wait_ready(port: int, child: Child | None = None, timeout: float = 120) -> None:
    """Wait until ``/readyz`` of the process on ``port`` answers 200.

    :raises RuntimeError: if it exits or is not ready in ``timeout`` s (with
        the last answer)."""
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    last = "nothing"
    while time.monotonic() < deadline:
        if child is not None and child.proc.poll() is not None:
            raise RuntimeError(f"{child.name} exited: see {child.log.name}")
        try:
            with urllib.request.urlopen(f"http://{HOST}:{port}/readyz", timeout=5) as r:
                if r.status == 200:
                    return
        except urllib.error.HTTPError as e:
            last = f"{e.code} {e.read()[:300]!r}"
        except OSError as e:
            last = repr(e)
        time.sleep(0.2)
    raise RuntimeError(f"/readyz on {port} not 200 in {timeout} s; last: {last}")


def roller(daphnes: list[Child], ports: list[int], settle: float, gap: float = 0.0):
    """``--rolling-restart``: the coroutine run beside the window. After
    ``settle`` s, for each Daphne in turn: SIGTERM (it drains: 1012 to its
    sockets), wait for its exit, start it again on the same port, wait for
    ``/readyz`` (docs/deploy.md "Rolling restarts"), then ``gap`` s more
    before the next. Each step's perf times go to ``stats.restarts``."""
    async def roll(stats: Stats, clients: list[Client]) -> None:
        loop = asyncio.get_running_loop()
        await asyncio.sleep(settle)
        for d, port in zip(daphnes, ports, strict=True):
            step = {"name": d.name, "sigterm": time.perf_counter()}
            step["exit_status"] = await loop.run_in_executor(None, d.terminate)
            step["exited"] = time.perf_counter()
            d.spawn()
            await loop.run_in_executor(None, wait_ready, port, d)
            step["ready"] = time.perf_counter()
            stats.restarts.append(step)
            if d is not daphnes[-1]:
                await asyncio.sleep(gap)
        await asyncio.sleep(settle)  # the load goes on after the roll
    return roll


def restart_figures(stats: Stats, clients: list[Client]) -> dict:
    """What the rolling restart did to the clients: per restart, how long the
    Daphne took to drain and exit and to be ready again, how many clients it
    closed with 1012 (first close in its window: from its SIGTERM to the
    next one's), and when the last of them was greeted again (``None``: not
    all came back); overall, whether every player is connected at the end."""
    steps = []
    for i, st in enumerate(stats.restarts):
        end = stats.restarts[i + 1]["sigterm"] if i + 1 < len(stats.restarts) else float("inf")
        closed: dict[int, float] = {}
        for t, cid, what, code in stats.timeline:
            if what == "closed" and code == RESTART_CODE and st["sigterm"] <= t < end:
                closed.setdefault(cid, t)
        back = {}
        for t, cid, what, _code in stats.timeline:
            if what == "greeted" and cid in closed and t > closed[cid]:
                back.setdefault(cid, t)
        steps.append({
            "daphne": st["name"], "exit_status": st["exit_status"],
            "drain_exit_s": round(st["exited"] - st["sigterm"], 2),
            "ready_again_s": round(st["ready"] - st["exited"], 2),
            "clients_closed_1012": len(closed),
            "clients_back": len(back),
            "last_back_s": _r(max(back.values()) - st["sigterm"])
            if back and len(back) == len(closed) else None,
            "slowest_reconnect_s": _r(max((back[c] - closed[c] for c in back), default=0.0)),
        })
    players = [c for c in clients if c.seat is not None]
    return {"steps": steps,
            "reconnects": len(stats.reconnects),
            "players_connected_at_end": sum(1 for c in players if c.greeted),
            "players": len(players)}


def check_ledger(sends: list[Send], table_ids: list[int]) -> dict:
    """The no-action-lost check against the server's record (``GameEvent``).

    An action is **applied** when its game has a ``by="player"`` event at
    ``seq + 1`` for its seat with the same type and cards (``(game, seq)`` is
    unique: an event carries out one send at most). It is **lost** when it
    was not applied and its client was not told so: neither an ``error``
    echoing its ``ref`` (``refused``) nor a close before its answer followed
    by a fresh snapshot still at its ``seq`` (``unread``: the client decides
    again, as the page does). Also counted: ``acknowledged`` (its own view came
    back past its seq) yet not in the record, ``refused`` yet applied, and
    **duplicates**: an intent (a decision, re-sent after an unread close)
    applied more than once, or a player event no send explains.

    :returns: the counts (all but ``sent``, ``acknowledged``, ``applied``,
        ``refused`` and ``unread`` are 0 when nothing was lost).
    """
    from games.models import GameEvent

    events = {(g, seq - 1, seat): action for g, seq, seat, action in GameEvent.objects.filter(
        game__table_id__in=table_ids, by="player").values_list("game_id", "seq", "seat",
                                                               "action")}

    def same(a: dict, b: dict) -> bool:
        return a.get("type") == b.get("type") and sorted(a.get("cards") or []) == sorted(
            b.get("cards") or [])

    out = Counter(sent=len(sends))
    intents: Counter = Counter()
    explained = set()
    # one event carries out one send: of two sends of the same move at the same
    # seq (a re-send after an unread close), the one told "not applied" is not it
    for s in sorted(sends, key=lambda s: s.outcome in ("unread", "refused")):
        key = (s.game, s.seq, s.seat)
        applied = key in events and key not in explained and same(events[key], s.action)
        out["acknowledged"] += s.outcome == "acknowledged"
        if applied:
            out["applied"] += 1
            explained.add(key)
            intents[(s.ref.split(":")[0], s.intent)] += 1
            out["refused_yet_applied"] += s.outcome == "refused"
        elif s.outcome == "refused":
            out["refused"] += 1
        elif s.outcome == "unread":
            out["unread"] += 1
        else:
            out["lost"] += 1
            out["acknowledged_not_recorded"] += s.outcome == "acknowledged"
            out[f"lost_{s.outcome}"] += 1
    out["applied_twice"] = sum(n - 1 for n in intents.values() if n > 1)
    out["events_never_sent"] = len(set(events) - explained)
    out["duplicates"] = out["applied_twice"] + out["events_never_sent"]
    for k in ("lost", "duplicates", "acknowledged_not_recorded", "refused_yet_applied"):
        out.setdefault(k, 0)
    return dict(out)


def moves_by(table_ids: list[int], window: tuple) -> dict[str, int]:
    """Game events of these tables in the window by who moved (``player``, ``bot`` …)."""
    from django.db.models import Count

    from games.models import GameEvent

    rows = GameEvent.objects.filter(game__table_id__in=table_ids, created_at__gte=window[0],
                                    created_at__lt=window[1]).values("by").annotate(n=Count("id"))
    return {r["by"]: r["n"] for r in rows}


def server_errors(children: list[Child]) -> dict[str, dict]:
    """What the servers' logs say failed, per child (children with nothing
    left out): ``errors`` (log records at ERROR or CRITICAL), ``tracebacks``,
    ``http_5xx`` (access-log lines answering 5xx) and the first error line."""
    import re

    level = re.compile(r"\b(ERROR|CRITICAL)\b")
    http5 = re.compile(r"HTTP/1\.\d\" 5\d\d |\" 5\d\d \d")
    out = {}
    for c in children:
        c.log.flush()
        lines = Path(c.log.name).read_text(errors="replace").splitlines()
        found = {"errors": sum(1 for x in lines if level.search(x)),
                 "tracebacks": sum(1 for x in lines if x.startswith("Traceback")),
                 "http_5xx": sum(1 for x in lines if http5.search(x))}
        if any(found.values()):
            first = next((x for x in lines if level.search(x) or x.startswith("Traceback")
                          or http5.search(x)), "")
            out[c.name] = {**found, "first": first[:200]}
    return out


# --- the connect storm (--storm) -------------------------------------------------------


async def run_storm(tables: list[dict], bases: list[str], args) -> dict:
    """Open every seated player's socket at once (the servers' ``bases`` in
    turn); each waits for its first snapshot (the ``table`` frame), then all
    hold ``args.storm_hold`` s and close. Returns the figures."""
    from websockets.asyncio.client import connect

    failures: Counter = Counter()
    examples: dict[str, str] = {}
    accepted: list[float] = []
    first: list[float] = []
    sockets = []
    t0 = time.perf_counter()

    async def one(url: str, cookie: str) -> None:
        kw = {"ssl": client_ssl(url)} if url.startswith("wss:") else {}
        try:
            ws = await connect(url, origin=ORIGIN, additional_headers={"Cookie": cookie},
                               open_timeout=60, max_size=2**22, ping_interval=None, **kw)
        except Exception as e:
            status = getattr(getattr(e, "response", None), "status_code", None)
            kind = f"{type(e).__name__}{status or ''}"
            failures[kind] += 1
            examples.setdefault(kind, f"{e!r} {e.__cause__!r}"[:200])
            return
        accepted.append(time.perf_counter() - t0)
        sockets.append(ws)
        try:
            while True:
                msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
                if msg["type"] == "table":
                    first.append(time.perf_counter() - t0)
                    return
        except TimeoutError:
            failures["no snapshot in 60 s"] += 1
        except Exception:
            failures[f"closed {ws.close_code} before the snapshot"] += 1

    await asyncio.gather(*(one(f"{bases[(n * 4 + s) % len(bases)]}/ws/table/{t['id']}/",
                                   cookie)
                           for n, t in enumerate(tables)
                           for s, cookie in enumerate(t["cookies"])))
    await asyncio.sleep(args.storm_hold)
    still_open = sum(1 for ws in sockets if ws.close_code is None)
    await asyncio.gather(*(asyncio.wait_for(ws.close(), 5) for ws in sockets),
                         return_exceptions=True)
    return {
        "sockets": sum(len(t["cookies"]) for t in tables),
        "accepted": len(accepted),
        "first_snapshots": len(first),
        "open_after_hold": still_open,
        "failures": dict(failures), "failure_examples": examples,
        "last_accept_s": _r2(max(accepted, default=None)),
        "snapshot_s": {"p50": _r2(percentile(first, 0.5)), "p99": _r2(percentile(first, 0.99)),
                       "max": _r2(percentile(first, 1.0))},
    }


def _r2(x):
    return round(x, 2) if x is not None else None


def show_storm(s: dict) -> None:
    print(f"== connect storm ({s['stack']}, {s['servers']} Daphne(s)): {s['sockets']} sockets "
          f"at once")
    print(f"  accepted {s['accepted']}; first snapshot {s['first_snapshots']}; still open after "
          f"the hold {s['open_after_hold']}")
    print(f"  last accept at {s['last_accept_s']} s; first snapshot p50 {s['snapshot_s']['p50']}"
          f" p99 {s['snapshot_s']['p99']} max {s['snapshot_s']['max']} s")
    print(f"  failures {s['failures'] or 0}; server errors in the logs "
          f"{s['server_errors'] or 0}")
    for kind, example in s["failure_examples"].items():
        print(f"    e.g. {kind}: {example}")


# --- figures ----------------------------------------------------------------------------


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
        "closes": {str(k): v for k, v in stats.closes.items()},
        "server_cpu_ms_per_move": round(r.get("server", 0) / moves, 2) if moves else None,
        "server_cpu_pct": round(r.get("server", 0) / meter.seconds / 10, 1),
        "generator_cpu_pct": round(r["generator"] / meter.seconds / 10, 1),
        "load_average": [round(x, 2) for x in meter.load1],
        "load_average_before": [round(x, 2) for x in meter.load0],
    }
    out["server_cpu_ms_per_move_by_process"] = {
        name[5:]: round(v / moves, 2) for name, v in r.items()
        if name.startswith("proc:") and moves}
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
    if stats.busy:
        out["refused_4503_by_who"] = dict(stats.busy)
    if stats.reconnect_failures:
        out["reconnect_failures"] = dict(stats.reconnect_failures)
    if stats.late_wave:
        out["late_wave"] = dict(stats.late_wave)
    if stats.player_wave:
        out["player_reconnect_wave"] = dict(stats.player_wave)
    return out


def _r(x):
    return round(x, 1) if x is not None else None


def show(label: str, s: dict) -> None:
    m = s["move_ms"]
    print(f"== {label}: {s['sockets']} sockets connected in {s['connect_s']} s")
    print(f"  moves/s {s['moves_per_s']}  ({s['moves']} moves)")
    if "moves_by" in s:
        b = s["moves_by"]
        print(f"  moves/s by who moved (the server's record): human "
              f"{s['human_moves_per_s']}, bot {s['bot_moves_per_s']}  ({b})")
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
    print(f"  closes by code {s['closes'] or 0}"
          + (f"; 4503 by who {s['refused_4503_by_who']}" if "refused_4503_by_who" in s else "")
          + (f"; reconnect failures {s['reconnect_failures']}"
             if "reconnect_failures" in s else ""))
    if "late_wave" in s:
        print(f"  late wave of newcomers: {s['late_wave']}")
    if "player_reconnect_wave" in s:
        print(f"  players of running games dropped and back at once: "
              f"{s['player_reconnect_wave']}")
    for kind, example in s["connection_failure_examples"].items():
        print(f"    e.g. {kind}: {example[:200]}")
    if "actions" in s:
        a = s["actions"]
        print(f"  actions: sent {a['sent']}, acknowledged {a['acknowledged']}, applied "
              f"{a.get('applied', 0)}, refused {a.get('refused', 0)}, unread at a close "
              f"{a.get('unread', 0)}; LOST {a['lost']}, DUPLICATES {a['duplicates']}"
              f" (acknowledged not recorded {a['acknowledged_not_recorded']}, refused yet "
              f"applied {a['refused_yet_applied']})")
    if "rolling_restart" in s:
        rr = s["rolling_restart"]
        for st in rr["steps"]:
            print(f"  restart {st['daphne']}: drained and exited in {st['drain_exit_s']} s "
                  f"(status {st['exit_status']}), ready again {st['ready_again_s']} s later; "
                  f"{st['clients_closed_1012']} clients closed 1012, {st['clients_back']} "
                  f"back, the last {st['last_back_s']} s after the SIGTERM (slowest "
                  f"reconnect {st['slowest_reconnect_s']} s)")
        print(f"  players connected at the end {rr['players_connected_at_end']}/"
              f"{rr['players']}; reconnects {rr['reconnects']}")
    if "server_errors" in s:
        print(f"  server errors in the logs {s['server_errors'] or 0}")
    print(f"  server CPU {s['server_cpu_ms_per_move']} ms/move ({s['server_cpu_pct']}% of a core)"
          + "".join(f"; {n} {s[f'{n}_cpu_ms_per_move']} ms/move ({s[f'{n}_cpu_pct']}%)"
                    for n in ("postgresql", "redis") if f"{n}_cpu_pct" in s))
    if len(s.get("server_cpu_ms_per_move_by_process") or {}) > 1:
        print("  by process, ms/move: " + ", ".join(
            f"{n} {v}" for n, v in s["server_cpu_ms_per_move_by_process"].items()))
    print(f"  generator CPU {s['generator_cpu_pct']}% of a core; load average "
          f"{s['load_average']} (before {s['load_average_before']})")


def build_parser() -> argparse.ArgumentParser:
    """The command line (also the defaults a test's clients take: ``parse_args([])``)."""
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
    parser.add_argument("--bot-share", type=float, default=0.0, metavar="F",
                        help="share of the tables with one human and three bots")
    parser.add_argument("--bot-policy", default="expert", help="the bots' level")
    parser.add_argument("--reconnect", action="store_true",
                        help="clients reconnect after a close, as the page does")
    parser.add_argument("--reconnect-wait", type=float, default=45.0,
                        help="after the window: seconds to wait for the last reconnects")
    parser.add_argument("--late-wave", type=int, default=0, metavar="N",
                        help="N newcomers (spectators, lobby) connect at --wave-at")
    parser.add_argument("--reconnect-wave", type=float, default=0.0, metavar="F",
                        help="at --wave-at a share F of running games' players drop and "
                             "come back at once")
    parser.add_argument("--wave-at", type=float, default=0.5,
                        help="when the waves come, as a share of the window")
    parser.add_argument("--storm", type=int, default=0, metavar="SOCKETS",
                        help="only a connect storm of this many seated players' sockets")
    parser.add_argument("--storm-hold", type=float, default=3.0,
                        help="seconds the storm's sockets stay open")
    parser.add_argument("--rolling-restart", action="store_true",
                        help="production: nginx in front; SIGTERM and restart each Daphne")
    parser.add_argument("--restart-gap", type=float, default=0.0,
                        help="rolling restart: seconds between one Daphne's /readyz and "
                             "the next SIGTERM (0: the documented procedure)")
    parser.add_argument("--nginx-max-fails", type=int, metavar="N",
                        help="rolling restart: max_fails=N on nginx's upstream lines "
                             "instead of deploy/nginx.conf's")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="rolling restart: seconds of load before and after the roll")
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
    return parser


def check_args(parser: argparse.ArgumentParser, args) -> None:
    """The bounds and the combinations of modes (``parser.error`` otherwise)."""
    if not (1 <= args.tables <= 300 and 0 <= args.spectators <= 1000
            and 0 < args.duration <= 600 and 0 <= args.ping_flood <= 100
            and 0 <= args.flood_pings <= 10_000 and 0 <= args.bot_share <= 1
            and 0 <= args.late_wave <= 2000 and 0 <= args.reconnect_wave <= 1
            and 0 < args.wave_at < 1 and 0 <= args.storm <= 2000
            and 0 <= args.storm_hold <= 60 and 0 <= args.reconnect_wait <= 120
            and 0 <= args.restart_gap <= 120 and 0 <= args.settle <= 60):
        parser.error("bounded: 1–300 tables, 0–1000 spectators, duration ≤ 600 s, "
                     "≤ 100 flooding sockets × 10,000 pings, storms and waves ≤ 2,000 sockets")
    if args.rolling_restart:
        if args.stack != "production" or args.ports or args.processes < 2:
            parser.error("--rolling-restart starts its own production stack of ≥ 2 Daphnes "
                         "(--stack production, no --ports)")
        if not shutil.which("nginx"):
            parser.error("--rolling-restart needs nginx")
        args.reconnect = True
    if args.reconnect_wave:
        args.reconnect = True
    if args.storm and (args.floor or args.no_site or args.rolling_restart):
        parser.error("--storm runs alone")
    if args.stack == "production" and not (os.environ.get("DATABASE_URL")
                                           and os.environ.get("REDIS_URL")):
        parser.error("--stack production needs DATABASE_URL and REDIS_URL")


def setup_site(args, logdir: Path) -> dict[str, str]:
    """The children's environment; migrate, then Django in this process."""
    env = {"SITE_ORIGINS": ORIGIN}
    if args.stack == "production":
        env["GAMES_SCHEDULER"] = "celery"
        # its own key prefix: presence left in Redis by another database's
        # processes (a test run) must not stand this run's players up
        env["REDIS_PREFIX"] = os.environ["REDIS_PREFIX"] = (
            os.environ.get("REDIS_PREFIX", "yuanzi") + "-load")
        if args.rolling_restart:
            env["TRUSTED_PROXIES"] = HOST
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
    return env


def run_one(args, floor: bool, run: str, logdir: Path, env: dict[str, str]) -> dict:
    """One load run against the site or the floor; returns its figures."""
    if not floor:
        clear_load_tables()
    tables = ([{"id": i + 1} for i in range(args.tables)] if floor
              else make_tables(args.tables, run, args.bot_share, args.bot_policy))
    sockets = (args.tables * 4 if floor else sum(1 for t in tables for c in t["cookies"] if c)
               ) + args.tables * args.spectators + args.ping_flood
    children: list[Child] = []
    during = None
    if args.ports and not floor:
        ports = [int(p) for p in args.ports.split(",")]
        pids = listening_pids(ports)
        groups = {"server": lambda pids=pids: [q for p in pids for q in descendants(p)]}
        bases = [f"ws://{HOST}:{p}" for p in ports]
    else:
        children, ports, groups = start_stack(args, floor, logdir, env)
        bases = [f"ws://{HOST}:{p}" for p in ports]
        if args.rolling_restart and not floor:
            nginx, nport = start_nginx(logdir, ports, args.nginx_max_fails)
            children.append(nginx)
            bases = [f"wss://localhost:{nport}"]
            daphnes = [c for c in children if c.name.startswith("daphne")]
            during = roller(daphnes, ports, args.settle, args.restart_gap)
    meter = CpuMeter({**groups, **({} if floor else stack_groups(args))})
    try:
        stats, connect_s, clients = asyncio.run(
            run_load(tables, bases, args, floor, meter, during))
        errors = server_errors(children)
    finally:
        for c in children:
            c.stop()
    out = summary(stats, meter, connect_s, sockets)
    if not floor:
        ids = [t["id"] for t in tables]
        by = moves_by(ids, stats.window)
        out.update(moves_by=by,
                   human_moves_per_s=round(by.get("player", 0) / meter.seconds, 1),
                   bot_moves_per_s=round(by.get("bot", 0) / meter.seconds, 1),
                   actions=check_ledger(stats.sends, ids),
                   server_errors=errors)
        if args.rolling_restart:
            out["rolling_restart"] = restart_figures(stats, clients)
        clear_load_tables()
    return out


def main() -> None:
    parser = build_parser()
    args = parser.parse_args()
    check_args(parser, args)
    logdir = Path(tempfile.mkdtemp(prefix="yuanzi-load-"))
    env = setup_site(args, logdir)
    run = f"{os.getpid()}x{int(time.time()) % 100000}"
    results = {}
    try:
        if args.storm:
            results["storm"] = storm_main(args, run, logdir, env)
        for floor in ([] if args.no_site or args.storm else [False]) + (
                [True] if args.floor or args.no_site else []):
            label = "floor" if floor else f"site ({args.stack})"
            results[label] = run_one(args, floor, run, logdir, env)
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


def storm_main(args, run: str, logdir: Path, env: dict[str, str]) -> dict:
    """``--storm N``: N / 4 tables of four seated players, the stack (or
    ``--ports``), one storm; prints and returns its figures."""
    clear_load_tables()
    tables = make_tables(-(-args.storm // 4), run)
    n = args.storm
    for t in tables:  # exactly N sockets: the last table may have fewer
        keep = min(4, n)
        t["cookies"] = t["cookies"][:keep]
        n -= keep
    children: list[Child] = []
    try:
        if args.ports:
            ports = [int(p) for p in args.ports.split(",")]
        else:
            children, ports, _ = start_stack(args, False, logdir, env)
        out = asyncio.run(run_storm(tables, [f"ws://{HOST}:{p}" for p in ports], args))
        out["server_errors"] = server_errors(children)
    finally:
        for c in children:
            c.stop()
        clear_load_tables()
    out.update(stack=args.stack, servers=len(ports))
    if not args.json:
        show_storm(out)
    return out


def _ratio(a, b):
    return round(a / b, 2) if a is not None and b else None


if __name__ == "__main__":
    main()
