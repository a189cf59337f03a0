"""A 好友房 with spectators off: the friends it was made for get
in, strangers do not, and a friend standing there sees no game while one runs.

Real ASGI application and sockets as in ``tests/test_consumers.py``
(``transaction=True``: consumers reach the database from other threads). The
browser side is ``tests/test_browser_friends.py``.
"""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.conf import settings as django_settings
from django.test import Client

from games import play, snapshots, tables
from games.models import Table
from tests import test_consumers
from tests.test_consumers import ORIGIN, Sock, _open, _start_game
from yuanzi_site.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

db = database_sync_to_async
socks, _site = test_consumers.socks, test_consumers._site


def _invited(user, table: Table, by_code: bool) -> tuple[Client, bytes]:
    """``user``'s browser after taking the invite (room code or link): the
    client and its session cookie (the session remembers the invite)."""
    client = Client()
    client.force_login(user)
    if by_code:
        response = client.post("/tables/join/", {"code": table.room_code})
        assert response.status_code == 302
        assert response.url == f"/tables/{table.pk}/"
    else:
        assert client.get(f"/tables/{table.pk}/?invite={table.invite_token}").status_code == 200
    name = django_settings.SESSION_COOKIE_NAME
    return client, f"{name}={client.cookies[name].value}".encode()


async def _open_with(table_id: int, cookie: bytes) -> Sock:
    comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/",
                                 headers=[ORIGIN, (b"cookie", cookie)])
    connected, code = await comm.connect(timeout=5)
    assert connected, code
    sock = Sock(comm)
    assert (await sock.recv())["type"] == "table"
    assert (await sock.recv())["type"] == "chat_history"
    return sock


def test_friends_by_code_and_by_link_open_it_and_strangers_get_404(django_user_model):
    owner, code_friend, link_friend, stranger = (
        django_user_model.objects.create_user(username=n)
        for n in ("fz", "code_friend", "link_friend", "stranger"))
    table = tables.create_table(owner, "好友房", private=True)
    tables.set_spectators(table.pk, owner, False)
    table.refresh_from_db()
    for user, by_code in ((code_friend, True), (link_friend, False)):
        client, _cookie = _invited(user, table, by_code)
        assert client.get(f"/tables/{table.pk}/").status_code == 200  # remembered
    client = Client()
    client.force_login(stranger)
    assert client.get(f"/tables/{table.pk}/").status_code == 404
    assert client.get(f"/tables/{table.pk}/?invite=wrong").status_code == 404
    assert Client().get(f"/tables/{table.pk}/").status_code == 404  # anonymous


async def test_a_standing_friend_gets_no_game_is_not_counted_and_sits_when_it_ends(
        players, django_user_model, socks):
    owner = players[0]
    friend = await db(django_user_model.objects.create_user)(username="friend")
    stranger = await db(django_user_model.objects.create_user)(username="stranger")
    table = await db(tables.create_table)(owner, "好友房", private=True)
    await db(tables.set_spectators)(table.pk, owner, False)
    table = await db(Table.objects.get)(pk=table.pk)
    _client, cookie = await db(_invited)(friend, table, True)

    refused = WebsocketCommunicator(application, f"/ws/table/{table.pk}/", headers=[
        ORIGIN, (b"cookie", await db(test_consumers._cookie)(stranger))])
    assert (await refused.connect(timeout=5))[0]
    assert await refused.receive_output(timeout=5) == {"type": "websocket.close",
                                                       "code": 4404}
    await refused.disconnect()

    guest = await _open_with(table.pk, cookie)
    socks.append(guest)
    seated = await _open(table.pk, owner, seat=0)
    socks.append(seated)
    game = await _start_game(table, players)
    await seated.until(lambda m: m["type"] == "game")
    # a chat line after the game's first frames: same queue, so anything sent
    # to the guest before it has arrived by the time it does
    await seated.send({"type": "chat", "text": "开始"})
    await guest.until(lambda m: m["type"] == "chat")
    assert not [f for f in guest.frames if f["type"] == "game"]
    await guest.send({"type": "sync"})
    assert (await guest.until(lambda m: m["type"] == "game"))["view"] is None
    snap = await db(snapshots.table_snapshot)(table.pk)
    assert snap["status"] == "playing"
    assert snap["spectators"] == 0
    assert snap["watchers"] == {"names": [], "anonymous": 0}

    # the page: the table and chat, no game view, a notice instead
    page = await db(_client.get)(f"/tables/{table.pk}/")
    assert page.status_code == 200
    assert page.context["boot"]["view"] is None
    assert page.context["boot"]["me"]["may_watch"] is False

    await db(play.escape)(game.pk, players[3])  # the game ends; seat 3 is free
    await guest.until(lambda m: m["type"] == "table" and m["table"]["status"] == "waiting")
    await guest.send({"type": "sit", "seat": 3})
    frame = await guest.until(lambda m: m["type"] == "table"
                              and (m["table"]["seats"][3]["player"] or {}).get("id")
                              == friend.pk)
    assert frame["table"]["seats"][3]["player"]["username"] == "friend"


async def test_the_owner_standing_still_watches_with_spectators_off(players, outsider, socks):
    owner, others = players[0], players[1:]
    table = await db(tables.create_table)(owner, "好友房", private=True)
    await db(tables.set_spectators)(table.pk, owner, False)
    watcher = await _open(table.pk, owner)
    socks.append(watcher)
    game = await _start_game(table, [outsider, *others])
    view = (await watcher.until(lambda m: m["type"] == "game"))["view"]
    assert view["game_id"] == game.pk
    assert view["seat"] is None
    assert view["hand"] is None
    snap = await db(snapshots.table_snapshot)(table.pk)
    assert snap["spectators"] == 1


def test_a_private_tables_game_page_links_to_it_only_for_those_it_opens_for(
        django_user_model):
    """A 好友房's game page offers 去牌桌 only to those the table opens for
    (its players, its owner, an invite in the session): for anyone else the
    table is a 404, so the link was a dead end (a tester's). The lobby's
    checkbox says how one gets in: the link or the code, not friendship."""
    from tests import helpers
    from tests.test_wagers import finish_with, finished_state

    four = helpers.make_players(4, "room")
    game = helpers.start_game(four)
    Table.objects.filter(pk=game.table_id).update(
        private=True, room_code="246810", invite_token="t" * 24)
    finish_with(game, finished_state("0"))
    visitor = django_user_model.objects.create_user(username="roomvisitor")
    go = f'href="/tables/{game.table_id}/"'
    mine = Client()
    mine.force_login(four[0])
    assert go in mine.get(f"/games/{game.pk}/").content.decode()
    assert go not in Client().get(f"/games/{game.pk}/").content.decode()  # anonymous
    theirs = Client()
    theirs.force_login(visitor)
    assert go not in theirs.get(f"/games/{game.pk}/").content.decode()
    theirs.post("/tables/join/", {"code": "246810"})  # the code: now it opens
    assert go in theirs.get(f"/games/{game.pk}/").content.decode()
    lobby = mine.get("/", HTTP_ACCEPT_LANGUAGE="zh-hans").content.decode()
    assert "好友房（凭邀请链接或房间号进入）" in lobby
