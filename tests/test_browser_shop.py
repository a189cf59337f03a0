"""The shop in a real browser: a new user checks in, buys a timer and
a card counter, sees the coins drop, uses the counter at a practice table
(three bots) and sees the remaining cards; an owner renames their table with a
招牌 and lays a 桌布 that the other player at the table sees. The site and
browser fixtures are tests/test_browser.py's (the site is ``manage.py runsite``
as a child)."""

from __future__ import annotations

import os
from datetime import datetime, timedelta, timezone

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
    table_sockets: list[str] = []
    page.on("websocket",
            lambda ws: table_sockets.append(ws.url) if "/ws/table/" in ws.url else None)
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
    # used over the page's own socket: a second one doubled every frame (a tester's)
    assert len(table_sockets) == 1, table_sockets
    assert me.wait_turn_or_over() == "turn"  # the bots wait for me: nothing moves now
    page.wait_for_timeout(600)  # the panel redraws every 0.4 s
    counts = dict(counter.locator("span[data-card]").evaluate_all(
        "els => els.map(e => [e.dataset.card, Number(e.textContent.split('×')[1])])"))
    view = page.evaluate("() => window.YuanziTable.state().view")
    assert len(counts) == 54
    assert counts == view["card_counter"]
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
    # the panel says where the replay went and links to it
    link = page.locator("#items-message a", has_text="观看录像")
    link.wait_for()
    assert "已存入你的录像库" in page.locator("#items-message").inner_text()
    href = link.get_attribute("href")
    # saved: 已保存 and the replay's link take the recorder button's place, after a reload too
    saved = page.locator("[data-for=recorder] .recorder-saved")
    saved.wait_for(state="visible")
    assert "已保存" in saved.inner_text()
    assert not record.is_visible()
    table_url = page.url
    page.reload()
    page.locator("#table-app[data-status=over]").wait_for()
    # (the result panel it sits in stays closed after a reload: its state, not its visibility)
    page.wait_for_function("""() => {
      const box = document.querySelector('[data-for=recorder] .recorder-saved');
      return box && !box.hidden && document.getElementById('use-recorder').hidden; }""")
    assert saved.locator("a").get_attribute("href") == href
    assert page.url == table_url
    page.goto(site.base_url + "/replays/")
    page.locator(".replay-item a").first.click()
    page.wait_for_url("**/replays/*/")
    assert page.url.endswith(href)
    assert page.locator(".replay-hand").count() == 4
    total = int(page.locator("#replay-step").inner_text().split("/")[1])
    assert total >= 1
    sizes = page.locator(".replay-count").evaluate_all("els => els.map(e => Number(e.dataset.n))")
    assert sum(sizes) == 162  # the deal, all four hands shown
    hands = [page.locator(f'.replay-seat[data-seat="{i}"]').inner_text() for i in range(4)]
    assert "xiaohong" in hands[0]
    assert all("机器人（" in h for h in hands[1:])
    faces = page.locator(".replay-hand .pcard").evaluate_all(
        "els => els.map(e => e.getAttribute('aria-label'))")
    assert len(faces) == 162
    assert any(f.endswith("♠") for f in faces)
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


# --- 招牌 and 桌布 at a table -------------------------------------------------------------

# the felt's computed background: the default cloth (static/css/site.css) and 碧玉
# (jade, static/shop/shop.css) start with these colours
DEFAULT_FELT = "rgb(47, 138, 85)"
JADE_FELT = "rgb(62, 142, 110)"
FELT_JS = "() => getComputedStyle(document.getElementById('felt')).backgroundImage"


def _buy_many(page, code: str, quantity: int) -> None:
    form = page.locator(f'.catalogue-item[data-item="{code}"] form.buy-form')
    form.locator("input[name=quantity]").fill(str(quantity))
    with page.expect_navigation():  # the post answers with a redirect to /shop/
        form.locator("button[type=submit]").click()


def _held(page, code: str) -> int:
    """What the shop page says one holds of ``code`` ("持有 N")."""
    return int(page.locator(f'.catalogue-item[data-item="{code}"] .held').inner_text().split()[-1])


def _slot_counts(page, code: str) -> list[int]:
    return page.locator(f'#inventory .slot[data-item="{code}"]').evaluate_all(
        "els => els.map(e => Number(e.dataset.count))")


def _wait_text(page, selector: str, text: str) -> None:
    page.wait_for_function(
        "([sel, text]) => { const e = document.querySelector(sel);"
        " return !!e && e.textContent.trim() === text; }", arg=[selector, text])


