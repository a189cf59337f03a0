"""games.adapters.dbcalls: the consumers' database calls run in a pool of threads on
PostgreSQL (GAMES_DB_THREADS > 0) and in Channels' one database thread on SQLite.
The PostgreSQL runs of the consumer tests exercise the pool end to end."""

from __future__ import annotations

import asyncio
import threading

import pytest
from channels.layers import get_channel_layer
from django.db import connections

from games.adapters import sends
from games.adapters.dbcalls import db

# the pool's threads open connections of their own, outside the test's transaction
pytestmark = pytest.mark.django_db(transaction=True)


def _where() -> tuple[str, int]:
    return threading.current_thread().name, id(connections["default"])


async def test_with_threads_the_calls_overlap_in_the_pool(settings):
    """Two calls at once run in two pool threads, each with its own connection."""
    settings.GAMES_DB_THREADS = 2
    barrier = threading.Barrier(2, timeout=10)

    def meet() -> tuple[str, int]:
        barrier.wait()  # only returns if both calls run at the same time
        return _where()

    def close() -> None:
        barrier.wait()  # one per thread: the test database can be dropped after the run
        connections.close_all()

    (a_name, a_conn), (b_name, b_conn) = await asyncio.gather(db(meet)(), db(meet)())
    assert a_name.startswith("db")
    assert b_name.startswith("db")
    assert a_name != b_name
    assert a_conn != b_conn
    await asyncio.gather(db(close)(), db(close)())


async def test_without_threads_every_call_uses_the_one_database_thread(settings):
    settings.GAMES_DB_THREADS = 0
    first, second = await db(_where)(), await db(_where)()
    assert first == second
    assert not first[0].startswith("db")


async def test_a_calls_sends_go_out_in_order_when_it_returns_or_raises(settings):
    """What a database call broadcasts is handed back with its result (no wake
    of the loop from the database thread) and sent in order, also when it raises."""
    settings.GAMES_DB_THREADS = 0
    layer = get_channel_layer()
    channel = await layer.new_channel()
    await layer.group_add("dbcalls-test", channel)

    def changes(n: int) -> int:
        sends.send_all([("dbcalls-test", {"type": "x", "n": n}),
                        ("dbcalls-test", {"type": "x", "n": n + 1})])
        sends.send("dbcalls-test", {"type": "x", "n": n + 2})
        return n

    def fails() -> None:
        sends.send("dbcalls-test", {"type": "x", "n": 99})
        raise ValueError("refused")

    assert await db(changes)(1) == 1
    with pytest.raises(ValueError, match="refused"):
        await db(fails)()
    got = [(await asyncio.wait_for(layer.receive(channel), 5))["n"] for _ in range(4)]
    assert got == [1, 2, 3, 99]
    await layer.group_discard("dbcalls-test", channel)
