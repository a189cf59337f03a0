"""The shop (RULES.md §9, §12): coin sources, the catalogue and
purchases, the inventory, the pages and the JSON API. Every refusal is checked
to change nothing (coins, slots, entries); the autouse ledger check proves the
ledger after each test. The 50-parallel-purchases test needs PostgreSQL."""

from __future__ import annotations

import os
import threading
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import close_old_connections, connection
from django.test import Client
from django.utils import timezone

from accounts.models import Profile
from shop import coins, inventory, purchase
from shop.models import CheckIn, CoinEntry, InventorySlot, Item
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _catalogue(db):
    """The catalogue's rows (a data migration): a ``transaction=True`` test
    flushes the tables, so they are put back before each test (idempotent)."""
    import importlib

    from django.apps import apps

    importlib.import_module("shop.migrations.0004_catalogue_data").add_items(apps, None)


def balance(user) -> int:
    return Profile.objects.get(user=user).coins


def picture(user) -> tuple:
    """Everything a refusal must leave alone: coins, entries, slots."""
    return (balance(user), CoinEntry.objects.filter(user=user).count(),
            sorted(InventorySlot.objects.filter(user=user)
                   .values_list("slot", "item__code", "count", "armed")))


def set_coins(user, amount: int) -> None:
    """Move the balance to ``amount`` through the ledger (a grant or a debit)."""
    from django.db import transaction

    from shop import ledger
    delta = amount - balance(user)
    with transaction.atomic():
        if delta > 0:
            ledger.credit(user, delta, ledger.Reason.GRANT)
        elif delta < 0:
            ledger.debit(user, -delta, ledger.Reason.GRANT)


def at(monkeypatch, when: datetime) -> None:
    monkeypatch.setattr(timezone, "now", lambda: when)


SH = ZoneInfo("Asia/Shanghai")


# --- coin sources -------------------------------------------------------------------


def test_check_in_cycle_restarts_after_a_missed_day(owner, monkeypatch):
    got = []
    day = datetime(2026, 12, 1, 9, 0, tzinfo=SH)
    for i in range(8):
        at(monkeypatch, day + timedelta(days=i))
        got.append(coins.check_in(owner).amount)
    assert got == [100, 150, 200, 300, 400, 500, 600, 100]
    at(monkeypatch, day + timedelta(days=10))  # days 9 and 10 missed
    assert coins.check_in_status(owner).amount == 100
    assert coins.check_in(owner).amount == 100


def test_check_in_once_a_calendar_day_in_shanghai(owner, monkeypatch):
    # 23:30 and 00:10 Shanghai are two days although 40 minutes apart
    at(monkeypatch, datetime(2026, 12, 1, 23, 30, tzinfo=SH))
    assert coins.check_in(owner).amount == 100
    before = picture(owner)
    with pytest.raises(Refused) as e:
        coins.check_in(owner)
    assert e.value.reason == "already_checked_in"
    assert picture(owner) == before
    status = coins.check_in_status(owner)
    assert not status.available
    assert status.amount == 150
    at(monkeypatch, datetime(2026, 12, 2, 0, 10, tzinfo=SH))
    assert coins.check_in(owner).amount == 150
    assert CheckIn.objects.filter(user=owner).count() == 2


def test_relief_under_200_once_per_rolling_24_hours(owner, monkeypatch):
    with pytest.raises(Refused) as e:
        coins.claim_relief(owner)
    assert e.value.reason == "relief_too_rich"
    set_coins(owner, 199)
    now = timezone.now()
    assert coins.claim_relief(owner).balance_after == 699
    set_coins(owner, 0)
    before = picture(owner)
    at(monkeypatch, now + timedelta(hours=23, minutes=59))
    with pytest.raises(Refused) as e:
        coins.claim_relief(owner)
    assert e.value.reason == "relief_too_soon"
    assert picture(owner) == before
    at(monkeypatch, now + timedelta(hours=24, minutes=1))
    assert coins.claim_relief(owner).amount == 500


# --- purchases ------------------------------------------------------------------------


def test_catalogue_has_the_issue_codes_and_prices():
    prices = dict(Item.objects.values_list("code", "price"))
    assert {k: prices[k] for k in ("sign", "gold_sign", "timer", "card_counter", "tablecloth",
                                   "recorder")} == {
        "sign": 1000, "gold_sign": 8000, "timer": 600, "card_counter": 400,
        "tablecloth": 1500, "recorder": 300}
    gems = Item.objects.filter(code__startswith="gem_")
    assert gems.count() == 3
    assert not gems.filter(for_sale=True).exists()
    assert not gems.filter(stackable=True).exists()


def test_the_timers_description_says_its_fee_is_paid_only_when_it_fires():
    """A tester read the 定时器's 270 as a second price (RULES.md §12: paid when
    it fires, 90 to each other person at the table)."""
    timer = Item.objects.get(code="timer")
    assert "（只在生效时）你另付 270 金币" in timer.description_zh
    assert "only then do you pay a further 270 coins" in timer.description_en


