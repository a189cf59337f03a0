"""A Ready counts only for the wager its page showed (RULES.md §12 "Wagers";
docs/protocol.md ``ready``): a tester's S pressed Ready at wager 10 while the
owner raised it to 20; S stayed ready and the game started at 20 as soon as
the others readied again. The ``ready`` message now carries the page's
``wager`` and a stale one is refused (``wager_changed``), changing nothing.

Real parts: ``games.tables`` through the socket handler (the shop's
``check_ready``), and the real ASGI application for the socket round trip.
"""

from __future__ import annotations

import contextlib
import uuid

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator

from games import tables
from games.adapters import handlers
from games.models import Game, Seat
from games.plugins import SocketContext
from shop import wagers
from shop.models import TableWager
from tests.helpers import make_players
from tests.test_wagers import ORIGIN, _cookie, set_coins, wager_table
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


def _ready(table, user, **fields) -> None:
    """The ``ready`` message as the socket's handler takes it."""
    handlers._ready(SocketContext(user, table.pk, "c"), {"type": "ready", **fields})


def _readies(table) -> list[bool]:
    return list(Seat.objects.filter(table=table).order_by("index").values_list("ready", flat=True))


@pytest.fixture
def four():
    players = make_players(4, "rw")
    for user in players:
        set_coins(user, 5000)
    return players


def test_a_ready_for_the_old_wager_is_refused_and_changes_nothing(four):
    n, e, s, w = four
    table = wager_table(four, 10)
    for user in (n, e, w):
        _ready(table, user, wager=10)
    wagers.set_wager(table.pk, n, 20)  # un-readies everyone
    assert _readies(table) == [False] * 4
    with pytest.raises(Refused) as err:
        _ready(table, s, wager=10)  # S's page still showed 10
    assert err.value.reason == "wager_changed"
    assert err.value.params == {"wager": 20}
    assert "20" in str(err.value)
    assert _readies(table) == [False] * 4
    for user in (n, e, w):
        _ready(table, user, wager=20)
    assert not Game.objects.filter(table=table).exists()  # S is not committed at 20
    assert _readies(table) == [True, True, False, True]
    _ready(table, s, wager=20)  # S saw 20 and agrees: the game starts
    assert Game.objects.filter(table=table).count() == 1
    assert wagers.wager_of(table.pk) == 20


def test_a_ready_without_the_wager_at_a_wager_table_is_refused(four):
    table = wager_table(four, 10)
    with pytest.raises(Refused) as err:
        _ready(table, four[1])  # an old page: no wager field
    assert (err.value.reason, err.value.params) == ("wager_changed", {"wager": 10})
    assert _readies(table) == [False] * 4


def test_a_table_without_a_wager_takes_a_ready_without_the_field(four):
    table = wager_table(four, 0)
    assert not TableWager.objects.filter(table=table, wager__gt=0).exists()
    _ready(table, four[0])
    _ready(table, four[1], wager=0)
    with pytest.raises(Refused) as err:  # the page still showed a wager since removed
        _ready(table, four[2], wager=10)
    assert (err.value.reason, err.value.params) == ("wager_changed", {"wager": 0})
    assert _readies(table) == [True, True, False, False]


@pytest.mark.parametrize("bad", ["10", 10.0, True, None, [10]])
def test_a_wager_that_is_no_whole_number_is_bad_message(four, bad):
    table = wager_table(four, 10)
    with pytest.raises(Refused) as err:
        _ready(table, four[1], wager=bad)
    assert err.value.reason == "bad_message"
    assert _readies(table) == [False] * 4


def test_an_unready_is_never_refused_for_the_wager(four):
    table = wager_table(four, 10)
    _ready(table, four[1], wager=10)
    wagers.set_wager(table.pk, four[0], 20)
    _ready(table, four[2], wager=20)
    _ready(table, four[2], ready=False, wager=10)  # whatever the page showed
    _ready(table, four[3], ready=False)
    assert _readies(table) == [False] * 4


def test_not_seated_comes_before_the_wager(four):
    table = wager_table(four[:3], 10)
    with pytest.raises(Refused) as err:
        _ready(table, four[3], wager=20)
    assert err.value.reason == "not_seated"


def test_the_servers_own_ready_is_not_checked(four):
    table = wager_table(four, 10)
    tables.set_ready(table.pk, four[1])  # no message: a ready the server gives itself
    assert _readies(table) == [False, True, False, False]


# --- through the real ASGI application ------------------------------------------------------


@pytest.fixture
def _site(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache",
                                   "LOCATION": f"ready-wager-{uuid.uuid4()}"}}
    settings.GAMES_SCHEDULER = "none"
    settings.GAMES_ACTION_RATE = (100_000, 5)


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_site")
async def test_a_stale_ready_over_the_socket_is_refused_and_the_current_one_counts():
    from tests.test_consumers import Sock
    from yuanzi_site.asgi import application

    @database_sync_to_async
    def setup():
        players = make_players(4, "rws")
        for user in players:
            set_coins(user, 5000)
        table = wager_table(players, 10)
        wagers.set_wager(table.pk, players[0], 20)
        return players, table

    players, table = await setup()
    comm = WebsocketCommunicator(application, f"/ws/table/{table.pk}/", headers=[
        ORIGIN, (b"cookie", await database_sync_to_async(_cookie)(players[2]))])
    connected, _ = await comm.connect(timeout=5)
    assert connected
    sock = Sock(comm, 2)
    try:
        await sock.until(lambda m: m["type"] == "chat_history")
        await sock.send({"type": "ready", "ready": True, "seed": "s", "wager": 10, "ref": 7})
        err = await sock.error()
        assert (err["reason"], err["params"], err["ref"]) == ("wager_changed", {"wager": 20}, 7)
        assert await database_sync_to_async(_readies)(table) == [False] * 4
        await sock.send({"type": "ready", "ready": True, "seed": "s", "wager": 20})
        snap = await sock.until(lambda m: m["type"] == "table" and m["table"]["seats"][2]["ready"])
        assert snap["table"]["wager"] == 20
        assert await database_sync_to_async(_readies)(table) == [False, False, True, False]
    finally:
        with contextlib.suppress(BaseException):
            await comm.disconnect()
