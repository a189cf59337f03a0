"""Gems and arming the 定时器 are the inventory's (docs/protocol.md "Items":
"Only there: gems … and arming the 定时器", ``POST /shop/use/``): on the table
socket they are refused ``inventory_only``, for a spectator and a player alike,
and change nothing (no arming, no rating points, no key recorded), while the
table's own items still work there. Through a real Channels
WebsocketCommunicator, as in tests/test_consumers.py."""

from __future__ import annotations

import pytest

from accounts.models import Profile
from shop import items
from shop.models import InventorySlot, ItemUse
from tests import test_consumers as tc
from tests.test_consumers import _db, _open, _start_game
from tests.test_items import give, held
from yuanzi_site.refusals import REASONS

pytestmark = pytest.mark.django_db(transaction=True)

_site, socks = tc._site, tc.socks


@pytest.fixture(autouse=True)
def _catalogue(db):
    """The catalogue's rows (a data migration), put back after a flush."""
    import importlib

    from django.apps import apps

    importlib.import_module("shop.migrations.0004_catalogue_data").add_items(apps, None)


def _armed(user) -> bool:
    return InventorySlot.objects.filter(user=user, armed=True).exists()


def _points(user) -> int:
    return Profile.objects.get(user=user).rating_points


def _keys(user) -> int:
    return ItemUse.objects.filter(user=user).count()


async def test_a_spectator_cannot_arm_a_timer_over_the_table_socket(table, players, outsider,
                                                                    socks):
    assert "inventory_only" in REASONS
    await _start_game(table, players)
    slot = await _db(give)(outsider, "timer")
    keys = await _db(_keys)(outsider)
    watcher = await _open(table.pk, outsider)
    socks.append(watcher)
    await watcher.until(lambda m: m["type"] == "game")
    await watcher.send({"type": "use_item", "slot": slot, "item": "timer", "key": "k1",
                        "ref": "shop"})
    reply = await watcher.until(lambda m: m["type"] in ("item_used", "error"))
    assert reply["type"] == "error", reply
    assert reply["reason"] == "inventory_only"
    assert reply["message"]
    assert reply.get("ref") == "shop"
    assert not await _db(_armed)(outsider)
    assert await _db(held)(outsider, "timer") == 1
    assert await _db(_keys)(outsider) == keys  # "k1" was not carried out
    # the inventory's way still arms it, with the same key
    result = await _db(items.use)(outsider, slot, "timer", "k1")
    assert result["armed"] is True
    assert await _db(_armed)(outsider)


async def test_a_player_cannot_arm_a_timer_or_use_a_gem_there_either(table, players, socks):
    await _start_game(table, players)
    me = players[0]
    timer = await _db(give)(me, "timer")
    card_counter = await _db(give)(me, "card_counter")
    sock = await _open(table.pk, me, seat=0)
    socks.append(sock)
    await sock.until(lambda m: m["type"] == "game")
    points = await _db(_points)(me)
    for n, (slot, code) in enumerate([(timer, "timer"), (0, "gem_shard"),
                                      (0, "gem_standard"), (0, "gem_perfect")]):
        await sock.send({"type": "use_item", "slot": slot, "item": code, "key": f"p{n}"})
        reply = await sock.until(lambda m: m["type"] in ("item_used", "error"))
        assert (reply["type"], reply.get("reason")) == ("error", "inventory_only"), reply
    assert not await _db(_armed)(me)
    assert await _db(_points)(me) == points
    # a table item is still used there
    await sock.send({"type": "use_item", "slot": card_counter, "item": "card_counter",
                     "key": "c1"})
    reply = await sock.until(lambda m: m["type"] in ("item_used", "error"))
    assert reply["type"] == "item_used", reply
    assert await _db(held)(me, "card_counter") == 0