def test_buy_debits_and_fills_stacks_then_empty_slots(owner):
    purchase.buy(owner, "timer", 1, 600)
    assert balance(owner) == 1400
    set_coins(owner, 1_000_000)
    purchase.buy(owner, "card_counter", 99, 400)  # slot 1 full
    purchase.buy(owner, "timer", 99, 600)  # tops slot 0 to 99, then 1 in slot 2
    rows = list(InventorySlot.objects.filter(user=owner, count__gt=0).order_by("slot")
                .values_list("slot", "item__code", "count"))
    assert rows == [(0, "timer", 99), (1, "card_counter", 99), (2, "timer", 1)]
    entry = CoinEntry.objects.filter(user=owner, reason="purchase").first()
    assert entry.amount == -59400
    assert entry.item_code == "timer"


@pytest.mark.parametrize(("code", "quantity", "price", "reason"), [
    ("nothing", 1, 600, "no_item"),
    ("gem_shard", 1, 0, "no_item"),
    (None, 1, 600, "no_item"),
    ("timer", 0, 600, "bad_quantity"),
    ("timer", 100, 600, "bad_quantity"),
    ("timer", "1.5", 600, "bad_quantity"),
    ("timer", True, 600, "bad_quantity"),
    ("timer", 1, 500, "price_changed"),
    ("timer", 1, "abc", "bad_message"),  # not a number at all
    ("timer", 4, 600, "not_enough_coins"),
])
def test_refused_purchases_change_nothing(owner, code, quantity, price, reason):
    before = picture(owner)
    with pytest.raises(Refused) as e:
        purchase.buy(owner, code, quantity, price)
    assert e.value.reason == reason
    assert str(e.value)
    assert picture(owner) == before


def test_a_full_inventory_refuses_the_whole_purchase(owner):
    set_coins(owner, 10_000_000)
    for _ in range(23):
        purchase.buy(owner, "timer", 99, 600)
    purchase.buy(owner, "sign", 98, 1000)  # one place left, in the sign stack
    before = picture(owner)
    with pytest.raises(Refused) as e:
        purchase.buy(owner, "sign", 2, 1000)
    assert e.value.reason == "inventory_full"
    assert picture(owner) == before
    purchase.buy(owner, "sign", 1, 1000)
    with pytest.raises(Refused) as e:
        purchase.buy(owner, "recorder", 1, 300)
    assert e.value.reason == "inventory_full"


def test_price_change_in_the_admin_is_what_you_pay(owner):
    Item.objects.filter(code="recorder").update(price=350)
    with pytest.raises(Refused) as e:
        purchase.buy(owner, "recorder", 1, 300)
    assert e.value.reason == "price_changed"
    assert "350" in str(e.value)
    purchase.buy(owner, "recorder", 2, 350)
    assert balance(owner) == 1300


# --- the inventory ------------------------------------------------------------------------


def test_swap_keeps_the_order_and_the_arming(owner):
    from shop import items

    purchase.buy(owner, "timer", 2, 600)
    purchase.buy(owner, "recorder", 1, 300)
    items.use(owner, 0, "timer", "k1")
    inventory.swap(owner, 0, 1)
    assert inventory.as_json(inventory.slots_of(owner.pk))[:3] == [
        {"slot": 0, "item": "recorder", "count": 1, "armed": False},
        {"slot": 1, "item": "timer", "count": 2, "armed": True},
        {"slot": 2, "item": None, "count": 0, "armed": False}]
    inventory.swap(owner, 1, 23)
    assert inventory.slots_of(owner.pk)[23].armed
    for bad in (-1, 24, "３", " 3", None, True):
        before = picture(owner)
        with pytest.raises(Refused) as e:
            inventory.swap(owner, 0, bad)
        assert e.value.reason == "bad_slot"
        assert picture(owner) == before


# --- pages and the API ------------------------------------------------------------------


def test_shop_page_lists_every_item_with_picture_price_and_holding(owner, client):
    client.force_login(owner)
    purchase.buy(owner, "timer", 2, 600)
    page = client.get("/shop/").content.decode()
    for item in Item.objects.all():
        assert f'data-item="{item.code}"' in page
        assert f"shop/{item.code}.svg" in page
    assert "600" in page
    assert 'id="shop-coins" class="coins">800<' in page
    assert "checkin-btn" in page
    assert "relief-btn" in page
    assert 'href="/shop/"' in client.get("/").content.decode()  # the nav links the shop


