"""The friend-online notice over real sockets (``/ws/me/``, the lobby's):
a friend who asked hears of the first connect of a session, not of a
reconnect (``GamePlugin.on_online``, social.online)."""

from __future__ import annotations

import pytest

from social import friends, invites
from tests import test_consumers as tc
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
