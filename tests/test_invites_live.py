"""The friend-online notice over real sockets (``/ws/me/``, the lobby's):
a friend who asked hears of the first connect of a session, not of a
reconnect (``GamePlugin.on_online``, social.online)."""

from __future__ import annotations

import time

import pytest

from games import presence
from social import friends, invites
from tests import test_consumers as tc
from tests.helpers import make_players
from tests.test_consumers import _db
from tests.test_live_balances import _personal, seen

pytestmark = pytest.mark.django_db(transaction=True)

_site, socks = tc._site, tc.socks


def _pair(owner, partner) -> None:
    friends.request(owner, partner)
    friends.accept(partner, owner)
    invites.change_settings(partner, {"online_notices": True})


async def test_a_friend_hears_once_when_you_come_online(owner, partner, socks):
    await _db(_pair)(owner, partner)
    listener = await _personal(partner)
    socks.append(listener)
    first = await _personal(owner, "/ws/lobby/")
    socks.append(first)
    heard = await seen(listener, lambda m: m["type"] == "notice")
    assert (heard["code"], heard["params"]) == ("friend_online", {"name": "owner"})
    await first.comm.disconnect()
    socks.remove(first)
    again = await _personal(owner)  # a reconnect: nobody is told again
    socks.append(again)
    await listener.send({"type": "ping"})
    assert (await listener.recv())["type"] == "pong"
    assert not [m for m in listener.frames if m.get("code") == "friend_online"][1:]


async def test_coming_back_after_the_ttl_is_told_though_the_last_visit_was_minutes_ago(
        owner, partner, settings, socks):
    """The last visit told nobody (the friend was away): coming back later is
    an arrival, however soon after that visit's page loads."""
    await _db(_pair)(owner, partner)
    earlier = await _personal(owner, "/ws/lobby/")  # the friend is not online: nobody told
    await earlier.comm.disconnect()
    listener = await _personal(partner)
    socks.append(listener)
    # the friend's heartbeat outlives the TTL after which the visit above is long gone
    await _db(presence.touch_person)("partner-later", partner, time.time() + 3600)
    settings.GAMES_PRESENCE_TTL_SECONDS = -1
    back = await _personal(owner, "/ws/lobby/")
    socks.append(back)
    heard = await seen(listener, lambda m: m["type"] == "notice")
    assert (heard["code"], heard["params"]) == ("friend_online", {"name": "owner"})


async def test_a_second_tab_is_no_arrival(owner, partner, socks):
    await _db(_pair)(owner, partner)
    first = await _personal(owner, "/ws/lobby/")  # the friend is away: nobody told
    socks.append(first)
    listener = await _personal(partner)
    socks.append(listener)
    second = await _personal(owner)  # another page while the lobby stays open
    socks.append(second)
    await listener.send({"type": "ping"})
    assert (await listener.recv())["type"] == "pong"
    assert not [m for m in listener.frames if m.get("code") == "friend_online"]


def _invited(owner, partner) -> int:
    from games import tables
    from social.models import TableInvite

    table, _why = tables.open_table(owner, "好友桌", private=True)
    for i, u in enumerate(make_players(3, prefix="f"), start=1):
        tables.sit(table.pk, u, i)
    invites.invite(owner, table.pk, partner)
    invites.accept(partner, TableInvite.objects.get().pk)  # no free seat: standing
    return table.pk


async def test_an_accepted_invite_opens_the_socket_but_not_the_link(owner, partner, outsider,
                                                                     socks):
    table_id = await _db(_invited)(owner, partner)
    guest = await tc._open(table_id, partner)
    socks.append(guest)
    first = guest.frames[0]["table"]
    assert first["id"] == table_id
    assert first["private"]
    assert first["room_code"] is None
    assert first["invite_path"] is None
    mine = await tc._open(table_id, owner)  # the owner's own connection keeps it
    socks.append(mine)
    assert mine.frames[0]["table"]["room_code"]
    # someone without the invite is refused as if the table did not exist
    from channels.testing import WebsocketCommunicator

    from yuanzi_site.asgi import application

    comm = WebsocketCommunicator(application, f"/ws/table/{table_id}/", headers=[
        tc.ORIGIN, (b"cookie", await _db(tc._cookie)(outsider))])
    await comm.connect(timeout=tc.TIMEOUT)
    closed = await comm.receive_output(timeout=tc.TIMEOUT)
    assert closed == {"type": "websocket.close", "code": 4404}
