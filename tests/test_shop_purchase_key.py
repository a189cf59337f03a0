"""A purchase's one-time key (docs/protocol.md "Items", Purchases): the shop
page renders a fresh ``key`` into each buy form, and ``POST /shop/buy/`` with a
key already carried out buys nothing and answers with the first purchase's
outcome, so a double click or a double tap charges once. Checked against the
ledger rows, the coins and the slots; the autouse ledger check proves the
ledger after each test. The racing pair needs PostgreSQL."""

from __future__ import annotations

import os
import re
import threading

import pytest
from django.db import close_old_connections, connection, transaction
from django.test import Client

from accounts.models import Profile
from shop import items, ledger, purchase
from shop.models import CoinEntry, InventorySlot, ItemUse
from yuanzi_site.refusals import Refused

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _catalogue(db):
    """The catalogue's rows (a data migration), put back after a flush."""
    import importlib

    from django.apps import apps

    importlib.import_module("shop.migrations.0004_catalogue_data").add_items(apps, None)


def coins(user) -> int:
    return Profile.objects.get(user=user).coins


def purchases(user) -> list[tuple[int, str]]:
    return list(CoinEntry.objects.filter(user=user, reason="purchase").order_by("pk")
                .values_list("amount", "item_code"))


def held(user, code: str) -> int:
    return sum(InventorySlot.objects.filter(user=user, item__code=code)
               .values_list("count", flat=True))


def buy_json(client: Client, **fields) -> dict:
    r = client.post("/shop/buy/", fields, HTTP_ACCEPT="application/json")
    return {"status": r.status_code, **r.json()}


@pytest.fixture
def buyer(owner):
    return owner  # 2,000 coins, like every new account


@pytest.fixture
def logged_in(buyer) -> Client:
    client = Client()
    client.force_login(buyer)
    return client


def test_the_same_key_twice_buys_once_and_says_what_was_bought(buyer, logged_in):
    first = buy_json(logged_in, item="card_counter", quantity="2", price="400", key="k-1")
    second = buy_json(logged_in, item="card_counter", quantity="2", price="400", key="k-1")
    assert first["status"] == second["status"] == 200
    assert first["repeated"] is False
    assert second["repeated"] is True
    for reply in (first, second):
        assert (reply["item"], reply["count"], reply["total"]) == ("card_counter", 2, 800)
        assert reply["coins"] == 1200
    assert second["message"] == first["message"]
    assert "800" in first["message"]
    assert purchases(buyer) == [(-800, "card_counter")]  # one ledger row
    assert coins(buyer) == 1200
    assert held(buyer, "card_counter") == 2


def test_a_resent_key_answers_the_first_purchase_whatever_else_it_says(buyer, logged_in):
    buy_json(logged_in, item="recorder", quantity="1", price="300", key="tap")
    again = buy_json(logged_in, item="recorder", quantity="3", price="300", key="tap")
    assert (again["item"], again["count"], again["total"], again["repeated"]) == (
        "recorder", 1, 300, True)
    other = buy_json(logged_in, item="timer", quantity="1", price="600", key="tap")
    assert (other["item"], other["count"], other["repeated"]) == ("recorder", 1, True)
    assert purchases(buyer) == [(-300, "recorder")]
    assert coins(buyer) == 1700
    assert held(buyer, "recorder") == 1
    assert held(buyer, "timer") == 0


def test_different_keys_and_no_key_buy_each_time(buyer, logged_in):
    for key in ("a", "b"):
        reply = buy_json(logged_in, item="card_counter", quantity="1", price="400", key=key)
        assert reply["repeated"] is False
    assert buy_json(logged_in, item="recorder", quantity="1", price="300")["ok"]
    assert buy_json(logged_in, item="recorder", quantity="1", price="300")["ok"]
    assert purchases(buyer) == [(-400, "card_counter"), (-400, "card_counter"),
                                (-300, "recorder"), (-300, "recorder")]
    assert coins(buyer) == 2000 - 800 - 600
    assert held(buyer, "card_counter") == 2
    assert held(buyer, "recorder") == 2
    assert ItemUse.objects.filter(user=buyer).count() == 2  # the two keys, recorded


def test_another_persons_key_is_not_mine(buyer, outsider):
    purchase.buy(buyer, "recorder", 1, 300, key="same")
    mine = purchase.buy(outsider, "recorder", 1, 300, key="same")
    assert not mine.repeated
    assert purchases(outsider) == [(-300, "recorder")]


