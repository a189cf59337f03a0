"""购买 pressed twice buys once, in a real browser: a double click on the
desktop (算牌器, quantity 2) and a double tap on a phone (录像机) make one
purchase and show one banner (the page disables the button once pressed; with
its script blocked the server's one-time key does it); and the same form
posted twice at once (its fields, the key among them) is charged once by the
server. The site and browser fixtures are tests/test_browser_shop.py's."""

from __future__ import annotations

import pytest

from tests import test_browser_shop as tbs
from tests.browser import Player, chromium_path

pytestmark = [
    pytest.mark.skipif(chromium_path() is None,
                       reason="browser tests need Debian's chromium at /usr/bin/chromium"),
    pytest.mark.django_db(transaction=True),
]

browser, site = tbs.browser, tbs.site


def _open_shop(page, base_url: str) -> None:
    page.goto(base_url + "/shop/")
    page.locator("form.buy-form").first.wait_for()


def _banners(page) -> list[str]:
    return page.locator(".messages li").all_inner_texts()


def _buy_posts(page) -> list[str]:
    """The purchase posts the page sends from now on."""
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url)
            if r.method == "POST" and r.url.endswith("/shop/buy/") else None)
    return posts


@pytest.mark.parametrize("script", [True, False], ids=["page-script", "no-script"])
def test_a_double_click_on_buy_buys_once_on_the_desktop(site, browser, script):
    """Two clicks 15 ms apart on 购买 (算牌器, quantity 2). With the page's
    script the second click finds the button disabled; without it (blocked)
    the browser sends the form again, and the server's key buys nothing more."""
    me = Player.open(browser, "shuangji", viewport={"width": 1280, "height": 900})
    me.sign_up(site.base_url)
    page = me.page
    if not script:
        page.route("**/shop/inventory.js", lambda route: route.abort())
    _open_shop(page, site.base_url)
    assert tbs._coins(page) == 2000
    posts = _buy_posts(page)
    form = page.locator('.catalogue-item[data-item="card_counter"] form.buy-form')
    form.locator("input[name=quantity]").fill("2")
    box = form.locator("button[type=submit]").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)
    page.wait_for_timeout(15)
    page.mouse.click(x, y)  # the second click of a double click (it may abort the first)
    page.wait_for_url("**/shop/")
    page.locator(".messages li").first.wait_for()
    page.wait_for_timeout(800)  # a second post would have landed by now
    page.wait_for_load_state()
    if script:
        assert len(posts) == 1, posts
    banners = _banners(page)
    assert len(banners) == 1, banners
    assert "800" in banners[0]
    assert tbs._coins(page) == 1200  # 2 × 400, once
    assert tbs._held(page, "card_counter") == 2
    _open_shop(page, site.base_url)  # nothing more arrived meanwhile
    assert tbs._coins(page) == 1200
    assert tbs._held(page, "card_counter") == 2
    assert _banners(page) == []
    if script:
        me.assert_clean()


def test_a_double_tap_on_a_phone_and_a_resent_form_buy_once(site, browser):
    me = Player.open(browser, "shuangchu", viewport={"width": 390, "height": 844},
                     is_mobile=True, has_touch=True)
    me.sign_up(site.base_url)
    page = me.page
    _open_shop(page, site.base_url)
    button = page.locator('.catalogue-item[data-item="recorder"] button[type=submit]')
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    with page.expect_navigation():
        page.touchscreen.tap(x, y)  # a double tap: the second lands on the same page
        page.touchscreen.tap(x, y)
    page.wait_for_load_state()
    page.wait_for_timeout(500)
    banners = _banners(page)
    assert len(banners) == 1, banners
    assert "300" in banners[0]
    assert tbs._coins(page) == 1700
    assert tbs._held(page, "recorder") == 1

    # the server's own guard: the form's fields (its key among them) posted twice at
    # once, as a page without its script would on a double tap
    statuses = page.evaluate("""async () => {
      const form = document.querySelector('.catalogue-item[data-item="recorder"] form.buy-form');
      const post = () => fetch(form.action, {method: "POST", body: new FormData(form),
                                             headers: {Accept: "application/json"}});
      const replies = await Promise.all([post(), post()]);
      return Promise.all(replies.map(async (r) => [r.status, await r.json()]));
    }""")
    assert [s for s, _ in statuses] == [200, 200]
    assert sorted(reply["repeated"] for _, reply in statuses) == [False, True]
    assert {(r["item"], r["count"], r["total"]) for _, r in statuses} == {("recorder", 1, 300)}
    _open_shop(page, site.base_url)
    assert tbs._coins(page) == 1400
    assert tbs._held(page, "recorder") == 2
    me.assert_clean()