def test_sign_renames_and_tablecloth_themes_a_table_for_everyone(site, browser):
    """The owner buys two signs and two tablecloths (after an audited grant:
    a new account's 2,000 coins buy neither both), renames their table with a
    sign — the new name and its protection show on the table page, to the
    other player and in the lobby; the other player's own sign is refused —
    and lays the jade cloth, which the other player's page draws at once and
    after a reload. Each use takes exactly one item and no coins."""
    owner = Player.open(browser, "zhaopai", viewport={"width": 1280, "height": 900})
    owner.sign_up(site.base_url)
    out = site.manage("grant_coins", "zhaopai", "4000", "--reason", "browser test: sign, cloth")
    assert "balance 6000" in out
    page = owner.page
    page.goto(site.base_url + "/shop/")
    assert _coins(page) == 6000
    _buy_many(page, "sign", 2)
    _buy_many(page, "tablecloth", 2)
    assert _coins(page) == 6000 - 2 * 1000 - 2 * 1500
    assert (_held(page, "sign"), _held(page, "tablecloth")) == (2, 2)

    page.goto(site.base_url + "/")
    owner.create_table("旧桌名")
    owner.sit(0)
    other = Player.open(browser, "kezhan", viewport={"width": 1280, "height": 900})
    other.sign_up(site.base_url)
    theirs = other.page
    theirs.goto(site.base_url + "/shop/")
    _buy_many(theirs, "sign", 1)
    assert _coins(theirs) == 1000
    assert _held(theirs, "sign") == 1
    other.open_from_lobby(site.base_url, "旧桌名")
    other.sit(1)
    theirs.locator("#table-app[data-theme=default]").wait_for()
    felt = theirs.evaluate(FELT_JS)
    assert DEFAULT_FELT in felt
    assert JADE_FELT not in felt
    assert theirs.locator("#sign-protection").is_hidden()

    # the owner renames the table with a sign
    row = page.locator("#items-panel [data-for=sign]")
    row.wait_for(state="visible")
    page.locator("#sign-name").fill("金牌茶馆")
    page.locator("#use-sign").click()
    for p in (page, theirs):
        _wait_text(p, "#table-name", "金牌茶馆")
        protection = p.locator("#sign-protection")
        protection.wait_for(state="visible")
        assert protection.inner_text().startswith("桌名由 zhaopai 保护")
    # until an hour from now, in Beijing time whatever the browser's zone (UTC here)
    until = datetime.now(timezone(timedelta(hours=8))) + timedelta(hours=1)
    shown = page.locator("#sign-protection").inner_text()
    # as the refusals write a moment ("12-09 03:20"), not the browser's own way
    assert f"{until:%m-%d %H}:" in shown, shown
    _wait_text(page, "#items-message", "桌名已更改。")

    # protected: the other player's sign is refused, the name stays, their sign is kept
    theirs.locator("#items-panel [data-for=sign]").wait_for(state="visible")
    theirs.locator("#sign-name").fill("抢来的名字")
    theirs.locator("#use-sign").click()
    theirs.wait_for_function(
        "() => document.getElementById('items-message').textContent.includes('桌名受保护')")
    assert theirs.locator("#table-name").inner_text() == "金牌茶馆"

    # the owner lays the jade cloth: the other player's page draws it live
    cloth = page.locator("#items-panel [data-for=tablecloth]")
    cloth.wait_for(state="visible")
    assert theirs.locator("#items-panel [data-for=tablecloth]").is_hidden()  # owner only
    page.locator("#cloth-theme").select_option("jade")
    page.locator("#use-cloth").click()
    for p in (page, theirs):
        p.locator("#table-app[data-theme=jade]").wait_for()
        assert JADE_FELT in p.evaluate(FELT_JS)
        assert DEFAULT_FELT not in p.evaluate(FELT_JS)
    theirs.reload()
    other.wait_connected()
    theirs.locator("#table-app[data-theme=jade]").wait_for()
    assert JADE_FELT in theirs.evaluate(FELT_JS)
    _wait_text(theirs, "#table-name", "金牌茶馆")

    # the lobby: the new name with its protection badge, the old name gone
    theirs.goto(site.base_url + "/")
    badge = theirs.locator(".lobby-table:has(.lt-name:text-is('金牌茶馆')) .lt-sign")
    badge.wait_for()
    assert badge.inner_text().startswith("招牌：桌名保护至")
    assert f"{until:%m-%d %H}:" in badge.inner_text(), badge.inner_text()
    assert theirs.locator(".lt-name:text-is('旧桌名')").count() == 0

    # one of each used, nothing paid; the refused sign kept
    page.goto(site.base_url + "/shop/")
    assert _coins(page) == 1000
    assert (_held(page, "sign"), _held(page, "tablecloth")) == (1, 1)
    assert _slot_counts(page, "sign") == [1]
    assert _slot_counts(page, "tablecloth") == [1]
    theirs.goto(site.base_url + "/shop/")
    assert _coins(theirs) == 1000
    assert _held(theirs, "sign") == 1
    owner.assert_clean()
    other.assert_clean()
