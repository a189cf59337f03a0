"""The shop in a real browser (issue 8): a new user checks in, buys a timer and
a card counter, sees the coins drop, uses the counter at a practice table
(three bots) and sees the remaining cards. The site and browser fixtures are
tests/test_browser.py's (the site is ``manage.py runsite`` as a child)."""

from __future__ import annotations

import os

import pytest

from tests import test_browser as tb
from tests.browser import Player, chromium_path

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    # on PostgreSQL the child serves the test database: committed rows, set up first
    pytest.mark.django_db(transaction=True),
]

browser = tb.browser


@pytest.fixture
def site(request):
    """tests/test_browser.py's site; on PostgreSQL the flushed test database
    gets the catalogue back first (its rows come from a data migration)."""
    from tests.servers import Site, test_database_url

    if os.environ.get("DATABASE_URL"):
        import importlib

        from django.apps import apps

        importlib.import_module("shop.migrations.0004_catalogue_data").add_items(apps, None)
        site = Site(database_url=test_database_url(), redis_url=os.environ.get("REDIS_URL"))
    else:
        site = Site()
    try:
        yield site.wait_listening()
    finally:
        site.stop()


def _coins(page) -> int:
    return int(page.locator("#shop-coins").inner_text())


def _buy(page, code: str) -> None:
    item = page.locator(f'.catalogue-item[data-item="{code}"]')
    item.locator("button[type=submit]").click()
    page.wait_for_load_state()


def test_check_in_buy_and_count_cards_at_a_practice_table(site, browser):
    me = Player.open(browser, "xiaohong", viewport={"width": 1280, "height": 900})
    me.sign_up(site.base_url)
    page = me.page
    page.locator(".site-nav a[href='/shop/']").click()
    page.wait_for_url("**/shop/")
    assert _coins(page) == 2000
    assert "100" in page.locator("#checkin-next").inner_text()
    page.locator("#checkin-btn").click()
    page.wait_for_load_state()
    assert _coins(page) == 2100
    assert page.locator("#checkin-btn").is_disabled()
    _buy(page, "timer")
    assert _coins(page) == 1500
    _buy(page, "card_counter")
    assert _coins(page) == 1100
    _buy(page, "recorder")
    assert _coins(page) == 800
    slots = page.locator("#inventory .slot[data-item]:not([data-item=''])")
    assert sorted(slots.evaluate_all("els => els.map(e => e.dataset.item)")) == [
        "card_counter", "recorder", "timer"]
    # the timer is armed from the inventory with a double-click
    page.locator('#inventory .slot[data-item="timer"]').dblclick()
    page.locator('#inventory .slot.armed[data-item="timer"]').wait_for()
    # double-clicking the counter here says it works at a table, and keeps it
    page.locator('#inventory .slot[data-item="card_counter"]').dblclick()
    page.wait_for_function("() => document.getElementById('inventory-message').textContent")

    page.goto(site.base_url + "/")
    me.create_table("算牌桌")
    me.sit(0)
    assert me.add_bots() == 3
    me.ready()
    page.locator("#table-app[data-status=playing]").wait_for()
    button = page.locator("#use-counter")
    button.wait_for(state="visible")
    button.click()
    counter = page.locator("#card-counter")
    counter.wait_for(state="visible")
    assert me.wait_turn_or_over() == "turn"  # the bots wait for me: nothing moves now
    page.wait_for_timeout(600)  # the panel redraws every 0.4 s
    counts = dict(counter.locator("span[data-card]").evaluate_all(
        "els => els.map(e => [e.dataset.card, Number(e.textContent.split('×')[1])])"))
    view = page.evaluate("() => window.YuanziTable.state().view")
    assert len(counts) == 54 and counts == view["card_counter"]
    # what the other three hold between them, card for card in total
    assert sum(counts.values()) == sum(n for i, n in enumerate(view["counts"]) if i != 0)

    me.take_turn()  # one move of mine in the record at least
    # leave the game (practice: no penalty); the result panel offers the recorder
    page.locator("#escape-btn").click()
    page.locator("#escape-confirm").click()
    page.locator("#table-app[data-status=over]").wait_for()
    record = page.locator("#use-recorder")
    record.wait_for(state="visible")
    record.click()
    page.wait_for_function("() => document.getElementById('items-message').textContent")
    page.goto(site.base_url + "/replays/")
    page.locator(".replay-item a").first.click()
    page.wait_for_url("**/replays/*/")
    assert page.locator(".replay-hand").count() == 4
    total = int(page.locator("#replay-step").inner_text().split("/")[1])
    assert total >= 1
    sizes = page.locator(".replay-hand").evaluate_all(
        "els => els.map(e => Number(e.textContent.match(/\\((\\d+)\\)/)[1]))")
    assert sum(sizes) == 162  # the deal, all four hands shown
    page.locator("#replay-forward").click()
    assert page.locator("#replay-step").inner_text().startswith("1 /")
    page.locator("#replay-back").click()
    assert page.locator("#replay-step").inner_text().startswith("0 /")
    page.locator("#replay-trick").select_option("1")
    assert page.locator("#replay-action").inner_text()
    assert page.locator("#record-download").get_attribute("href").endswith("record.json")
    page.goto(site.base_url + "/shop/")
    assert _coins(page) == 800
    assert page.locator('.catalogue-item[data-item="card_counter"] .held').inner_text().endswith(
        "0")
    me.assert_clean()
