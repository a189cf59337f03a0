"""The production stack end to end: real Daphne processes over TCP, PostgreSQL,
the Redis channel layer, real websocket clients (the ``websockets`` library)
logged in by real session cookies.

Skipped unless ``DATABASE_URL`` and ``REDIS_URL`` are set (``.ci/run`` sets
them; with ``CI=true`` a skip fails the run). The Daphne children use the test
database pytest-django created (``test_<NAME>``, NOTES.md), so the tests are
``transaction=True``: the children see what the test commits and the test
sees what they commit. Nothing here needs a scheduler (no bots, no clocks run
out), so the children run with ``GAMES_SCHEDULER=none``: no Celery task is
published. Every child is killed in the fixture's teardown.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import sys
import time
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from accounts.models import Profile, RatingEntry
from games import engine, tables
from games.models import Game, Table
from tests.servers import RedisServer, ServerProcess, free_port, test_database_url
from tests.ws_checks import check_frames, choose, states_by_seq

pytestmark = [
    pytest.mark.skipif(
        not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")),
        reason="production-stack tests need DATABASE_URL (PostgreSQL) and REDIS_URL (Redis)",
    ),
    pytest.mark.django_db(transaction=True),
]

TIMEOUT = 10  # seconds to wait for one frame over TCP
ORIGIN = "http://localhost"


# --- Daphne processes ---------------------------------------------------------------


class Daphne(ServerProcess):
    """One ``python -m daphne`` child on a free port, its output in a file."""

    name = "daphne"

    def __init__(self, env: dict[str, str]) -> None:
        self.port = free_port()
        # as docs/deploy.md runs it: a listen backlog for storms, a patient handshake
        self._spawn([sys.executable, "-m", "daphne", "-e",
                     f"tcp:port={self.port}:interface=127.0.0.1:backlog=1024",
                     "--websocket_connect_timeout", "30", "yuanzi_site.asgi:application"], env)

    def url(self, path: str) -> str:
        return f"ws://127.0.0.1:{self.port}{path}"


@pytest.fixture
def daphnes():
    """``start(n)`` starts ``n`` Daphne processes on the test database and Redis
    (``start(n, REDIS_URL=…)``: another Redis); all are stopped (killed if need
    be) at the end of the test."""
    started: list[Daphne] = []
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "yuanzi_site.settings",
        "DATABASE_URL": test_database_url(),
        "REDIS_URL": os.environ["REDIS_URL"],
        "SECRET_KEY": settings.SECRET_KEY,  # the session cookies are signed with it
        "GAMES_SCHEDULER": "none",
        "GAMES_ACTION_RATE": "100000",
        "PYTHONUNBUFFERED": "1",
    }

    def start(n: int, **overrides: str) -> list[Daphne]:
        procs = [Daphne({**env, **overrides}) for _ in range(n)]
        started.extend(procs)
        for p in procs:
            p.wait_listening()
        return procs

    yield start
    for p in started:
        p.stop()  # its log is printed: pytest shows it when the test failed


# --- clients --------------------------------------------------------------------------


def _cookie(user) -> str:
    """A real session in the test database, as a ``Cookie`` header value."""
    client = Client()
    client.force_login(user)
    name = settings.SESSION_COOKIE_NAME
    return f"{name}={client.cookies[name].value}"


class Player:
    """One websocket client over TCP; every frame received is kept."""

    def __init__(self, url: str, cookie: str | None, seat: int | None) -> None:
        self.url, self.cookie, self.seat = url, cookie, seat
        self.frames: list[dict[str, Any]] = []
        self.view: dict[str, Any] | None = None
        self.ws = None

    async def connect(self, timeout: float = TIMEOUT) -> Player:
        from websockets.asyncio.client import connect

        headers = {"Cookie": self.cookie} if self.cookie else {}
        self.ws = await connect(self.url, origin=ORIGIN, additional_headers=headers,
                                open_timeout=timeout)
        return self

    async def recv(self) -> dict[str, Any]:
        msg = json.loads(await asyncio.wait_for(self.ws.recv(), TIMEOUT))
        self.frames.append(msg)
        if msg["type"] == "game":
            self.view = msg["view"]
        return msg

    async def until(self, pred) -> dict[str, Any]:
        for _ in range(2000):
            try:
                msg = await self.recv()
            except TimeoutError:
                last = [(f["type"], f.get("view", {}).get("seq"), f.get("reason"))
                        for f in self.frames[-5:]]
                raise AssertionError(f"seat {self.seat}: no frame in {TIMEOUT} s; "
                                     f"last frames {last}") from None
            if pred(msg):
                return msg
        raise AssertionError("no matching frame in 2000")

    async def until_seq(self, seq: int) -> dict[str, Any]:
        return await self.until(lambda m: m["type"] == "game" and m["view"]["seq"] >= seq)

    async def send(self, msg: dict[str, Any]) -> None:
        await self.ws.send(json.dumps(msg))

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


async def _start(players: list[Player], watchers: list[Player]) -> None:
    """The four (connected) sit and ready; every client sees the game start."""
    for p in players:
        await p.send({"type": "sit", "seat": p.seat})
    await players[0].until(lambda m: m["type"] == "table"
                           and all(s["player"] for s in m["table"]["seats"]))
    for p in players:
        await p.send({"type": "ready"})
    for c in [*players, *watchers]:
        await c.until_seq(0)


async def _play_game(players: list[Player], watchers: list[Player]) -> dict[str, Any]:
    """Seat and ready the four, then play to the end, each from its own views."""
    clients = [*players, *watchers]
    for c in clients:
        await c.connect()
    try:
        await _start(players, watchers)
        rngs = [random.Random(f"prod:{i}") for i in range(4)]
        for _ in range(2000):
            view = players[0].view
            if view["status"] == engine.OVER:
                break
            me = players[view["turn"]]
            assert me.view["seat"] == view["turn"]
            assert me.view["seq"] == view["seq"]
            await me.send(choose(me.view, rngs[me.seat]))
            for c in clients:
                await c.until_seq(view["seq"] + 1)
        else:
            raise AssertionError("the game did not end in 2000 actions")
        for w in watchers:
            if w.view["status"] != engine.OVER:
                await w.until(lambda m: m["type"] == "game" and m["view"]["status"] == "over")
        return players[0].view
    except AssertionError as e:
        state = [(c.seat, c.cookie is not None, c.view and c.view["seq"],
                  c.view and c.view["status"]) for c in clients]
        raise AssertionError(f"{e}; clients (seat, logged in, seq, status): {state}") from None
    finally:
        for c in clients:
            await c.close()


def _check_result(table: Table, users: list, players: list[Player], watchers: list[Player],
                  final: dict[str, Any]) -> None:
    game = Game.objects.get(pk=Table.objects.get(pk=table.pk).current_game_id)
    assert game.status == Game.OVER
    assert game.settled
    assert game.seq == final["seq"]
    states = states_by_seq(game)
    assert states[game.seq] == game.state
    for p in players:
        assert check_frames(p.frames, states, p.seat) >= game.seq
        assert p.view["hands"] == game.state["hands"]
    for w in watchers:
        assert check_frames(w.frames, states, None) >= game.seq
    result = game.state["result"]
    stake = result["stake"]
    entries = {e.user_id: e.delta for e in RatingEntry.objects.filter(game=game)}
    for seat, user in enumerate(users):
        expected = stake if engine.team_of(seat) == result["winner"] else -stake
        assert Profile.objects.get(user=user).rating_points == expected == entries[user.pk]


@pytest.fixture
def four(owner, partner, opponent, django_user_model):
    rival = django_user_model.objects.create_user(username="rival")
    return [owner, opponent, partner, rival]


def test_one_daphne_four_real_clients_play_a_game(daphnes, four, outsider):
    (d,) = daphnes(1)
    table = tables.create_table(four[0], "生产")
    path = f"/ws/table/{table.pk}/"
    players = [Player(d.url(path), _cookie(u), seat) for seat, u in enumerate(four)]
    watchers = [Player(d.url(path), _cookie(outsider), None), Player(d.url(path), None, None)]
    final = asyncio.run(_play_game(players, watchers))
    _check_result(table, four, players, watchers, final)


def test_two_daphnes_two_players_on_each(daphnes, four):
    a, b = daphnes(2)
    table = tables.create_table(four[0], "两台")
    path = f"/ws/table/{table.pk}/"
    players = [Player((a if seat < 2 else b).url(path), _cookie(u), seat)
               for seat, u in enumerate(four)]
    watchers = [Player(a.url(path), None, None), Player(b.url(path), None, None)]
    final = asyncio.run(_play_game(players, watchers))
    _check_result(table, four, players, watchers, final)

    # no state lives in a process: the same player on the other process sees the same
    async def reconnect() -> tuple[dict, dict]:
        views = []
        for d in (a, b):
            p = await Player(d.url(path), players[0].cookie, 0).connect()
            try:
                views.append((await p.until(lambda m: m["type"] == "game"))["view"])
            finally:
                await p.close()
        return views[0], views[1]

    va, vb = asyncio.run(reconnect())
    assert (va["seq"], va["hands"], va["seat"]) == (vb["seq"], vb["hands"], vb["seat"])
    assert va["seq"] == final["seq"]


def test_a_sync_is_answered_from_the_views_sent_unless_a_version_was_missed(daphnes, four):
    """On the Redis stack a ``sync`` is answered from the views the connection
    was sent while it provably missed none (games.adapters.lastview.Follower):
    a change made behind the site's back is not seen until the table's views'
    version moves without its message reaching the connection (a lost
    broadcast), and then the database answers."""
    from datetime import timedelta

    import redis
    from django.db import connection

    (d,) = daphnes(1)
    table = tables.create_table(four[0], "同步")
    path = f"/ws/table/{table.pk}/"
    players = [Player(d.url(path), _cookie(u), seat) for seat, u in enumerate(four)]
    key = f"{settings.REDIS_PREFIX}:1:views:{table.pk}"  # lastview.stamp's, as the cache names it
    hour = 3_600_000

    async def orm(fn):  # in a thread (the test's loop must not block), its connection closed
        def call():
            try:
                return fn()
            finally:
                connection.close()
        return await asyncio.to_thread(call)

    async def sync(p: Player) -> dict[str, Any]:
        await p.send({"type": "sync"})
        return (await p.until(lambda m: m["type"] == "game"))["view"]

    async def run() -> None:
        for p in players:
            await p.connect()
        try:
            await _start(players, [])
            me = players[0]
            first = await sync(me)  # from the database: the start's version is new here
            assert first["seq"] == 0
            assert first["time_left_ms"] < hour
            game = await orm(lambda: Game.objects.get(table=table))
            await orm(lambda: Game.objects.filter(pk=game.pk).update(
                due_at=game.due_at + timedelta(hours=2)))  # behind the site's back
            assert (await sync(me))["time_left_ms"] < hour  # what it was sent
            redis.Redis.from_url(os.environ["REDIS_URL"]).incr(key)  # a change it never got
            assert (await sync(me))["time_left_ms"] > hour  # the database's
            assert (await sync(me))["time_left_ms"] > hour  # and from it on, that view
            mover = players[first["turn"]]
            await mover.send(choose(mover.view, random.Random(1)))
            await me.until_seq(1)
            after = await sync(me)
            assert after["seq"] == 1
            assert after["hand"] == me.view["hand"]
            assert after["hand"] == (await orm(
                lambda: Game.objects.get(pk=game.pk).state["hands"][0]))
        finally:
            for p in players:
                await p.close()

    asyncio.run(run())


def test_daphne_refuses_a_foreign_origin(daphnes, owner):
    from websockets.asyncio.client import connect
    from websockets.exceptions import InvalidStatus

    (d,) = daphnes(1)
    table = tables.create_table(owner)
    cookie = _cookie(owner)

    async def attempt(origin: str) -> Any:
        async with connect(d.url(f"/ws/table/{table.pk}/"), origin=origin,
                           additional_headers={"Cookie": cookie},
                           open_timeout=TIMEOUT) as ws:
            return json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))["type"]

    with pytest.raises(InvalidStatus) as e:
        asyncio.run(attempt("http://evil.example"))
    assert e.value.response.status_code == 403
    assert asyncio.run(attempt(ORIGIN)) == "table"


def test_an_idle_connection_survives_past_the_redis_socket_timeout(daphnes, owner):
    # regression: redis-py 8 reads with a 5 s socket timeout by default, which
    # broke channels_redis's blocking receive (BZPOPMIN, 5 s): every consumer
    # idle for 5 s died with "Timeout reading from redis" and the client got 1011
    (d,) = daphnes(1)
    table = tables.create_table(owner)
    cookie = _cookie(owner)

    async def idle() -> str:
        p = await Player(d.url(f"/ws/table/{table.pk}/"), cookie, None).connect()
        try:
            await p.until(lambda m: m["type"] == "chat_history")
            await asyncio.sleep(7)
            await p.send({"type": "ping"})
            return (await p.until(lambda m: m["type"] == "pong"))["type"]
        finally:
            await p.close()

    assert asyncio.run(idle()) == "pong"


def test_the_redis_channel_layer_has_no_read_timeout_and_a_waiting_pool():
    from channels.layers import get_channel_layer
    from channels_redis.core import RedisChannelLayer
    from redis.asyncio import BlockingConnectionPool

    layer = get_channel_layer()
    assert isinstance(layer, RedisChannelLayer)
    for index in range(len(layer.hosts)):
        pool = layer.create_pool(index)
        assert pool.connection_class(**pool.connection_kwargs).socket_timeout is None
        # a storm waits for one of a bounded number of connections
        assert isinstance(pool, BlockingConnectionPool)
        assert pool.max_connections <= 100
        # a command on a connection that died is retried once
        retry = pool.connection_class(**pool.connection_kwargs).retry
        assert retry.get_retries() == 1


def test_a_connect_storm_of_300_sockets_over_two_daphnes_is_all_accepted(daphnes,
                                                                          django_user_model):
    """After a deploy every client reconnects at once (at 500 sockets the
    handshakes once failed with HTTP 500, MaxConnectionsError in channels_redis's
    group_add). 60 tables × 4 logged-in players + 60 spectators, all at once."""
    a, b = daphnes(2)
    clients = []
    for t in range(60):
        users = [django_user_model.objects.create_user(username=f"storm{t}x{s}")
                 for s in range(4)]
        table = tables.create_table(users[0], f"storm {t}")
        path = f"/ws/table/{table.pk}/"
        for s, user in enumerate(users):
            clients.append(Player((a if s % 2 else b).url(path), _cookie(user), s))
        clients.append(Player((a if t % 2 else b).url(path), None, None))

    async def storm() -> list:
        async def one(p: Player):
            try:
                await p.connect(timeout=60)  # a storm queues; Daphne waits 30 s
                await p.until(lambda m: m["type"] == "chat_history")
                return None
            except Exception as e:  # reported below
                return repr(e)

        async def alive(p: Player, error: str | None):
            # after everyone's handshake: each connection still answers
            if error is not None:
                return error
            try:
                await p.send({"type": "ping"})
                return (await p.until(lambda m: m["type"] == "pong"))["type"]
            except Exception as e:  # reported below
                return repr(e)
        try:
            errors = await asyncio.gather(*(one(p) for p in clients))
            return await asyncio.gather(*(alive(p, e) for p, e in zip(clients, errors,
                                                                      strict=True)))
        finally:
            await asyncio.gather(*(p.close() for p in clients), return_exceptions=True)

    started = time.monotonic()
    results = asyncio.run(storm())
    print(f"{len(results)} sockets connected in {time.monotonic() - started:.1f} s")
    # an HTTP 500 handshake is InvalidStatus(500), a consumer crash a 1011 close
    # (both once seen at 1,000 sockets); a storm may only make people wait
    failed = [r for r in results if r != "pong"]
    assert not failed, f"{len(failed)} of {len(results)} failed: {failed[:3]}"


def test_after_redis_restarts_new_connections_and_group_joins_work_at_once(daphnes, four):
    """After Redis was killed and restarted, the first consumers of
    each Daphne crashed with "Connection closed by server" (1011, or an HTTP
    500 handshake) for ~10 s, until every pooled connection had failed once.
    Now the layer retries a command once on a fresh connection: the first
    connections after the restart are all accepted, join their groups (a chat
    line reaches the others) and answer. A Redis of the test's own; the shared
    one is never touched."""
    redis = RedisServer()
    try:
        (d,) = daphnes(1, REDIS_URL=redis.url)
        table = tables.create_table(four[0], "redis restart")
        path = d.url(f"/ws/table/{table.pk}/")
        cookies = [_cookie(u) for u in four]

        async def round_trip(tag: str) -> list[str]:
            clients = [Player(path, c, i) for i, c in enumerate(cookies)]
            try:  # at once: several pooled connections in use
                await asyncio.gather(*(p.connect() for p in clients))
                await asyncio.gather(*(p.until(lambda m: m["type"] == "chat_history")
                                       for p in clients))
                await clients[0].send({"type": "chat", "text": tag})
                lines = await asyncio.gather(*(
                    p.until(lambda m: m["type"] == "chat" and m["line"]["text"] == tag)
                    for p in clients))
                return [m["line"]["text"] for m in lines]
            finally:
                await asyncio.gather(*(p.close() for p in clients), return_exceptions=True)

        assert asyncio.run(round_trip("before")) == ["before"] * 4
        # what runs while it is down may fail (the first clients' clean-up, their
        # receive loop): that is logged, and not what this test is about
        redis.kill()
        redis.start()
        assert asyncio.run(round_trip("after")) == ["after"] * 4
    finally:
        redis.stop()