def test_form_posts_with_one_key_show_one_banner(buyer, logged_in):
    """The page's path (no Accept: JSON): both posts redirect to /shop/; the
    second adds no second banner while the first one's still waits, and says
    what was bought when it is alone."""
    fields = {"item": "card_counter", "quantity": "2", "price": "400", "key": "form-1"}
    assert logged_in.post("/shop/buy/", fields).status_code == 302
    r = logged_in.post("/shop/buy/", fields, follow=True)
    assert r.redirect_chain[-1][0] == "/shop/"
    said = [str(m) for m in r.context["messages"]]
    assert len(said) == 1, said
    assert "800" in said[0]
    assert purchases(buyer) == [(-800, "card_counter")]
    # a repeat after the banner was shown says it again
    r = logged_in.post("/shop/buy/", fields, follow=True)
    assert [str(m) for m in r.context["messages"]] == said
    assert coins(buyer) == 1200


def test_a_refused_purchase_keeps_no_key(buyer, logged_in):
    fields = {"item": "sign", "quantity": "3", "price": "1000", "key": "later"}
    assert buy_json(logged_in, **fields)["reason"] == "not_enough_coins"
    assert not ItemUse.objects.filter(user=buyer).exists()
    with transaction.atomic():
        ledger.credit(buyer, 1000, ledger.Reason.GRANT)
    reply = buy_json(logged_in, **fields)
    assert reply["ok"]
    assert reply["repeated"] is False
    assert coins(buyer) == 0
    assert held(buyer, "sign") == 3


@pytest.mark.parametrize("key", ["", "x" * 65])
def test_a_key_of_the_wrong_length_is_refused(buyer, logged_in, key):
    reply = buy_json(logged_in, item="recorder", quantity="1", price="300", key=key)
    assert (reply["status"], reply["reason"]) == (400, "bad_key")
    assert purchases(buyer) == []
    assert buy_json(logged_in, item="recorder", quantity="1", price="300",
                    key="x" * 64)["ok"]


def test_a_key_is_either_a_purchases_or_a_uses(buyer):
    purchase.buy(buyer, "timer", 1, 600, key="shared")
    slot = InventorySlot.objects.get(user=buyer, item__code="timer").slot
    with pytest.raises(Refused) as e:
        items.use(buyer, slot, "timer", "shared")
    assert e.value.reason == "bad_key"
    assert not InventorySlot.objects.filter(user=buyer, armed=True).exists()
    items.use(buyer, slot, "timer", "arm-1")
    with pytest.raises(Refused) as e:
        purchase.buy(buyer, "timer", 1, 600, key="arm-1")
    assert e.value.reason == "bad_key"
    assert purchases(buyer) == [(-600, "timer")]


def test_the_page_renders_a_fresh_key_into_each_buy_form(buyer, logged_in):
    def keys() -> list[str]:
        page = logged_in.get("/shop/")
        assert "no-cache" in page["Cache-Control"]  # back to the page: new keys
        return re.findall(r'name="key" value="([^"]+)"', page.content.decode())

    once, again = keys(), keys()
    forms = purchase.Item.objects.filter(for_sale=True).count()
    assert len(once) == len(set(once)) == forms
    assert not set(once) & set(again)
    assert all(1 <= len(k) <= 64 for k in once)


@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(not os.environ.get("DATABASE_URL"),
                    reason="needs PostgreSQL (DATABASE_URL): SQLite serialises every writer")
def test_two_posts_of_one_key_at_the_same_moment_buy_once(django_user_model):
    from django.core.management import call_command

    assert connection.vendor == "postgresql"
    user = django_user_model.objects.create_user(username="racer")
    results: list[purchase.Purchase] = []
    barrier = threading.Barrier(8)

    def one() -> None:
        try:
            barrier.wait()
            results.append(purchase.buy(user, "card_counter", 2, 400, key="dbl"))
        finally:
            close_old_connections()
            connection.close()

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 8
    assert sum(not r.repeated for r in results) == 1
    assert {(r.code, r.count, r.total) for r in results} == {("card_counter", 2, 800)}
    assert purchases(user) == [(-800, "card_counter")]
    assert coins(user) == 1200
    call_command("check_ledger")