def test_buy_form_post_csrf_and_get_405(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    assert client.get("/shop/buy/").status_code == 405
    before = picture(owner)
    assert client.post("/shop/buy/", {"item": "timer", "quantity": 1, "price": 600}
                       ).status_code == 403
    assert picture(owner) == before
    client = Client()
    client.force_login(owner)
    r = client.post("/shop/buy/", {"item": "timer", "quantity": "2", "price": "600"}, follow=True)
    assert r.redirect_chain[-1][0] == "/shop/"
    assert balance(owner) == 800
    r = client.post("/shop/buy/", {"item": "timer", "quantity": "2", "price": "600"},
                    HTTP_ACCEPT="application/json")
    assert r.status_code == 400
    assert r.json()["reason"] == "not_enough_coins"
    assert balance(owner) == 800


def test_api_shop_and_me(owner, client):
    rows = client.get("/api/shop").json()["items"]
    assert {"code": "timer", "name_zh": "定时器", "name_en": "Timer", "price": 600,
            "stackable": True, "for_sale": True} in rows
    r = client.get("/api/me")
    assert r.status_code == 401
    assert r.json()["reason"] == "login_required"
    client.force_login(owner)
    purchase.buy(owner, "card_counter", 1, 400)
    me = client.get("/api/me").json()
    assert me["username"] == "owner"
    assert me["coins"] == 1600
    assert me["rating_points"] == 0
    assert me["level"] == 0
    assert me["title"]
    assert len(me["inventory"]) == 24
    assert me["inventory"][0] == {"slot": 0, "item": "card_counter", "count": 1, "armed": False}


def test_check_in_and_relief_through_the_pages(owner, client):
    client.force_login(owner)
    r = client.post("/shop/checkin/", HTTP_ACCEPT="application/json")
    assert r.json()["amount"] == 100
    assert balance(owner) == 2100
    r = client.post("/shop/checkin/", HTTP_ACCEPT="application/json")
    assert r.status_code == 400
    assert r.json()["reason"] == "already_checked_in"
    r = client.post("/shop/relief/", follow=True)
    assert "200" in r.content.decode()
    assert balance(owner) == 2100
    profile = client.get("/accounts/profile/").content.decode()
    assert "shop-panel" in profile
    assert "inventory" in profile


# --- 50 purchases at once (PostgreSQL) ------------------------------------------------------


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not os.environ.get("DATABASE_URL"),
                    reason="needs PostgreSQL (DATABASE_URL): SQLite serialises every writer, "
                           "so parallel purchases prove nothing there")
def test_fifty_parallel_purchases_exactly_ten_succeed(django_user_model):
    from django.core.management import call_command

    assert connection.vendor == "postgresql"
    buyer = django_user_model.objects.create_user(username="buyer")
    set_coins(buyer, 10 * 400)
    results: list[str] = []
    barrier = threading.Barrier(50)

    def one() -> None:
        try:
            barrier.wait()
            purchase.buy(buyer, "card_counter", 1, 400)
            results.append("ok")
        except Refused as e:
            results.append(e.reason)
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=one) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count("ok") == 10
    assert results.count("not_enough_coins") == 40
    assert balance(buyer) == 0
    assert InventorySlot.objects.get(user=buyer, slot=0).count == 10
    assert CoinEntry.objects.filter(user=buyer, reason="purchase").count() == 10
    call_command("check_ledger")


def test_inventory_endpoints_use_swap_disarm(owner, client):
    import json as _json

    assert client.post("/shop/use/", {}).status_code == 401
    client.force_login(owner)
    assert client.get("/shop/use/").status_code == 405
    purchase.buy(owner, "timer", 2, 600)
    purchase.buy(owner, "recorder", 1, 300)

    def post(url, body):
        return client.post(url, _json.dumps(body), content_type="application/json")

    r = post("/shop/use/", {"slot": 0, "item": "timer", "key": "arm-1"})
    assert r.status_code == 200
    assert r.json()["result"] == {"item": "timer", "slot": 0,
                                                          "armed": True}
    assert r.json()["inventory"][0]["armed"] is True
    r = post("/shop/use/", {"slot": 1, "item": "timer", "key": "arm-2"})
    assert r.status_code == 400
    assert r.json()["reason"] == "wrong_item"
    r = client.post("/shop/use/", "{not json", content_type="application/json")
    assert r.status_code == 400
    assert r.json()["reason"] == "bad_message"
    r = client.post("/shop/swap/", {"a": "0", "b": "5"})  # a form works too
    assert r.json()["inventory"][5] == {"slot": 5, "item": "timer", "count": 2, "armed": True}
    page = client.get("/shop/").content.decode()
    assert 'id="disarm-btn">' in page  # enabled while a timer is armed
    r = post("/shop/disarm/", {})
    assert r.json()["inventory"][5]["armed"] is False
    assert 'id="disarm-btn" disabled>' in client.get("/shop/").content.decode()
    before = picture(owner)
    r = post("/shop/use/", {"slot": 1, "item": "recorder", "key": "rec"})
    assert r.status_code == 400
    assert r.json()["reason"] == "needs_game"
    assert picture(owner) == before


def test_the_shop_page_logged_out_loads_no_inventory_script(client):
    """Logged out there is no inventory panel, so its script (which needs one) is not sent."""
    page = client.get("/shop/").content.decode()
    assert "shop/inventory.js" not in page
    assert 'id="inventory"' not in page
